"""The comparison baselines of ArcMemo's selection: `none` (no memory shown) and `all` (the whole
memory shown, no selection). Both write as ArcMemo does, in the run's memory format, so a
continual run ablates selection alone."""

from __future__ import annotations

from arcmemo.methods.arcmemo.write import FORMATS, write_arcmemo
from arcmemo.methods.contract import MethodBase
from arcmemo.selection.baselines import select_all, select_none


class NoMemory(MethodBase):
    name = "none"
    description = "no memory shown (the baseline); a continual run still writes ArcMemo's concepts"
    formats = FORMATS
    write_roles = ("aux",)
    reads_memory = False

    def read(self, task, memory, settings, llm):
        return select_none(task, memory, settings, llm)

    def write(self, experiences, memory, llm, ctx):
        return write_arcmemo(experiences, memory, llm, ctx, ctx.memory_format or "ps")


class WholeMemory(MethodBase):
    name = "all"
    description = "the whole memory shown, no selection (ArcMemo's selection ablated)"
    formats = FORMATS
    write_roles = ("aux",)

    def read(self, task, memory, settings, llm):
        return select_all(task, memory, settings, llm)

    def write(self, experiences, memory, llm, ctx):
        return write_arcmemo(experiences, memory, llm, ctx, ctx.memory_format or "ps")
