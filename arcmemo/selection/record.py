"""Storing a selection with its run and task, so one can see later why a concept was offered."""

from __future__ import annotations

from arcmemo.core.text import utf8_safe
from arcmemo.selection.types import Selection, SelectionSettings


def record_selection(memory, task_id: str, settings: SelectionSettings, selection: Selection) -> int:
    """Insert a SelectionRecord through memory.session(); returns its id. Text that came from a
    model or the memory is stored with lone surrogates replaced (they cannot be encoded)."""
    from arcmemo.memory.models import SelectionRecord

    def text(value: str | None) -> str | None:
        return None if value is None else utf8_safe(value)

    record = SelectionRecord(
        run_id=settings.run_id, task_id=task_id, pass_index=settings.pass_index, mode=selection.mode,
        concept_ids=list(selection.concept_ids), hint=text(selection.hint), reasoning=text(selection.reasoning),
        unmatched=[utf8_safe(str(name)) for name in selection.unmatched], fallback=selection.fallback,
        error=text(selection.error), usage=selection.usage_dict(),
    )
    with memory.session() as session:
        session.add(record)
        session.commit()
        return record.id


def selections_of(memory, run_id: str, task_id: str | None = None) -> list:
    """The stored selections of a run (optionally one task), in the order they were made."""
    from sqlmodel import select

    from arcmemo.memory.models import SelectionRecord

    query = select(SelectionRecord).where(SelectionRecord.run_id == run_id)
    if task_id is not None:
        query = query.where(SelectionRecord.task_id == task_id)
    with memory.session() as session:
        return list(session.exec(query.order_by(SelectionRecord.id)).all())
