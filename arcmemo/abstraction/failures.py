"""Recording a failed memory write (the raw model answer kept) in the WriteFailure table."""

from __future__ import annotations

from arcmemo.abstraction.records import WriteResult
from arcmemo.core.answers import MAX_ANSWER_CHARS, MAX_LINE_CHARS, quoted
from arcmemo.memory.models import WriteFailure

MAX_RAW_CHARS = 2 * MAX_ANSWER_CHARS + 100     # a step's answers: the first and the retry's


def record_failure(memory, *, run_id: str | None, task_id: str, step: str, model: str | None,
                   error: str, raw: str | None) -> None:
    """One WriteFailure row, committed on its own (outside any concept transaction). The error
    (which may quote the model or the memory) and the raw answer are stored cleaned and capped."""
    with memory.session() as session:
        session.add(WriteFailure(run_id=run_id, task_id=task_id, step=step, model=model,
                                 error=quoted(error, MAX_LINE_CHARS),
                                 raw=None if raw is None else quoted(raw, MAX_RAW_CHARS)))
        session.commit()


def failed_write(memory, *, run_id: str | None, task_id: str, step: str, model: str | None, error: str,
                 raw: str | None, usage, message: str | None = None) -> WriteResult:
    """Record a failed write (raw answer kept) and return it as the write's failed result."""
    record_failure(memory, run_id=run_id, task_id=task_id, step=step, model=model, error=error, raw=raw)
    return WriteResult(task_id, failed=True, error=message or error, usage=usage, step=step)


def previous_failures(memory, task_id: str, steps: tuple[str, ...]) -> int:
    """How many failed writes of these steps the task already has.

    Used as the sample index of the next attempt: the call cache would otherwise serve
    the same malformed answer again on every re-run, while a successful answer stays
    cached (a resumed run costs nothing).
    """
    from sqlalchemy import func
    from sqlmodel import col, select

    with memory.session() as session:
        query = select(func.count()).select_from(WriteFailure).where(
            WriteFailure.task_id == task_id, col(WriteFailure.step).in_(steps))
        return int(session.exec(query).one())
