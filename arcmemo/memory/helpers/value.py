"""A concept's helper as the code passes it: `Helper`, with the `Verified` record of where a
program calling it passed a task's train pairs.

Standard library only, like the `Concept` value that holds it (schema/concept.py): the
read-only commands read concepts without pydantic or the database libraries. The rules a
helper's data must follow on its way into memory are the schema's (schema/rules.py's
HelperData); its source's rules are source.py's. `to_data` gives the data shape (the mapping
an export writes and an import reads), `from_data` reads it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any


@dataclass(frozen=True, slots=True)
class Verified:
    """Where a helper was verified: `program`, calling it, passed every train pair of task
    `task_id` (in the task source `tasks`) in the sandbox at time `at` (ISO 8601), in run `run_id`."""

    task_id: str
    tasks: str
    program: str
    at: str
    run_id: str | None = None

    @classmethod
    def now(cls, task_id: str, tasks: str, program: str, run_id: str | None = None) -> Verified:
        """The record of a verification that passed just now."""
        return cls(task_id, tasks, program, datetime.now(timezone.utc).isoformat(timespec="seconds"), run_id)

    def to_data(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "tasks": self.tasks, "program": self.program, "at": self.at,
                "run_id": self.run_id}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Verified:
        return cls(data["task_id"], data["tasks"], data["program"], data["at"], data.get("run_id"))


@dataclass(frozen=True, slots=True)
class Helper:
    """A PS concept's helper: the source of one function implementing it (named after the
    concept), the other helpers it calls (`depends`, sorted), and where it was verified
    (None only before that: memory holds verified helpers only)."""

    name: str
    source: str
    depends: tuple[str, ...] = ()
    verified: Verified | None = None

    def to_data(self) -> dict[str, Any]:
        """The data shape: {name, source, depends, verified: {task_id, tasks, program, at, run_id}}."""
        return {"name": self.name, "source": self.source, "depends": list(self.depends),
                "verified": self.verified.to_data() if self.verified is not None else None}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Helper:
        verified = data.get("verified")
        return cls(data["name"], data["source"], tuple(data.get("depends") or ()),
                   Verified.from_data(verified) if verified else None)


__all__ = ["Helper", "Verified"]
