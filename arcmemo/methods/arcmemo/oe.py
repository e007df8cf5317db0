"""ArcMemo-OE: open-ended situation/suggestion lessons, the top-k picked after captioning the puzzle."""

from __future__ import annotations

from arcmemo.methods.arcmemo.failure_lessons import lessons
from arcmemo.methods.arcmemo.options import ArcMemoMethod, ArcMemoOptions
from arcmemo.methods.arcmemo.write import write_arcmemo
from arcmemo.selection.oe import select_oe
from arcmemo.selection.prior import use_prior


class ArcMemoOE(ArcMemoMethod):
    name = "oe"
    description = "ArcMemo-OE: situation/suggestion lessons, top-k picked for a captioned puzzle"
    formats = ("oe",)
    read_roles = ("aux", "select")
    write_roles = ("aux",)

    def read(self, task, memory, settings, llm):
        options = ArcMemoOptions.of(settings.options)
        shown = lessons(memory, failures=None if options.failure_lessons == "include" else False)
        return select_oe(task, memory, settings, llm, lessons=shown,
                         prior=use_prior(memory) if options.use_prior else None)

    def write(self, experiences, memory, llm, ctx):
        return write_arcmemo(experiences, memory, llm, ctx, ctx.memory_format or "oe")
