"""`select`: MEMREAD by whichever memory method a run (or `arcmemo select`) names."""

from __future__ import annotations

import traceback
from typing import Any

from arcmemo.core.answers import INTERRUPTS, describe
from arcmemo.methods.discovery import load_method
from arcmemo.selection.types import Selection, SelectionSettings


def select(task, memory, settings: SelectionSettings | None = None, llm: Any = None) -> Selection:
    """What the solver sees for `task`: the read step of the method `settings.mode`. A pure step:
    it reads the memory and asks the model, and writes nothing (the run layer records the
    Selection with its run).

    An unknown method, or one that does not load, raises MethodError. Model problems (a failed
    call, unreadable answers after one retry) never raise: the task gets no hint and the
    Selection says fallback=True with the error. A read that raises (a bug in the method) is
    the same for the task, and its `stats["raised"]` keeps the error and the traceback, so the
    run counts it as a fault, not as a model's bad answer. Only interrupts propagate.
    """
    settings = settings or SelectionSettings()
    method = load_method(settings.mode)
    if getattr(method, "read_roles", ()) and llm is None:
        raise ValueError(f"selection mode {settings.mode!r} needs a model client (llm), got None")
    try:
        selection = method.read(task, memory, settings, llm)
        if not isinstance(selection, Selection):
            raise TypeError(f"its read returned {type(selection).__name__}, not a Selection")
    except INTERRUPTS:
        raise
    except Exception as exc:
        error = f"select_{settings.mode}: {describe(exc)}"
        selection = Selection(mode=settings.mode, fallback=True, error=error,
                              stats={"raised": {"error": error, "traceback": traceback.format_exc(limit=20)}})
    if selection.fallback:
        selection.concept_ids, selection.hint = [], ""
    return selection


__all__ = ["select"]
