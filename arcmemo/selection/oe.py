"""OE selection: caption the puzzle (aux model), then pick the top-k lessons (select model).

The caption turns grids into words that can meet a lesson's `situation`; it keeps what
can be checked in the grids apart from guesses about the rule. As in the paper, a model
that reads images (`vision: true` in models.yaml) captions rendered pictures of the
puzzle; any other model reads the grids as text. The select model sees only the caption
and the numbered lessons, and answers with lesson numbers; the solver gets the caption
with the chosen lessons.

A method may hand over the lessons to choose from (ArcMemo-OE: with or without those from
failures) and the use prior (selection/prior.py), which numbers them for the select model by
prior, the higher first, and puts the higher prior first among equal word matches when the
memory is pre-filtered; the model's choice and its order stand.
"""

from __future__ import annotations

from collections.abc import Sequence

from arcmemo.core.answers import MAX_CARRIED_CHARS, MAX_NAMES
from arcmemo.core.estimate import estimate_tokens
from arcmemo.core.gridtext import format_task
from arcmemo.core.parsing import ParseError, extract_tag
from arcmemo.core.text import cap
from arcmemo.llm.counting import ESTIMATE, MESSAGE_TOKENS, OVERESTIMATE, TokenCounter, counter_for
from arcmemo.memory.views.fitting import largest_fit
from arcmemo.memory.views.library import Library, library
from arcmemo.memory.views.render import render_oe
from arcmemo.prompts import render_prompt
from arcmemo.selection.conversation import Outcome, ask, sum_usage, with_retry_feedback, yaml_list_answer
from arcmemo.selection.prior import UsePrior, by_prior, prior_order, ties_by_prior
from arcmemo.selection.types import Selection, SelectionSettings

MAX_NUMBER_DIGITS = 9       # a lesson number written as text; longer is not a lesson number


def parse_caption(text: str) -> str:
    """The caption for the select prompt; each part held to half of MAX_CARRIED_CHARS."""
    observations = cap(extract_tag(text, "observations"), MAX_CARRIED_CHARS // 2)
    speculation = cap(extract_tag(text, "speculation"), MAX_CARRIED_CHARS // 2)
    return f"Observations:\n{observations}\n\nPossible rules (speculation):\n{speculation}"


def caption_messages(task, vision: bool, image: str = "pairs") -> list[dict]:
    """The caption prompt: for a model that reads images (the paper's way), one rendered PNG per
    train pair (input beside output) and per test input, each after a line naming it, or
    (`image` "puzzle", as the released code does) one PNG of the whole puzzle; for any other
    model the grids as text."""
    if not vision:
        return [{"role": "user", "content": render_prompt(
            "caption", grid_format=render_prompt("caption_grids").strip(), puzzle=format_task(task))}]
    from arcmemo.pictures import image_part, task_images, task_rows
    from arcmemo.pictures import png as picture_of

    if image == "puzzle":     # each pair's input above its output, the test inputs last (no outputs: a Task has none)
        text = render_prompt("caption", grid_format=render_prompt("caption_picture_whole").strip(),
                             puzzle="One picture follows.")
        picture = picture_of(task_rows(task), columns=True)
        return [{"role": "user", "content": [{"type": "text", "text": text}, image_part(picture)]}]
    labels = [f"Example {i} (input left, output right):" for i in range(1, len(task.train) + 1)]
    labels += [f"Test input {j}:" for j in range(1, len(task.test_inputs) + 1)]
    text = render_prompt("caption", grid_format=render_prompt("caption_pictures").strip(),
                         puzzle=f"{len(labels)} pictures follow.")
    parts = [{"type": "text", "text": text}]
    for label, png in zip(labels, task_images(task), strict=True):
        parts += [{"type": "text", "text": label}, image_part(png)]
    return [{"role": "user", "content": parts}]


def caption_task(task, llm, settings: SelectionSettings) -> Outcome:
    """The structured caption (role aux, step caption); Outcome.value is the caption text.
    Pictures go to an aux model with `vision: true` in models.yaml, text to any other."""
    messages = caption_messages(task, vision=llm.traits("aux").vision is True, image=settings.caption_image)
    return ask(llm, messages, role="aux", step="caption", parse=parse_caption, task_id=task.id,
               params=settings.caption_params, sample=settings.pass_index)


def parse_numbers(text: str) -> list[int]:
    """A fenced YAML list of lesson numbers (ints, or text like "3" / "#3" / "lesson 3")."""
    value = yaml_list_answer(text)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ParseError(f"the ```yaml block must be a list of lesson numbers, got a {type(value).__name__}")
    numbers: list[int] = []
    for i, item in enumerate(value):
        if isinstance(item, int) and not isinstance(item, bool):
            numbers.append(item)
            continue
        if isinstance(item, str):
            digits = item.strip().lower().removeprefix("lesson").strip().lstrip("#").strip()
            if digits.isdecimal() and len(digits) <= MAX_NUMBER_DIGITS:
                numbers.append(int(digits))
                continue
        raise ParseError(f"item {i + 1} of the list is not a lesson number: {cap(repr(item), 100)}")
    return numbers


def render_hint(lessons: Sequence, caption: str | None = None) -> str:
    """The solver's hint, as in the paper: the puzzle's caption, then the chosen lessons
    (render_oe, most relevant first). No lessons: no hint."""
    if not lessons:
        return ""
    lessons_text = render_oe(list(lessons))
    if not caption:
        return lessons_text
    return (f"A description of this puzzle (its speculation is a guess, not a fact):\n{caption}\n\n"
            f"Lessons from earlier puzzles that may apply:\n{lessons_text}")


def _messages(caption: str, lessons_text: str, top_k: int) -> list[dict]:
    return [{"role": "user", "content": render_prompt("select_oe", caption=caption, lessons=lessons_text,
                                                      top_k=top_k)}]


def _longer_numbers(n: int) -> int:
    """Digits beyond the first in the numbers 1..n (lesson 10 has one more digit than lesson 1)."""
    return sum(max(0, n - 10 ** d + 1) for d in range(1, len(str(n))))


def plan_prompt(caption: str, lib: Library, settings: SelectionSettings,
                count: TokenCounter = ESTIMATE, prior: UsePrior | None = None) -> tuple[list[dict], list, dict]:
    """All lessons if they fit the token budget, else the ones that best match the caption
    (planned in the estimate, then counted as in ps.plan_prompt); numbered in memory order, or
    by `prior`. Returns the messages, the lessons in their numbers' order, and stats."""
    limit = settings.token_budget
    stats = {"memory_size": len(lib), "budget": limit, "tokens": count.name}
    ordered = None if prior is None else prior_order(lib, prior)
    order = None if ordered is None else ordered.scores

    def numbered(positions: list[int]) -> list[int]:
        return sorted(positions) if order is None else by_prior(sorted(positions), order)

    frame = estimate_tokens(_messages(caption, "", settings.top_k)[0]["content"]) + MESSAGE_TOKENS
    messages = _messages(caption, lib.lessons_text() if ordered is None else ordered.lessons_text(lib), settings.top_k)
    planned = frame + lib.tokens(lib.lessons_text())     # the same lessons numbered 1..n in any order
    tokens = planned if count.estimate or planned > OVERESTIMATE * limit else count.messages(messages)
    if tokens <= limit:
        shown = list(lib.concepts if ordered is None else ordered.in_order)
        return messages, shown, {**stats, "shown": len(lib), "form": "full", "prompt_tokens_est": tokens}
    ranked = lib.rank(caption) if order is None else ties_by_prior(lib.rank(caption), lib.index.scores(caption), order)
    sums = [0]

    def planned_for(n: int) -> int:
        """Lessons estimated alone (as lesson 1), the blank lines between them, longer numbers."""
        while len(sums) <= n:
            sums.append(sums[-1] + lib.lesson_tokens(ranked[len(sums) - 1]))
        return frame + sums[n] + max(n - 1, 0) * lib.tokens("\n") + _longer_numbers(n) * lib.tokens("0")

    def build(n: int) -> list[dict]:
        return _messages(caption, lib.lessons_text(numbered(ranked[:n])), settings.top_k)

    n, size = largest_fit(len(ranked), planned_for, limit, None if count.estimate else lambda n: count.messages(build(n)))
    return build(n), [lib.concepts[i] for i in numbered(ranked[:n])], {
        **stats, "shown": n, "form": "prefiltered", "full_tokens_est": tokens, "prompt_tokens_est": size}


def select_oe(task, memory, settings: SelectionSettings, llm, *, lessons: Library | None = None,
              prior: UsePrior | None = None) -> Selection:
    """The OE read (module docstring): from `lessons` (default: every OE lesson in memory),
    numbered by `prior` when given."""
    lib = library(memory, "oe") if lessons is None else lessons
    if not lib.concepts:
        return Selection(mode="oe", stats={"memory_size": 0, "shown": 0})
    if settings.caption is not None:     # made once for the task's threads (protocol oe_caption per-puzzle)
        cap = Outcome(value=settings.caption)
    else:
        cap = caption_task(task, llm, settings)
    completions = list(cap.completions)
    if not cap.ok:
        return Selection(mode="oe", fallback=True, error=cap.error, reasoning=cap.raw,
                         usage=sum_usage(completions), stats={"memory_size": len(lib)})
    caption = cap.value
    messages, shown, stats = plan_prompt(with_retry_feedback(caption, settings.retry_feedback), lib, settings,
                                         counter_for(llm, "select"), prior)
    if not shown:
        return Selection(mode="oe", fallback=True, caption=caption, reasoning=caption,
                         usage=sum_usage(completions), stats=stats,
                         error=f"select_oe: the caption alone fills the token budget of {settings.token_budget}")
    outcome = ask(llm, messages, role="select", step="select_oe", parse=parse_numbers, task_id=task.id,
                  params=settings.select_params, sample=settings.pass_index)
    completions += outcome.completions
    if not outcome.ok:
        return Selection(mode="oe", fallback=True, error=outcome.error, caption=caption, reasoning=caption,
                         usage=sum_usage(completions), stats=stats)
    chosen = [shown[n - 1] for n in dict.fromkeys(outcome.value) if 1 <= n <= len(shown)]
    unmatched = [f"#{n}" for n in dict.fromkeys(outcome.value) if not 1 <= n <= len(shown)][:MAX_NAMES]
    stats = {**stats, "answered": len(outcome.value), "dropped_over_k": max(0, len(chosen) - settings.top_k)}
    chosen = chosen[: settings.top_k]
    return Selection(mode="oe", concept_ids=[c.id for c in chosen], hint=render_hint(chosen, caption),
                     reasoning=caption, caption=caption, unmatched=unmatched,
                     usage=sum_usage(completions), stats=stats)
