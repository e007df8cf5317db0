"""Where a run's tasks are solved: here, one after another or several at once on threads.

The run loop (loop.py) hands an executor one task at a time (`submit`) and gets back a
future of the task's `TaskResult` (`Runner.solve_task`: the task's outcome and everything
it recorded, held apart from the run directory). The loop alone decides how many tasks
are in flight (`slots`), commits results in task order and writes memory between blocks,
so an executor only runs tasks: it never touches the run directory or the memory's writes.

- `InProcess(1)`: each task runs when it is submitted, on the caller's thread (the
  sequential run; Ctrl-C lands where it always did).
- `InProcess(n)`: up to n tasks on daemon threads of this process. Their model calls share
  the run's one client, whose `concurrency` semaphore bounds the calls of all tasks
  together; their programs share the process's sandbox pool. Daemon threads, because a
  run stopped by Ctrl-C must not wait for the model calls still under way: their tasks
  were not committed, so `--resume` does them again (the call cache answers what they
  already asked).
- `RayExecutor` (on_ray.py): the same tasks as Ray tasks, on this machine or a cluster.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any


class Executor:
    """Runs tasks for a run loop: at most `slots` of them at once (the loop keeps to it)."""

    slots: int = 1

    def prepare(self, runner: Any) -> None:
        """Get ready to solve `runner`'s tasks (start workers); called once before the first submit."""

    def submit(self, runner: Any, task: Any, pass_index: int) -> Future:
        """Start `runner.solve_task(task, pass_index)`; a future of its TaskResult."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the executor holds (nothing to wait for: unfinished tasks are dropped)."""


class InProcess(Executor):
    """Tasks in this process: inline with one slot, on daemon threads with more."""

    def __init__(self, slots: int = 1):
        if slots < 1:
            raise ValueError(f"tasks in flight must be at least 1, got {slots}")
        self.slots = slots

    def submit(self, runner, task, pass_index):
        future: Future = Future()
        if self.slots == 1:
            future.set_running_or_notify_cancel()
            future.set_result(runner.solve_task(task, pass_index))
            return future

        def work() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(runner.solve_task(task, pass_index))
            except BaseException as exc:       # handed to the loop, which decides what it means
                future.set_exception(exc)

        threading.Thread(target=work, name=f"task-{task.id}", daemon=True).start()
        return future


__all__ = ["Executor", "InProcess"]
