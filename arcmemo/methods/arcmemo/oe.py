"""ArcMemo-OE: open-ended situation/suggestion lessons, the top-k picked after captioning the puzzle."""

from __future__ import annotations

import dataclasses

from arcmemo.methods.arcmemo.failure_lessons import lessons
from arcmemo.methods.arcmemo.options import ArcMemoMethod, ArcMemoOptions
from arcmemo.methods.arcmemo.write import write_arcmemo
from arcmemo.methods.contract import ReadFailed
from arcmemo.selection.oe import caption_task, select_oe
from arcmemo.selection.prior import use_prior


class ArcMemoOE(ArcMemoMethod):
    name = "oe"
    description = "ArcMemo-OE: situation/suggestion lessons, top-k picked for a captioned puzzle"
    formats = ("oe",)
    read_roles = ("aux", "select")
    write_roles = ("aux",)
    protocol_choices = ("oe_caption",)
    departures = ("a model that reads no images captions the puzzle from its grids as text (the paper's "
                  "captioner saw pictures)",)

    def read(self, task, memory, settings, llm):
        options = ArcMemoOptions.of(settings.options)
        shown = lessons(memory, failures=None if options.failure_lessons == "include" else False)
        return select_oe(task, memory, settings, llm, lessons=shown,
                         prior=use_prior(memory) if options.use_prior else None)

    def prepare_read(self, task, memory, settings, llm):
        """The protocol's oe_caption per-puzzle: one caption of the whole puzzle for all its threads."""
        if settings.caption is not None or settings.caption_image != "puzzle":
            return settings
        caption = caption_task(task, llm, settings)
        if not caption.ok:
            raise ReadFailed(caption.error or "the caption failed")
        return dataclasses.replace(settings, caption=caption.value)

    def write(self, experiences, memory, llm, ctx):
        return write_arcmemo(experiences, memory, llm, ctx, ctx.memory_format or "oe")
