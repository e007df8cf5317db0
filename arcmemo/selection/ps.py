"""PS selection: a reasoning model explores the concept library for one puzzle.

The select model sees the rendered library and the puzzle, starts from structures and
grid-manipulation routines whose relevance cues it can see in the grids, then follows
typed parameters to the routines that supply them, and answers a YAML list of names.

A library too large for `token_budget` is first shown with its rarely used concepts
(used in fewer than COLLAPSE_BELOW tasks) collapsed to their names, then compressed
(names + typing); past that, only the concepts that best match a short description of the puzzle (derived from
the grids, or an aux caption) are shown.

The hint handed to the solver is held to `hint_budget`: a weak select model may pick
dozens of concepts, and their full text would crowd the puzzle out of a small model's
context. Past the budget, the concepts the model listed last are left out (neighbours
added by --expand go first); `stats["hint_dropped"]` counts them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from arcmemo.core.answers import MAX_NAME_CHARS, MAX_NAMES
from arcmemo.core.gridtext import format_task
from arcmemo.core.parsing import ParseError
from arcmemo.core.text import cap, clean_line
from arcmemo.memory.render import render_ps
from arcmemo.prompts import render_prompt
from arcmemo.selection import budget
from arcmemo.selection.conversation import ask, sum_usage, yaml_list_answer
from arcmemo.selection.expand import expand_neighbours
from arcmemo.selection.matching import match_names
from arcmemo.selection.types import Selection, SelectionSettings

NOTE_FULL = ""
COLLAPSE_BELOW = 2
NOTE_COLLAPSED = (
    "The library is long: concepts used in only one earlier puzzle are listed by name alone.\n"
)
NOTE_COMPRESSED = (
    "The library is long, so it is shown in short form: names, parameters and typing only.\n"
)
NOTE_PREFILTERED = (
    "The library holds {total} concepts, too many to show. Below are the {shown} that best match "
    "a quick description of this puzzle, in short form (names, parameters and typing only). "
    "Select only from these.\n"
)


def _typing_text(data: dict) -> str:
    parts = [data.get("output_typing") or "", data.get("routine_subtype") or ""]
    parts += [p.get("typing") or "" for p in data.get("parameters") or []]
    return "\n".join(parts)


def needed_types(concepts: Sequence, custom_types: dict[str, str]) -> dict[str, str]:
    """The custom types the concepts' typing fields refer to, closed over type definitions."""
    if not custom_types:
        return {}
    patterns = {
        name: re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])", re.IGNORECASE)
        for name in custom_types
    }
    text = "\n".join(_typing_text(c.to_data()) for c in concepts)
    wanted: set[str] = set()
    frontier = text
    while frontier:
        new = {n for n, p in patterns.items() if n not in wanted and p.search(frontier)}
        wanted |= new
        frontier = "\n".join(custom_types[n] for n in new)
    return {n: custom_types[n] for n in custom_types if n in wanted}


def render_hint(concepts: Sequence, custom_types: dict[str, str]) -> str:
    """The solver's hint for a chosen PS subset: exactly render_ps of it with the types it needs."""
    if not concepts:
        return ""
    return render_ps(list(concepts), needed_types(concepts, custom_types))


def fit_hint(ranked: Sequence, concepts: Sequence, custom_types: dict[str, str], limit: int) -> list:
    """The longest prefix of `ranked` (most wanted first) whose hint fits in `limit`
    estimated tokens, in memory order."""
    def fits(subset: Sequence) -> bool:
        return budget.estimate_tokens(render_hint(subset, custom_types)) <= limit

    return budget.keep_order(ranked[:budget.fit_prefix(ranked, fits)], concepts)


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
    """The selection prompt and what it shows: all concepts, compressed, or a pre-filtered subset."""

    def __init__(self, messages: list[dict], shown: list, stats: dict, caption: str | None = None,
                 caption_usage: list | None = None):
        self.messages = messages
        self.shown = shown
        self.stats = stats
        self.caption = caption
        self.caption_completions = caption_usage or []


def _messages(memory_text: str, note: str, puzzle: str) -> list[dict]:
    return [{"role": "user", "content": render_prompt("select_ps", memory=memory_text, memory_note=note,
                                                      puzzle=puzzle)}]


def plan_prompt(task, concepts: Sequence, custom_types: dict[str, str], settings: SelectionSettings,
                llm=None) -> PromptPlan:
    """Build the select_ps prompt within settings.token_budget (see module docstring)."""
    puzzle = format_task(task)
    limit = settings.token_budget
    stats: dict[str, Any] = {"memory_size": len(concepts), "budget": limit}

    messages = _messages(render_ps(list(concepts), custom_types), NOTE_FULL, puzzle)
    tokens = budget.messages_tokens(messages)
    if tokens <= limit:
        return PromptPlan(messages, list(concepts), {**stats, "shown": len(concepts), "form": "full",
                                                     "prompt_tokens_est": tokens})
    stats["full_tokens_est"] = tokens
    messages = _messages(render_ps(list(concepts), custom_types, collapse_below=COLLAPSE_BELOW), NOTE_COLLAPSED,
                         puzzle)
    tokens = budget.messages_tokens(messages)
    if tokens <= limit:
        return PromptPlan(messages, list(concepts), {**stats, "shown": len(concepts), "form": "collapsed",
                                                     "prompt_tokens_est": tokens})
    stats["collapsed_tokens_est"] = tokens
    messages = _messages(render_ps(list(concepts), custom_types, compressed=True), NOTE_COMPRESSED, puzzle)
    tokens = budget.messages_tokens(messages)
    if tokens <= limit:
        return PromptPlan(messages, list(concepts), {**stats, "shown": len(concepts), "form": "compressed",
                                                     "prompt_tokens_est": tokens})
    stats["compressed_tokens_est"] = tokens

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
    ranked = budget.rank_lexical(query, list(concepts))

    def build(subset: Sequence) -> list[dict]:
        ordered = budget.keep_order(subset, concepts)
        note = NOTE_PREFILTERED.format(total=len(concepts), shown=len(ordered))
        return _messages(render_ps(ordered, needed_types(ordered, custom_types), compressed=True), note, puzzle)

    n = budget.fit_prefix(ranked, lambda subset: budget.messages_tokens(build(subset)) <= limit)
    shown = budget.keep_order(ranked[:n], concepts)
    messages = build(shown)
    return PromptPlan(messages, shown, {**stats, "shown": len(shown), "form": "prefiltered",
                                        "prefilter_query": query,
                                        "prompt_tokens_est": budget.messages_tokens(messages)},
                      caption=caption, caption_usage=caption_completions)


def select_ps(task, memory, settings: SelectionSettings, llm) -> Selection:
    concepts = memory.list(format="ps")
    if not concepts:
        return Selection(mode="ps", stats={"memory_size": 0, "shown": 0})
    custom_types = memory.custom_types()
    plan = plan_prompt(task, concepts, custom_types, settings, llm)
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

    match = match_names(outcome.value[:MAX_NAMES], plan.shown)    # a longer list is not a selection
    by_id = {c.id: c for c in concepts}
    chosen = [by_id[i] for i in match.ids]
    added: list = []
    if settings.expand and chosen:
        added = expand_neighbours(concepts, chosen, settings.expand_limit)
    final = fit_hint(chosen + added, concepts, custom_types, settings.hint_budget)
    kept = {c.id for c in final}
    stats = {**plan.stats, "chosen": len(chosen), "near_misses": match.fuzzy,
             "hint_dropped": len(chosen) + len(added) - len(final),
             "names_ignored": max(0, len(outcome.value) - MAX_NAMES),
             "ranked_ids": [c.id for c in chosen + added if c.id in kept]}   # the model's order (run/offer.py)
    return Selection(
        mode="ps", concept_ids=[c.id for c in final], hint=render_hint(final, custom_types),
        reasoning=reasoning, unmatched=match.unmatched, usage=sum_usage(completions),
        caption=plan.caption, expanded_ids=[c.id for c in added], stats=stats,
    )


def _reasoning(outcome) -> str | None:
    parts = [p for p in (outcome.reasoning, outcome.raw) if p]
    return "\n\n".join(parts) or None
