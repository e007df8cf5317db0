"""The comparison baselines without a model call: `none` (no hint) and `all` (whole memory)."""

from __future__ import annotations

from arcmemo.memory.views.library import ALL_TYPES, FULL, library
from arcmemo.selection.types import Selection, SelectionSettings


def select_none(task, memory, settings: SelectionSettings, llm=None) -> Selection:
    return Selection(mode="none")


def select_all(task, memory, settings: SelectionSettings, llm=None) -> Selection:
    """The whole memory rendered: PS concepts with every custom type, or OE lessons — the
    format settings.memory_format names, else PS when there is any. No budget applies: this
    is the selection-ablated baseline."""
    fmt = settings.memory_format
    lib = library(memory, "ps") if fmt in (None, "ps") else None
    if (lib is not None and lib.concepts) or fmt == "ps":
        hint, fmt = lib.text(None, FULL, ALL_TYPES), "ps"
    else:
        lib = library(memory, "oe")
        hint, fmt = lib.lessons_text(), "oe"
    concepts = lib.concepts
    return Selection(mode="all", concept_ids=[c.id for c in concepts], hint=hint,
                     stats={"memory_size": len(concepts), "shown": len(concepts), "format": fmt})
