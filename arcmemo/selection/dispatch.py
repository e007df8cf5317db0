"""`select`: one entry point for every memory-read mode."""

from __future__ import annotations

from arcmemo.selection.baselines import select_all, select_none
from arcmemo.selection.cheatsheet import select_cheatsheet
from arcmemo.selection.oe import select_oe
from arcmemo.selection.ps import select_ps
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
    """Choose what the solver sees for `task`. A pure step: it reads the memory and asks the
    model, and writes nothing (the run layer records the Selection with its run).

    Model problems (LLMError, unreadable answers after one retry) never raise: the task
    gets no hint and the Selection says fallback=True with the error.
    """
    settings = settings or SelectionSettings()
    if settings.mode in NEEDS_MODEL and llm is None:
        raise ValueError(f"selection mode {settings.mode!r} needs a model client (llm), got None")
    selection = HANDLERS[settings.mode](task, memory, settings, llm)
    if selection.fallback:
        selection.concept_ids, selection.hint = [], ""
    return selection
