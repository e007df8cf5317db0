"""ArcMemo-PS: program-synthesis concepts, chosen for a puzzle by the select model's reasoning."""

from __future__ import annotations

from arcmemo.methods.arcmemo.failure_lessons import with_failure_lessons
from arcmemo.methods.arcmemo.options import ArcMemoMethod, ArcMemoOptions
from arcmemo.methods.arcmemo.write import write_arcmemo
from arcmemo.selection.prior import use_prior
from arcmemo.selection.ps import select_ps


class ArcMemoPS(ArcMemoMethod):
    name = "ps"
    description = "ArcMemo-PS: typed concepts chosen by reasoning over the puzzle; written from passing programs"
    formats = ("ps",)
    read_roles = ("select",)
    write_roles = ("aux",)
    offers_helpers = True
    probes_by_default = True
    protocol_choices = ("selector_view", "hint_form")
    departures = ("memory's verified helpers and the probe that tries them are arcmemo's, not the paper's "
                  "(--no-helpers / --no-probe-helpers turn them off)",
                  "a memory larger than the select prompt's budget is shown compressed or prefiltered by words "
                  "(the paper's fitted whole)")

    def read(self, task, memory, settings, llm):
        options = ArcMemoOptions.of(settings.options)
        prior = use_prior(memory) if options.use_prior else None
        selection = select_ps(task, memory, settings, llm, prior=prior)
        if options.failure_lessons == "include":
            selection = with_failure_lessons(selection, task, memory, settings, llm, prior)
        return selection

    def write(self, experiences, memory, llm, ctx):
        return write_arcmemo(experiences, memory, llm, ctx, ctx.memory_format or "ps")
