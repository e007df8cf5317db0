"""A failed memory write: recorded in the store (raw model answer kept) and returned as the write's result."""

from __future__ import annotations

from arcmemo.abstraction.records import WriteResult


def failed_write(memory, *, run_id: str | None, task_id: str, step: str, model: str | None, error: str,
                 raw: str | None, usage, message: str | None = None) -> WriteResult:
    """Record a failed write (raw answer kept) and return it as the write's failed result."""
    memory.record_write_failure(run_id=run_id, task_id=task_id, step=step, model=model, error=error, raw=raw)
    return WriteResult(task_id, failed=True, error=message or error, usage=usage, step=step)


def previous_failures(memory, task_id: str, steps: tuple[str, ...]) -> int:
    """How many failed writes of these steps the task already has.

    Used as the sample index of the next attempt: the call cache would otherwise serve
    the same malformed answer again on every re-run, while a successful answer stays
    cached (a resumed run costs nothing).
    """
    return memory.count_write_failures(task_id, steps)
