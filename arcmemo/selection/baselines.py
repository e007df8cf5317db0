"""The comparison baselines without a model call: `none` (no hint) and `all` (whole memory)."""

from __future__ import annotations

from arcmemo.memory.render import render_oe, render_ps
from arcmemo.selection.types import Selection, SelectionSettings


def select_none(task, memory, settings: SelectionSettings, llm=None) -> Selection:
    return Selection(mode="none")


def select_all(task, memory, settings: SelectionSettings, llm=None) -> Selection:
    """The whole memory rendered: PS concepts with every custom type, or OE lessons — the
    format settings.memory_format names, else PS when there is any. No budget applies: this
    is the selection-ablated baseline."""
    fmt = settings.memory_format
    concepts = memory.list(format="ps") if fmt in (None, "ps") else []
    if concepts or fmt == "ps":
        hint = render_ps(concepts, memory.custom_types())
        fmt = "ps"
    else:
        concepts = memory.list(format="oe")
        hint = render_oe(concepts) if concepts else ""
        fmt = "oe"
    return Selection(mode="all", concept_ids=[c.id for c in concepts], hint=hint,
                     stats={"memory_size": len(concepts), "shown": len(concepts), "format": fmt})
