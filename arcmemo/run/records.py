"""What a run records about itself beyond its event log: what memory selection offered each
task (a line of the run directory's selections.jsonl).

A selection record keeps the names of the concepts offered as they were then, so
`arcmemo runs selections` reads the run directory alone, also after the memory changed.
"""

from __future__ import annotations

from typing import Any

from arcmemo.selection import Selection


def selection_record(task_id: str, pass_index: int, selection: Selection, names: dict[int, str]) -> dict[str, Any]:
    """One line of `selections.jsonl`: what selection offered a task in a pass, and why."""
    return {
        "task_id": task_id, "pass_index": pass_index, "mode": selection.mode,
        "concept_ids": list(selection.concept_ids),
        "concepts": [names.get(i, f"#{i}") for i in selection.concept_ids],
        "unmatched": list(selection.unmatched), "fallback": selection.fallback, "error": selection.error,
        "reasoning": selection.reasoning, "caption": selection.caption, "hint": selection.hint,
        "asked_again": selection.stats.get("asked_again"), "usage": selection.usage_dict(),
    }


def concept_names(memory) -> dict[int, str]:
    """id -> name of every concept in memory (what selection records name concepts by)."""
    return {c.id: c.name for c in memory.list()}
