"""PS selection: a reasoning model explores the concept library for one puzzle.

The select model sees the rendered library and the puzzle, starts from structures and
grid-manipulation routines whose relevance cues it can see in the grids, then follows
typed parameters to the routines that supply them, and answers a YAML list of names.

A library too large for `token_budget` is first shown with its rarely used concepts
(used in fewer than COLLAPSE_BELOW tasks) collapsed to their names, then compressed
(names + typing); past that, only the concepts that best match a short description of the puzzle (derived from
the grids, or an aux caption) are shown.

A weak select model may answer with names that match nothing in the library (section
headings such as "grid manipulation routines"). Then it is asked once more, with the
library shown as nothing but the concept names (those it was shown, as many as fit the
token budget) and a note that its first names were not concepts; `stats["asked_again"]`
records what it named first and how many names matched after.

The hint handed to the solver is held to `hint_budget`: a weak select model may pick
dozens of concepts, and their full text would crowd the puzzle out of a small model's
context. Past the budget, the concepts the model listed last are left out (neighbours
added by --expand go first); `stats["hint_dropped"]` counts them. With `other_names`
(the paper's hint, what solve runs use) the hint goes on with the names of the concepts not
chosen, as many as the rest of the budget holds.

Re-selection before a retry (`retry_feedback`) shows the failed try's feedback after the
puzzle.

With the use prior (selection/prior.py) the listings order each section's concepts by it,
the pre-filter puts the higher prior first among equal word matches, and the hint names the
concepts not chosen by it.

Budgets are counted in the tokens of the model that reads the text (the select model for
the prompt, the solver for the hint; arcmemo.llm.counting). A prompt is planned in the
digit-aware estimate, summed from the library's parts, prepared and estimated once per
memory revision (arcmemo.memory.views.library); with a model's own tokenizer the planned prompt
is then counted, and re-planned by the ratio the count shows until it fits (a few counts).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import Any

from arcmemo.core.answers import MAX_NAME_CHARS, MAX_NAMES
from arcmemo.core.estimate import estimate_tokens, with_number
from arcmemo.core.gridtext import format_task
from arcmemo.core.parsing import ParseError
from arcmemo.core.text import cap, clean_line
from arcmemo.llm.counting import ESTIMATE, MESSAGE_TOKENS, OVERESTIMATE, TokenCounter, counter_for
from arcmemo.memory.views.fitting import largest_fit
from arcmemo.memory.views.library import ALL_TYPES, COMPRESSED, FULL, Form, Library, library, needed_types
from arcmemo.memory.views.render import render_ps
from arcmemo.prompts import render_prompt
from arcmemo.selection import budget
from arcmemo.selection.conversation import ask, sum_usage, with_retry_feedback, yaml_list_answer
from arcmemo.selection.expand import expand_neighbours
from arcmemo.selection.matching import ExactFirst, NameMatcher, name_keys
from arcmemo.selection.prior import UsePrior, prior_order, ties_by_prior
from arcmemo.selection.types import Selection, SelectionSettings
from arcmemo.selection.views import collapsed_view, released_hint

NOTE_FULL = ""
COLLAPSE_BELOW = 2
NOTE_COLLAPSED = (
    "The library is long: concepts used in only one earlier puzzle are listed by name alone.\n"
)
NOTE_COMPRESSED = (
    "The library is long, so it is shown in short form: names, parameters and typing only.\n"
)
NOTE_NAMES = (
    "You answered with {unmatched}, which {verb} not the name of any concept: headings such as \"structures\" "
    "or \"grid manipulation routines\" are not concepts. The library is listed below by concept names only; "
    "choose from these names, copied exactly.\n"
)
NOTE_PREFILTERED = (
    "The library holds {total} concepts, too many to show. Below are the {shown} that best match "
    "a quick description of this puzzle, in short form (names, parameters and typing only). "
    "Select only from these.\n"
)
NOTE_OTHERS = "\n\nOther concepts in memory, by name (not chosen for this puzzle; they may still help):\n"
WHOLE_FORMS = (("full", FULL, NOTE_FULL), ("collapsed", Form(collapse_below=COLLAPSE_BELOW), NOTE_COLLAPSED),
               ("compressed", COMPRESSED, NOTE_COMPRESSED))


def render_hint(concepts: Sequence, custom_types: dict[str, str]) -> str:
    """The solver's hint for a chosen PS subset: exactly render_ps of it with the types it needs."""
    if not concepts:
        return ""
    return render_ps(list(concepts), needed_types(concepts, custom_types))


def fit_hint(ranked: Sequence, lib: Library, limit: int, count: TokenCounter = ESTIMATE) -> list:
    """The longest prefix of `ranked` (most wanted first) whose hint fits in `limit`
    tokens, in memory order."""
    positions = lib.positions(ranked)
    actual = None if count.estimate else lambda n: count(lib.text(positions[:n]))
    n, _ = largest_fit(len(positions), lib.sizes(positions), limit, actual)
    return lib.pick(positions[:n])


def with_other_names(hint: str, lib: Library, chosen: Sequence, limit: int, count: TokenCounter = ESTIMATE,
                     prior: UsePrior | None = None) -> str:
    """The paper's hint: the chosen concepts in full (with their custom types), then the names
    of the concepts not chosen, in memory order (by `prior`: the higher first), as many as fit
    in `limit` tokens."""
    taken = {c.id for c in chosen}
    total = len(lib) - sum(1 for c in chosen if c.id in lib.by_id)
    if not hint or not total:
        return hint
    head = estimate_tokens(hint + NOTE_OTHERS)
    names = _memory_order_names(lib, taken) if prior is None else _PriorOrderNames(lib, taken, prior)

    def size(n: int) -> int:
        return head + names.size(n) if n else estimate_tokens(hint)

    def text(n: int) -> str:
        return hint + NOTE_OTHERS + "\n".join(names.lines(n)) if n else hint

    # in the estimate the sizes are the count (it adds up at line ends): counted only in a tokenizer
    n, _ = largest_fit(total, size, limit, None if count.estimate else lambda n: count(text(n)))
    return text(n)


class _MemoryOrderNames:
    """The `- name` lines of a revision's concepts in memory order but those at `skipped`
    (sorted positions): their sizes from the revision's prefix sums (kept: the same for every
    task), the lines joined only for the answer."""

    def __init__(self, lines: list[str], sums: list[int], skipped: list[int]):
        self._lines, self._sums, self._skipped = lines, sums, skipped

    def _end(self, n: int) -> int:
        """The memory position before which n lines are listed."""
        end = n
        for i in self._skipped:
            if i >= end:
                break
            end += 1
        return end

    def size(self, n: int) -> int:
        """Estimate of the first n lines joined by line breaks (n >= 1)."""
        end, sums = self._end(n), self._sums
        return sums[end] - sum(sums[i + 1] - sums[i] for i in self._skipped if i < end) - 1

    def lines(self, n: int) -> list[str]:
        end, skipped = self._end(n), set(self._skipped)
        return [line for i, line in enumerate(self._lines[:end]) if i not in skipped]


def _memory_order_names(lib: Library, taken: set) -> _MemoryOrderNames:
    def make() -> tuple[list[str], list[int]]:
        tokens = _name_line_tokens(lib).all()
        return [f"- {c.name}" for c in lib.concepts], list(accumulate((t + 1 for t in tokens), initial=0))
    lines, sums = lib.kept("name lines", make)
    return _MemoryOrderNames(lines, sums, sorted(lib.positions([lib.by_id[i] for i in taken if i in lib.by_id])))


class _PriorOrderNames:
    """The `- name` lines in the use prior's order but the `taken` ids', sized as far as asked
    (the order is the prior's, so nothing is kept per revision)."""

    def __init__(self, lib: Library, taken: set, prior: UsePrior):
        self._concepts, self._tokens = lib.concepts, _name_line_tokens(lib)
        self._source = (i for i in (lib.positions([c])[0] for c in prior.first(lib.concepts))
                        if lib.concepts[i].id not in taken)
        self._listed: list[int] = []
        self._sums = [0]

    def _upto(self, n: int) -> None:
        while len(self._listed) < n:
            i = next(self._source)
            self._sums.append(self._sums[-1] + self._tokens.at(i) + (1 if self._listed else 0))  # + the line break
            self._listed.append(i)

    def size(self, n: int) -> int:
        self._upto(n)
        return self._sums[n]

    def lines(self, n: int) -> list[str]:
        self._upto(n)
        return [f"- {self._concepts[i].name}" for i in self._listed[:n]]


def _name_line_tokens(lib: Library):
    """Per position, the estimate of the concept's line `- name` in a list of names (kept with
    each concept across revisions): the hint's other names and the names asked again with."""
    return lib.column("name line tokens", lambda c: estimate_tokens(f"- {c.name}"))


def _collapsed(lib: Library) -> str:
    """The released code's view of the library (views.collapsed_view), made once per revision."""
    return lib.kept("collapsed view", lambda: collapsed_view(lib.concepts, lib.custom_types))


def released_form_hint(lib: Library, chosen: Sequence, settings: SelectionSettings,
                       count: TokenCounter = ESTIMATE) -> str:
    """The released code's hint (views.released_hint): the chosen concepts, every custom type and,
    when `other_names` and it fits the hint budget, the other concepts' names by section."""
    hint = released_hint(lib.concepts, chosen, lib.custom_types, others=settings.other_names)
    if settings.other_names and count(hint) > settings.hint_budget:
        hint = released_hint(lib.concepts, chosen, lib.custom_types, others=False)
    return hint


def puzzle_text(task, settings: SelectionSettings) -> str:
    """The puzzle as the select prompt shows it; when re-selecting, with the failed try's feedback."""
    return with_retry_feedback(format_task(task), settings.retry_feedback)


def parse_names(text: str) -> list[str]:
    """The fenced YAML list of concept names. Items may be `name` or `name: why` or `{concept: name}`.
    A name longer than MAX_NAME_CHARS is cut (it cannot be a concept's name)."""
    value = yaml_list_answer(text)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ParseError(f"the ```yaml block must be a list of concept names, got a {type(value).__name__}")
    names: list[str] = []
    for i, item in enumerate(value):
        if isinstance(item, (str, int, float)) and not isinstance(item, bool):
            name = str(item)
        elif isinstance(item, dict) and len(item) == 1:
            key, val = next(iter(item.items()))
            name = str(val) if key in ("concept", "name") and isinstance(val, str) else str(key)
        elif isinstance(item, dict) and isinstance(item.get("concept") or item.get("name"), str):
            name = item.get("concept") or item.get("name")
        else:
            raise ParseError(f"item {i + 1} of the ```yaml list is not a concept name: {cap(repr(item), 100)}")
        name = clean_line(cap(name, MAX_NAME_CHARS))
        if name:
            names.append(name)
    return names


class PromptPlan:
    """The selection prompt and what it shows: all concepts, compressed, or a pre-filtered subset;
    `puzzle` and `puzzle_tokens`: the puzzle's text in it and their estimate, for asking again."""

    def __init__(self, messages: list[dict], shown: list, stats: dict, caption: str | None = None,
                 caption_usage: list | None = None):
        self.messages = messages
        self.shown = shown
        self.stats = stats
        self.caption = caption
        self.caption_completions = caption_usage or []
        self.puzzle, self.puzzle_tokens = "", 0


def _messages(memory_text: str, note: str, puzzle: str) -> list[dict]:
    return [{"role": "user", "content": render_prompt("select_ps", memory=memory_text, memory_note=note,
                                                      puzzle=puzzle)}]


def _frame(lib: Library, puzzle_tokens: int) -> int:
    """The estimate of the prompt around the library: the template (kept for the revision) and the puzzle."""
    return lib.tokens(_messages("", "", "")[0]["content"]) + MESSAGE_TOKENS + puzzle_tokens


def plan_prompt(task, lib: Library, settings: SelectionSettings, llm=None, prior: UsePrior | None = None) -> PromptPlan:
    """Build the select_ps prompt within settings.token_budget (see module docstring)."""
    puzzle = puzzle_text(task, settings)
    puzzle_tokens = estimate_tokens(puzzle)
    plan = _plan(task, lib, settings, llm, prior, puzzle, _frame(lib, puzzle_tokens))
    plan.puzzle, plan.puzzle_tokens = puzzle, puzzle_tokens
    return plan


def _plan(task, lib: Library, settings: SelectionSettings, llm, prior: UsePrior | None, puzzle: str,
          frame: int) -> PromptPlan:
    count = counter_for(llm, "select")
    ordered = None if prior is None else prior_order(lib, prior)
    order = None if ordered is None else ordered.scores
    limit = settings.token_budget
    stats: dict[str, Any] = {"memory_size": len(lib), "budget": limit, "tokens": count.name}
    forms = WHOLE_FORMS
    if settings.view == "collapsed":       # the released code's view; past the budget, as arcmemo degrades
        text = _collapsed(lib)
        messages = _messages(text, NOTE_FULL, puzzle)
        tokens = frame + lib.tokens(text) if count.estimate else count.messages(messages)
        if tokens <= limit:
            return PromptPlan(messages, list(lib.concepts), {**stats, "shown": len(lib), "form": "collapsed",
                                                             "view": "collapsed", "prompt_tokens_est": tokens})
        forms = [f for f in WHOLE_FORMS if f[0] == "compressed"]
    for name, form, note in forms:
        around = frame + lib.tokens(note)
        size = lib.size_within((limit if count.estimate else OVERESTIMATE * limit) - around, form, ALL_TYPES)
        if size is None:
            continue
        listing = lib.text(None, form, ALL_TYPES) if ordered is None else ordered.text(lib, form, ALL_TYPES)
        messages = _messages(listing, note, puzzle)
        tokens = around + size if count.estimate else count.messages(messages)
        if tokens <= limit:
            return PromptPlan(messages, list(lib.concepts), {**stats, "shown": len(lib), "form": name,
                                                             "prompt_tokens_est": tokens})

    caption, caption_completions = None, []
    query = budget.describe_grids(task)
    if settings.ps_caption and llm is not None:
        from arcmemo.selection.oe import caption_task

        outcome = caption_task(task, llm, settings)
        caption_completions = outcome.completions
        if outcome.ok:
            caption = outcome.value
            query = caption + "\n" + query
        else:
            stats["caption_error"] = outcome.error
    ranked = lib.rank(query) if order is None else ties_by_prior(lib.rank(query), lib.index.scores(query), order)
    sizes = lib.sizes(ranked, COMPRESSED)

    def note(n: int) -> str:
        return NOTE_PREFILTERED.format(total=len(lib), shown=n)

    def build(n: int) -> list[dict]:
        return _messages(lib.text(ranked[:n], COMPRESSED, prior=order), note(n), puzzle)

    note_at_zero = lib.tokens(note(0))
    n, tokens = largest_fit(len(ranked), lambda n: frame + with_number(note_at_zero, n) + sizes(n), limit,
                            None if count.estimate else lambda n: count.messages(build(n)))
    return PromptPlan(build(n), lib.pick(ranked[:n]), {**stats, "shown": n, "form": "prefiltered",
                                                       "prefilter_query": query, "prompt_tokens_est": tokens},
                      caption=caption, caption_usage=caption_completions)


def select_ps(task, memory, settings: SelectionSettings, llm, prior: UsePrior | None = None) -> Selection:
    """The PS read (module docstring); `prior`: the use prior orders what the select model is shown."""
    lib = library(memory, "ps")
    if not lib.concepts:
        return Selection(mode="ps", stats={"memory_size": 0, "shown": 0})
    plan = plan_prompt(task, lib, settings, llm, prior)
    completions = list(plan.caption_completions)
    if not plan.shown:
        return Selection(mode="ps", fallback=True, caption=plan.caption, stats=plan.stats,
                         usage=sum_usage(completions),
                         error=f"select_ps: the puzzle alone fills the token budget of {settings.token_budget}; "
                               "no concept could be shown")

    outcome = ask(llm, plan.messages, role="select", step="select_ps", parse=parse_names,
                  task_id=task.id, params=settings.select_params, sample=settings.pass_index)
    completions += outcome.completions
    reasoning = _reasoning(outcome)
    if not outcome.ok:
        return Selection(mode="ps", fallback=True, error=outcome.error, reasoning=reasoning,
                         caption=plan.caption, usage=sum_usage(completions), stats=plan.stats)

    matcher = name_matcher(lib, plan.shown)
    match = matcher.match(outcome.value[:MAX_NAMES])    # a longer list is not a selection
    asked_again = None
    if not match.ids and match.unmatched:
        again = ask_with_names(llm, match.unmatched, plan, task, settings, lib)
        completions += again.completions
        reasoning = "\n\n".join(filter(None, (reasoning, _reasoning(again))))   # both answers, kept
        asked_again = {"unmatched": list(match.unmatched), "error": again.error}
        if again.ok:
            retry = matcher.match(again.value[:MAX_NAMES])
            match.ids, match.fuzzy = retry.ids, retry.fuzzy
            match.unmatched += [n for n in retry.unmatched if n not in match.unmatched]
        asked_again["matched"] = len(match.ids)
    chosen = [lib.by_id[i] for i in match.ids]
    added: list = []
    if settings.expand and chosen:
        added = expand_neighbours(lib.concepts, chosen, settings.expand_limit, links=lib.links)
    solver_count = counter_for(llm, "solver")
    final = fit_hint(chosen + added, lib, settings.hint_budget, solver_count)
    kept = {c.id for c in final}
    if settings.hint_form == "released":
        hint = released_form_hint(lib, final, settings, solver_count)
    else:
        hint = lib.text(lib.positions(final))
        if settings.other_names:
            hint = with_other_names(hint, lib, final, settings.hint_budget, solver_count, prior)
    stats = {**plan.stats, "chosen": len(chosen), "near_misses": match.fuzzy,
             "hint_dropped": len(chosen) + len(added) - len(final),
             "names_ignored": max(0, len(outcome.value) - MAX_NAMES),
             "ranked_ids": [c.id for c in chosen + added if c.id in kept]}   # the model's order (run/stages/offer.py)
    if asked_again is not None:
        stats["asked_again"] = asked_again
    return Selection(
        mode="ps", concept_ids=[c.id for c in final], hint=hint,
        reasoning=reasoning, unmatched=match.unmatched, usage=sum_usage(completions),
        caption=plan.caption, expanded_ids=[c.id for c in added], stats=stats,
    )


def name_matcher(lib: Library, shown: Sequence) -> NameMatcher | ExactFirst:
    """A matcher of the names shown: the library's whole one (built once per revision) when all
    of it was shown, else one of the prefiltered few, made from the names' keys the library
    keeps when an answer is not simply names shown (ExactFirst)."""
    keys = lib.column("name keys", lambda c: name_keys(c.name))
    if len(shown) != len(lib):
        names = lib.kept("names", lambda: {c.name: c.id for c in lib.concepts})
        return ExactFirst(names, {c.id for c in shown}, lambda: NameMatcher(
            ((c.id, c.name) for c in shown), keys=[keys.at(i) for i in lib.positions(shown)]))
    return lib.kept("name matcher", lambda: NameMatcher(((c.id, c.name) for c in lib.concepts), keys=keys.all()))


def ask_with_names(llm, unmatched: list[str], plan: PromptPlan, task, settings: SelectionSettings, lib: Library):
    """Ask once more after an answer that named nothing in the library: the same prompt with the
    library as a plain list of the names `plan` showed, as many as fit the token budget (planned
    from the names' kept estimates, then counted by the select model's count)."""
    count = counter_for(llm, "select")
    puzzle, shown = plan.puzzle, plan.shown
    note = NOTE_NAMES.format(unmatched=", ".join(repr(n) for n in unmatched[:10]),
                             verb="is" if len(unmatched) == 1 else "are")
    lines = [f"- {c.name}" for c in shown]
    around = estimate_tokens(_messages("", note, "")[0]["content"]) + MESSAGE_TOKENS + plan.puzzle_tokens
    tokens = _name_line_tokens(lib)
    names = list(accumulate(tokens.at(i) + 1 for i in lib.positions(shown)))     # + its line break

    def build(n: int) -> list[dict]:
        return _messages("\n".join(lines[:n]), note, puzzle)

    n, _ = largest_fit(len(shown), lambda n: around + (names[n - 1] if n else 0), settings.token_budget,
                       None if count.estimate else lambda n: count.messages(build(n)))
    return ask(llm, build(max(n, 1)), role="select", step="select_ps", parse=parse_names, task_id=task.id,
               params=settings.select_params, sample=settings.pass_index)


def _reasoning(outcome) -> str | None:
    parts = [p for p in (outcome.reasoning, outcome.raw) if p]
    return "\n\n".join(parts) or None
