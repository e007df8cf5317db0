"""What a run records about itself beyond its event log: the selection records (in its run
directory), and, for runs that write memory, its entry in the memory's own run ledger.

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


def record_run(memory, run_id: str, *, kind: str, **fields: Any) -> None:
    """The memory's own record of a run that writes it (seeding, `solve --continual`), so the
    revisions' run ids lead somewhere. Created or updated with `fields`."""
    store_method = getattr(memory, "record_run", None)
    if store_method is not None:
        store_method(run_id, kind=kind, **fields)
        return
    from arcmemo.memory.models import Run  # until the store's record_run lands (wave/store)

    with memory._write() as session:           # the store's write transaction: waits for a busy database
        run = session.get(Run, run_id) or Run(id=run_id, kind=kind)
        for name, value in fields.items():
            setattr(run, name, value)
        session.add(run)
