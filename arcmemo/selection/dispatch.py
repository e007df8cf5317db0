"""`select`: one entry point for every memory-read mode."""

from __future__ import annotations

from arcmemo.core.answers import INTERRUPTS, describe
from arcmemo.selection.baselines import select_all, select_none
from arcmemo.selection.cheatsheet import select_cheatsheet
from arcmemo.selection.oe import select_oe
from arcmemo.selection.ps import select_ps
from arcmemo.selection.record import record_selection
from arcmemo.selection.types import Selection, SelectionSettings

HANDLERS = {
    "none": select_none,
    "all": select_all,
    "cheatsheet": select_cheatsheet,
    "ps": select_ps,
    "oe": select_oe,
}
NEEDS_MODEL = ("ps", "oe")


def select(task, memory, settings: SelectionSettings | None = None, llm=None) -> Selection:
    """Choose what the solver sees for `task` and (settings.record) store it as a SelectionRecord.

    Model problems (a failed call, unreadable answers after one retry, or anything else a
    model answer makes go wrong) never raise: the task gets no hint and the Selection says
    fallback=True with the error. Only interrupts propagate.
    """
    settings = settings or SelectionSettings()
    if settings.mode in NEEDS_MODEL and llm is None:
        raise ValueError(f"selection mode {settings.mode!r} needs a model client (llm), got None")
    try:
        selection = HANDLERS[settings.mode](task, memory, settings, llm)
    except INTERRUPTS:
        raise
    except Exception as exc:
        selection = Selection(mode=settings.mode, fallback=True, error=f"select_{settings.mode}: {describe(exc)}")
    if selection.fallback:
        selection.concept_ids, selection.hint = [], ""
    if settings.record:
        record_selection(memory, task.id, settings, selection)
    return selection
