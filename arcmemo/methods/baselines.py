"""The comparison baselines of ArcMemo's selection: `none` (no memory shown, nothing learned) and
`all` (the whole memory shown, no selection; it writes as ArcMemo does, in the run's memory
format, so a continual run ablates selection alone)."""

from __future__ import annotations

from arcmemo.methods.arcmemo.write import FORMATS, write_arcmemo
from arcmemo.methods.contract import MethodBase
from arcmemo.selection.baselines import select_all, select_none


class NoMemory(MethodBase):
    name = "none"
    description = "no memory shown and nothing learned (the baseline); with --probe-helpers, memory's helpers only"
    reads_memory = False
    writes_memory = False

    def read(self, task, memory, settings, llm):
        return select_none(task, memory, settings, llm)


class WholeMemory(MethodBase):
    name = "all"
    description = "ps's concepts shown whole, no selection (ArcMemo's selection ablated: it reads and writes ps's items)"
    formats = FORMATS
    write_roles = ("aux",)
    shares_read = True
    offers_helpers = True
    probes_by_default = True

    def owner(self, memory_format=None):
        """ps's concepts (or, with --memory-format oe, oe's lessons): the items whose selection it ablates."""
        return memory_format or "ps"

    def read(self, task, memory, settings, llm):
        return select_all(task, memory, settings, llm)

    def write(self, experiences, memory, llm, ctx):
        return write_arcmemo(experiences, memory, llm, ctx, ctx.memory_format or "ps")
