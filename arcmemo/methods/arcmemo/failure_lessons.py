"""Lessons from failures in memory: which lessons they are, what ArcMemo's reads show of them, and
what a run wrote and offered of them (its summary, `runs compare`).

A lesson written from a failed task (failure_write.py) is an OE lesson with meta
`{"from": "failure"}`. With `failure_lessons: include` (the default) an OE read numbers them
with the other lessons for the select model; a PS read, whose memory has no lessons, adds
the few that best match the puzzle's description (words of its grids, no model call) after
the chosen concepts, as many as the rest of the hint budget holds. With `exclude` neither
shows them: the ablation that keeps the write and drops the read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from arcmemo.core.estimate import estimate_tokens
from arcmemo.llm.counting import counter_for
from arcmemo.memory.views.library import Library, library
from arcmemo.memory.views.render import render_oe
from arcmemo.selection.budget import describe_grids
from arcmemo.selection.prior import UsePrior, ties_by_prior
from arcmemo.selection.types import Selection, SelectionSettings

FROM_FAILURE = {"from": "failure"}
IN_PS_HINT = 2              # at most this many failure lessons join a PS hint
NOTE_PS = "\n\nLessons from earlier puzzles that were not solved (traps to avoid):\n"


def is_failure_lesson(concept) -> bool:
    return concept.format == "oe" and (concept.meta or {}).get("from") == FROM_FAILURE["from"]


def lessons(memory, *, failures: bool | None = None) -> Library:
    """The OE lessons a read shows: all (None), only those from failures (True) or none of them
    (False); prepared once per memory revision, as library() is."""
    whole = library(memory, "oe")
    if failures is None:
        return whole
    return whole.kept(("failure lessons", failures), lambda: Library(
        [c for c in whole.concepts if is_failure_lesson(c) == failures], revision=whole.revision, previous=whole))


def with_failure_lessons(selection: Selection, task, memory, settings: SelectionSettings, llm: Any = None,
                         prior: UsePrior | None = None) -> Selection:
    """A PS selection's hint with the failure lessons that best match the puzzle after its concepts
    (module docstring); the selection as it was when it fell back or there are none to add."""
    found = lessons(memory, failures=True)
    if selection.fallback or not found.concepts:
        return selection
    query = "\n".join(filter(None, (describe_grids(task), settings.retry_feedback)))
    ranked = found.rank(query)
    if prior is not None:
        ranked = ties_by_prior(ranked, found.index.scores(query), prior.of(found.concepts))
    count = counter_for(llm, "solver")
    used = estimate_tokens(selection.hint) if count.estimate else count(selection.hint)
    chosen: list = []
    for position in ranked[:IN_PS_HINT]:
        text = NOTE_PS.lstrip("\n") + render_oe([*chosen, found.concepts[position]])
        if used + (estimate_tokens(text) if count.estimate else count(text)) > settings.hint_budget:
            break
        chosen.append(found.concepts[position])
    if not chosen:
        return selection
    hint = (selection.hint + NOTE_PS if selection.hint else NOTE_PS.lstrip("\n")) + render_oe(chosen)
    return dataclasses.replace(selection, hint=hint, concept_ids=[*selection.concept_ids, *(c.id for c in chosen)],
                               stats={**selection.stats, "failure_lessons": len(chosen)})


def failure_lesson_counts(memory, write_events: Iterable[Mapping[str, Any]], outcomes: Iterable[Any],
                          options: Mapping[str, Any]) -> dict[str, Any]:
    """A run's `failure_lessons`: {written: lessons its writes added from failures, offered: how
    often its tasks were offered one}; nothing for a run that neither learned from failures nor
    offered a failure lesson."""
    failures = {c.id: c.name for c in memory.list("oe") if is_failure_lesson(c)}
    names = set(failures.values())
    written = len({name for e in write_events for name in e.get("added", []) if name in names})
    offered = sum(1 for o in outcomes for row in o.concept_use if row.get("offered") and row["id"] in failures)
    if not (options.get("learn_from_failures") or written or offered):
        return {}
    return {"failure_lessons": {"written": written, "offered": offered}}


__all__ = ["FROM_FAILURE", "IN_PS_HINT", "failure_lesson_counts", "is_failure_lesson", "lessons",
           "with_failure_lessons"]
