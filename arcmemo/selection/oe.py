"""OE selection: caption the puzzle (aux model), then pick the top-k lessons (select model).

The caption turns grids into words that can meet a lesson's `situation`; it keeps what
can be checked in the grids apart from guesses about the rule. The select model sees
only the caption and the numbered lessons, and answers with lesson numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from arcmemo.core.answers import MAX_CARRIED_CHARS, MAX_NAMES
from arcmemo.core.gridtext import format_task
from arcmemo.core.parsing import ParseError, extract_tag
from arcmemo.core.text import cap
from arcmemo.memory.render import render_oe
from arcmemo.prompts import render_prompt
from arcmemo.selection import budget
from arcmemo.selection.conversation import Outcome, ask, sum_usage, yaml_list_answer
from arcmemo.selection.types import Selection, SelectionSettings

MAX_NUMBER_DIGITS = 9       # a lesson number written as text; longer is not a lesson number


def parse_caption(text: str) -> str:
    """The caption for the select prompt; each part held to half of MAX_CARRIED_CHARS."""
    observations = cap(extract_tag(text, "observations"), MAX_CARRIED_CHARS // 2)
    speculation = cap(extract_tag(text, "speculation"), MAX_CARRIED_CHARS // 2)
    return f"Observations:\n{observations}\n\nPossible rules (speculation):\n{speculation}"


def caption_task(task, llm, settings: SelectionSettings) -> Outcome:
    """The structured caption (role aux, step caption); Outcome.value is the caption text."""
    messages = [{"role": "user", "content": render_prompt("caption", puzzle=format_task(task))}]
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


def render_hint(lessons: Sequence) -> str:
    """The solver's hint for chosen lessons: exactly render_oe of them, most relevant first."""
    return render_oe(list(lessons)) if lessons else ""


def _messages(caption: str, lessons: Sequence, top_k: int) -> list[dict]:
    return [{"role": "user", "content": render_prompt("select_oe", caption=caption,
                                                      lessons=render_oe(list(lessons)), top_k=top_k)}]


def plan_prompt(caption: str, lessons: Sequence, settings: SelectionSettings) -> tuple[list[dict], list, dict]:
    """All lessons if they fit the token budget, else the ones that best match the caption."""
    stats = {"memory_size": len(lessons), "budget": settings.token_budget}
    messages = _messages(caption, lessons, settings.top_k)
    tokens = budget.messages_tokens(messages)
    if tokens <= settings.token_budget:
        return messages, list(lessons), {**stats, "shown": len(lessons), "form": "full", "prompt_tokens_est": tokens}
    ranked = budget.rank_lexical(caption, list(lessons))
    fits = lambda subset: budget.messages_tokens(  # noqa: E731
        _messages(caption, budget.keep_order(subset, lessons), settings.top_k)) <= settings.token_budget
    n = budget.fit_prefix(ranked, fits)
    shown = budget.keep_order(ranked[:n], lessons)
    messages = _messages(caption, shown, settings.top_k)
    return messages, shown, {**stats, "shown": len(shown), "form": "prefiltered", "full_tokens_est": tokens,
                             "prompt_tokens_est": budget.messages_tokens(messages)}


def select_oe(task, memory, settings: SelectionSettings, llm) -> Selection:
    lessons = memory.list(format="oe")
    if not lessons:
        return Selection(mode="oe", stats={"memory_size": 0, "shown": 0})
    cap = caption_task(task, llm, settings)
    completions = list(cap.completions)
    if not cap.ok:
        return Selection(mode="oe", fallback=True, error=cap.error, reasoning=cap.raw,
                         usage=sum_usage(completions), stats={"memory_size": len(lessons)})
    caption = cap.value
    messages, shown, stats = plan_prompt(caption, lessons, settings)
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
    return Selection(mode="oe", concept_ids=[c.id for c in chosen], hint=render_hint(chosen),
                     reasoning=caption, caption=caption, unmatched=unmatched,
                     usage=sum_usage(completions), stats=stats)
