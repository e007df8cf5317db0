"""What a task's stages are lent by the run (`TaskContext`): one task in one pass, and the run's
parts as that task sees them: its own model meter, its own records and progress row, memory as
prepared at the revision the task started with. Never the task's test outputs: the pipeline
hands those to the scoring stage alone."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arcmemo.core.tasks import Task
    from arcmemo.memory.store.scoped import MethodMemory
    from arcmemo.methods.contract import MemoryMethod
    from arcmemo.run.config import RunConfig
    from arcmemo.run.progress.reporter import TaskProgress
    from arcmemo.run.records.outcome import TaskOutcome
    from arcmemo.run.records.taskrecords import TaskRecords
    from arcmemo.run.stages.metered import MeteredLLM
    from arcmemo.run.stages.prepared import Prepared
    from arcmemo.sandbox import Sandbox
    from arcmemo.solverkit.contract import Solver


@dataclass
class Notices:
    """What a run says once, whichever task first meets it (shared by every task of a run)."""

    said: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def first(self, key: str) -> bool:
        """True the first time `key` is asked for in this run."""
        with self.lock:
            if key in self.said:
                return False
            self.said.add(key)
            return True


@dataclass
class TaskContext:
    """One task in one pass, with what its stages may use (module docstring). In pass order,
    `earlier` is the outcome the last pass left and `opened` the first pass's (the hints its
    threads opened with): the threads go on from them."""

    task: Task
    pass_index: int
    config: RunConfig
    method: MemoryMethod
    memory: MethodMemory             # memory as the run's method sees it: its own items
    prepared: Prepared               # the whole memory at the task's revision: names, memory's helpers
    llm: MeteredLLM
    sandbox: Sandbox
    solver: Solver
    records: TaskRecords
    progress: TaskProgress
    notices: Notices
    earlier: TaskOutcome | None = None
    opened: TaskOutcome | None = None

    @property
    def continuing(self) -> bool:
        """Pass order, a pass after the first: each thread goes on from its conversations."""
        return self.earlier is not None

    @property
    def run_id(self) -> str:
        return self.records.run_id

    def thread_label(self, t: int) -> str:
        """How the progress line names thread t (nothing for a one-thread run)."""
        return f"thread {t + 1} of {self.config.threads}: " if self.config.threads > 1 else ""

    def step(self, text: str, thread: int | None = None) -> None:
        self.progress.step((self.thread_label(thread) if thread is not None else "") + text)

    def note(self, text: str) -> None:
        self.progress.note(text)

    def fault(self, stage: str, error: str, trace: str | None = None, **where: Any) -> dict[str, Any]:
        """A fault record (TaskOutcome.faults): what broke under the task, in which stage."""
        return {"stage": stage, "error": error, **({"traceback": trace} if trace else {}), **where}


__all__ = ["Notices", "TaskContext"]
