"""Recording a failed memory write (the raw model answer kept) in the WriteFailure table."""

from __future__ import annotations

from arcmemo.memory.models import WriteFailure


def record_failure(memory, *, run_id: str | None, task_id: str, step: str, model: str | None,
                   error: str, raw: str | None) -> None:
    """One WriteFailure row, committed on its own (outside any concept transaction)."""
    with memory.session() as session:
        session.add(WriteFailure(run_id=run_id, task_id=task_id, step=step, model=model,
                                 error=error, raw=raw))
        session.commit()
