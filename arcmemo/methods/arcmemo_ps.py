"""ArcMemo-PS: program-synthesis concepts, chosen for a puzzle by the select model's reasoning."""

from __future__ import annotations

from arcmemo.methods.arcmemo_write import write_arcmemo
from arcmemo.methods.contract import MethodBase
from arcmemo.selection.ps import select_ps


class ArcMemoPS(MethodBase):
    name = "ps"
    description = "ArcMemo-PS: typed concepts chosen by reasoning over the puzzle; written from passing programs"
    formats = ("ps",)
    read_roles = ("select",)
    write_roles = ("aux",)

    def read(self, task, memory, settings, llm):
        return select_ps(task, memory, settings, llm)

    def write(self, experiences, memory, llm, ctx):
        return write_arcmemo(experiences, memory, llm, ctx, ctx.memory_format or "ps")
