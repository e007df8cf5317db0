"""A concept's helper as the code passes it: `Helper`, with the `Verified` record of where a
program calling it passed a task's train pairs.

Standard library only, like the `Concept` value that holds it (schema/concept.py): the
read-only commands read concepts without pydantic or the database libraries. The rules a
helper's data must follow on its way into memory are the schema's (schema/rules.py's
HelperData); its source's rules are source.py's. `to_data` gives the data shape (the mapping
an export writes and an import reads), `from_data` reads it back.

Both are small immutable records rather than dataclasses: a dataclass compiles its generated
methods when it is defined, and these two would cost every read-only command about a
millisecond of its start-up (a few percent of `concepts list`), which `_Record` does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, TypeVar

R = TypeVar("R", bound="_Record")


class _Record:
    """An immutable record of the fields named in `__slots__` (in order): equal and hashed by its
    type and fields, shown by them, changed only by making another (`replace`)."""

    __slots__ = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{name}={getattr(self, name)!r}' for name in self.__slots__)})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a {type(self).__name__} cannot be changed; make another with replace()")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a {type(self).__name__} cannot be changed; make another with replace()")

    def replace(self: R, **changes: Any) -> R:
        """A copy with `changes` (field name -> value)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}")
        return type(self)(**{name: changes.get(name, getattr(self, name)) for name in self.__slots__})

    def _set(self, *values: Any) -> None:
        for name, value in zip(self.__slots__, values):
            object.__setattr__(self, name, value)


class Verified(_Record):
    """Where a helper was verified: `program`, calling it, passed every train pair of task
    `task_id` (in the task source `tasks`) in the sandbox at time `at` (ISO 8601), in run `run_id`."""

    __slots__ = ("task_id", "tasks", "program", "at", "run_id")
    task_id: str
    tasks: str
    program: str
    at: str
    run_id: str | None

    def __init__(self, task_id: str, tasks: str, program: str, at: str, run_id: str | None = None):
        self._set(task_id, tasks, program, at, run_id)

    @classmethod
    def now(cls, task_id: str, tasks: str, program: str, run_id: str | None = None) -> Verified:
        """The record of a verification that passed just now."""
        return cls(task_id, tasks, program, datetime.now(timezone.utc).isoformat(timespec="seconds"), run_id)

    def to_data(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Verified:
        return cls(data["task_id"], data["tasks"], data["program"], data["at"], data.get("run_id"))


class Helper(_Record):
    """A PS concept's helper: the source of one function implementing it (named after the
    concept), the other helpers it calls (`depends`, sorted), and where it was verified
    (None only before that: memory holds verified helpers only)."""

    __slots__ = ("name", "source", "depends", "verified")
    name: str
    source: str
    depends: tuple[str, ...]
    verified: Verified | None

    def __init__(self, name: str, source: str, depends: tuple[str, ...] = (), verified: Verified | None = None):
        self._set(name, source, tuple(depends), verified)

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
