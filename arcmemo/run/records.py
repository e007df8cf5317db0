"""What a run records about itself beyond its event log: what memory selection offered each
task (a line of the run directory's selections.jsonl).

A selection record keeps the names of the concepts offered as they were then, so
`arcmemo runs selections` reads the run directory alone, also after the memory changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arcmemo.core.text import utf8_safe
from arcmemo.run.prepared import prepared
from arcmemo.selection import Selection


def selection_record(task_id: str, pass_index: int, selection: Selection, names: Mapping[int, str], *,
                     thread: int = 0, retry: int = 0) -> dict[str, Any]:
    """One line of `selections.jsonl`: what selection offered a task in a pass (in one thread,
    before its first answer or, re-selected, before retry `retry`), and why, and how the
    memory was shown (`level`: full, collapsed, compressed, prefiltered). Text from a model is
    kept with lone surrogates replaced (they cannot be written as UTF-8)."""
    def text(value: str | None) -> str | None:
        return None if value is None else utf8_safe(value)

    return {
        "task_id": task_id, "pass_index": pass_index, "thread": thread, "retry": retry, "mode": selection.mode,
        "level": selection.stats.get("form"),
        "concept_ids": list(selection.concept_ids),
        "concepts": [names.get(i, f"#{i}") for i in selection.concept_ids],
        "unmatched": [utf8_safe(str(name)) for name in selection.unmatched], "fallback": selection.fallback,
        "error": text(selection.error), "reasoning": text(selection.reasoning), "caption": text(selection.caption),
        "hint": text(selection.hint), "asked_again": selection.stats.get("asked_again"),
        "usage": selection.usage_dict(),
    }


def concept_names(memory) -> Mapping[int, str]:
    """id -> name of every concept in memory (what selection records name concepts by), as
    prepared for its current revision (prepared.py: read once per revision, not per record)."""
    return prepared(memory).names
