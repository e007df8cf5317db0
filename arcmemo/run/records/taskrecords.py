"""What one task records while it runs, held apart until the run's driver commits it.

Tasks in flight at once (threads in this process, or Ray workers) never write the run
directory themselves: each writes into its own `TaskRecords` (event lines, selection
records, submission files' text) through the same methods as a `RunDir`, and the driver
appends them to the run directory in task order once the task and every task before it are
done (`RunDir.commit`). So the run directory reads the same for any number of tasks in
flight, a task still running when the run stops leaves nothing half-written, and a worker on
another machine needs no access to the directory: the records are plain data that travels
back to the driver.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


class TaskRecords:
    """The run directory as one task sees it: what `append`, `append_selection` and
    `add_submission` are given is kept here."""

    def __init__(self, run_id: str):
        self.run_id = run_id
        self.events: list[dict[str, Any]] = []
        self.selections: list[dict[str, Any]] = []
        self.files: dict[str, str] = {}       # submission file name -> its text

    def add_submission(self, name: str, text: str) -> None:
        self.files[name] = text

    def append(self, event: dict[str, Any]) -> None:
        self.events.append({"time": round(time.time(), 3), **event})

    def append_selection(self, record: dict[str, Any]) -> None:
        self.selections.append({"time": round(time.time(), 3), **record})


@dataclass
class TaskResult:
    """What solving one task in one pass hands back to the run's driver (`Runner.solve_task`):
    plain data, so it can come back from another process or machine."""

    task_id: str
    pass_index: int
    outcome: Any                   # the TaskOutcome; None when the endpoint failed under the task
    records: TaskRecords
    lost: dict[str, Any] | None = None          # the task_lost event when the task was lost
    lost_usage: list[dict[str, Any]] = field(default_factory=list)  # what lost calls cost
    error: BaseException | None = None          # what ended the task (an EndpointFatal): the driver raises it
    elapsed: float = 0.0           # seconds at work
    calls: list[dict[str, Any]] = field(default_factory=list)   # call-log rows a remote worker ships back


__all__ = ["TaskRecords", "TaskResult"]
