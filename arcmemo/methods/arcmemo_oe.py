"""ArcMemo-OE: open-ended situation/suggestion lessons, the top-k picked after captioning the puzzle."""

from __future__ import annotations

from arcmemo.methods.arcmemo_write import write_arcmemo
from arcmemo.methods.contract import MethodBase
from arcmemo.selection.oe import select_oe


class ArcMemoOE(MethodBase):
    name = "oe"
    description = "ArcMemo-OE: situation/suggestion lessons, top-k picked for a captioned puzzle"
    formats = ("oe",)
    read_roles = ("aux", "select")
    write_roles = ("aux",)

    def read(self, task, memory, settings, llm):
        return select_oe(task, memory, settings, llm)

    def write(self, experiences, memory, llm, ctx):
        return write_arcmemo(experiences, memory, llm, ctx, ctx.memory_format or "oe")
