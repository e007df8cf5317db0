"""What a solve would show a task's first thread, without solving it (`arcmemo select`): the same
read and probe stages, with the same settings a solve of the same flags resolves, recorded
into the task's own records (which `select --record` commits to a run directory)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arcmemo.methods.discovery import load_method
from arcmemo.run.config import RunConfig
from arcmemo.run.progress.reporter import Reporter, TaskProgress
from arcmemo.run.records.taskrecords import TaskRecords
from arcmemo.run.stages.context import Notices, TaskContext
from arcmemo.run.stages.metered import MeteredLLM
from arcmemo.run.stages.offer import helpers_for
from arcmemo.run.stages.prepared import prepared
from arcmemo.run.stages.probe import Probed, probe_task
from arcmemo.run.stages.read import read
from arcmemo.selection import Selection

if TYPE_CHECKING:
    from arcmemo.core.tasks import Task
    from arcmemo.memory.store.memory import Memory
    from arcmemo.sandbox import Sandbox
    from arcmemo.solverkit import MemoryHelpers


@dataclass
class Preview:
    """Thread 1's read, memory's probe and the helpers the solver would be offered; `records` holds
    the selection record a solve would write."""

    selection: Selection
    probed: Probed
    helpers: MemoryHelpers | None
    records: TaskRecords


def preview(config: RunConfig, task: Task, memory: Memory, llm: Any, sandbox: Sandbox, *,
            run_id: str = "select", progress: Reporter | None = None) -> Preview:
    """The read and probe stages of `task` in pass 1, as a solve with `config` runs them."""
    records = TaskRecords(run_id)
    ctx = TaskContext(task=task, pass_index=1, config=config, method=load_method(config.selection),
                      memory=config.items(memory),
                      prepared=prepared(memory), llm=MeteredLLM(llm), sandbox=sandbox, solver=None, records=records,
                      progress=TaskProgress(progress or Reporter(), task.id), notices=Notices())
    selections = read(ctx)
    if selections is None:          # the endpoint failed under the read: say so as the read's error
        selection = Selection(mode=config.selection, fallback=True, error=str(ctx.llm.fault))
        return Preview(selection, Probed(), None, records)
    probed = probe_task(ctx)
    return Preview(selections[0], probed, helpers_for(ctx, selections[0], list(probed.fits)), records)


__all__ = ["Preview", "preview"]
