"""What one task records while it runs, held apart until the run's driver commits it.

Tasks in flight at once (threads in this process, or Ray workers) never write the run
directory themselves: each writes into its own `TaskRecords` (event lines, selection
records, submission files) through the same methods as a `RunDir`, and the driver appends
them to the run directory in task order once the task and every task before it are done
(`RunDir.commit`). So the run directory reads the same for any number of tasks in flight,
a task still running when the run stops leaves nothing half-written, and a worker on
another machine needs no access to the directory: `finish()` turns the records into plain
data that travels back to the driver.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class TaskRecords:
    """The run directory as one task sees it: `append`, `append_selection` and `submissions`
    (a private directory) are kept here; `finish()` reads the submission files in."""

    def __init__(self, run_id: str):
        self.run_id = run_id
        self.events: list[dict[str, Any]] = []
        self.selections: list[dict[str, Any]] = []
        self.files: dict[str, str] = {}       # submission file name -> its text, after finish()
        self._dir: Path | None = None

    @property
    def submissions(self) -> Path:
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="arcmemo-task-"))
        return self._dir

    def append(self, event: dict[str, Any]) -> None:
        self.events.append({"time": round(time.time(), 3), **event})

    def append_selection(self, record: dict[str, Any]) -> None:
        self.selections.append({"time": round(time.time(), 3), **record})

    def finish(self) -> TaskRecords:
        """Read the submission files in and drop the private directory (idempotent)."""
        if self._dir is not None:
            for path in sorted(self._dir.glob("[!.]*.json")):
                self.files[path.name] = path.read_text(encoding="utf-8")
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        return self

    def discard(self) -> None:
        """Drop everything (a task whose result will not be committed)."""
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


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
