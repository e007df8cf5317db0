"""A run's event log read back as typed events (`RunLog`), in one pass over events.jsonl.

A solve's events: each task solved in a pass (`TaskOutcome`), memory writes (`MemoryWrite`),
tasks and writes lost to the endpoint or the sandbox (`Lost`), consolidations, sessions,
budget stops, skipped writes and endpoint changes. A seed or cheatsheet run's own events
(verify, ingest, curate) are kept as they are (`OtherEvent`). What every view and resume take
from the log is computed here, once: each task's latest outcome, what the run cost (its tasks,
writes, lost tasks and writes, consolidations), the wall time of its sessions, its last event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.errors import ArcmemoError
from arcmemo.llm.usage import Usage
from arcmemo.methods.contract import WriteEvent
from arcmemo.run.records.outcome import TaskOutcome, logged_usage

LOST_KINDS = ("task_lost", "write_lost", "endpoint_fatal")


class MalformedEvent(ArcmemoError, ValueError):
    """An event whose fields are not what arcmemo writes (a hand-edited or foreign log)."""


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


@dataclass
class MemoryWrite(WriteEvent):
    """A memory write as the run logged it: what the method's write did for one task (its
    WriteEvent), in which pass, what it cost, and whether resume rebuilt it from the store."""

    pass_index: int = 1
    recovered: bool = False          # rebuilt on resume from the store's own records
    usage: Usage = field(default_factory=Usage)

    @classmethod
    def from_event(cls, event: Mapping[str, Any]) -> MemoryWrite:
        listed = {name: _strings(event.get(name))
                  for name in ("added", "extended", "removed", "helpers", "helper_problems", "types_dropped")}
        return cls(task_id=str(event.get("task_id")), **listed, failed=bool(event.get("failed")),
                   error=event.get("error"), pass_index=int(event.get("pass_index") or 1),
                   recovered=bool(event.get("recovered")), usage=logged_usage(event.get("usage")))

    def event(self) -> dict[str, Any]:
        """The write as the log keeps it (and the memory methods' records read it)."""
        return {"type": "write", "pass_index": self.pass_index, **self.record(),
                **({"recovered": True} if self.recovered else {}), "usage": self.usage.to_dict()}


@dataclass(frozen=True)
class Lost:
    """A task or write not done because the endpoint (or the sandbox: `cause`) failed under it:
    `--resume` does it again. `endpoint_fatal`: the fault that stopped the run."""

    kind: str                       # task_lost | write_lost | endpoint_fatal
    pass_index: int
    task_id: str
    error: str | None = None
    cause: str = "endpoint"
    usage: Usage = field(default_factory=Usage)

    @classmethod
    def from_event(cls, event: Mapping[str, Any]) -> Lost:
        return cls(kind=str(event.get("type")), pass_index=int(event.get("pass_index") or 1),
                   task_id=str(event.get("task_id")), error=event.get("error"),
                   cause=str(event.get("cause") or "endpoint"), usage=logged_usage(event.get("usage")))


@dataclass(frozen=True)
class Consolidation:
    """Memory consolidated after block `block` of pass `pass_index` (run/jobs/consolidating.py)."""

    pass_index: int
    block: int
    merged: list[dict[str, Any]] = field(default_factory=list)
    refused: list[Any] = field(default_factory=list)
    unjudged: list[Any] = field(default_factory=list)
    judged: int = 0
    sandbox_runs: int = 0
    revision: int | None = None
    usage: Usage = field(default_factory=Usage)

    @classmethod
    def from_event(cls, event: Mapping[str, Any]) -> Consolidation:
        listed = {name: event.get(name) if isinstance(event.get(name), list) else []
                  for name in ("merged", "refused", "unjudged")}
        return cls(pass_index=int(event.get("pass_index") or 1), block=int(event.get("block") or 0), **listed,
                   judged=int(event.get("judged") or 0), sandbox_runs=int(event.get("sandbox_runs") or 0),
                   revision=event.get("revision"), usage=logged_usage(event.get("usage")))


@dataclass(frozen=True)
class BudgetStop:
    """The run stopped before this task: its budget would have been exceeded."""

    pass_index: int
    task_id: str


@dataclass(frozen=True)
class OtherEvent:
    """An event of another kind (a seed run's verify and ingest, a cheatsheet's curate...), as logged."""

    type: str
    data: dict[str, Any]


class SessionClock:
    """The wall time of a run's sessions from its events: each one's `session_end`, or, for a
    session killed before it could write one (SIGKILL, an out-of-memory kill, a power cut),
    from its start to its last event."""

    def __init__(self) -> None:
        self.total, self._start, self._last = 0.0, None, None

    def feed(self, kind: str, when: float | None, wall_time_s: float | None = None) -> None:
        if kind == "session_start":
            if self._start is not None and self._last is not None:
                self.total += max(0.0, self._last - self._start)      # the session before ended without a word
            self._start = self._last = when
        elif kind == "session_end":
            self.total += wall_time_s or 0
            self._start = self._last = None
        elif self._start is not None and when is not None:
            self._last = when

    def wall_time(self) -> float:
        open_session = 0.0 if self._start is None or self._last is None else max(0.0, self._last - self._start)
        return self.total + open_session


def sessions_wall_time(events: Iterable[Mapping[str, Any]]) -> float:
    """The wall time of these events' sessions (SessionClock)."""
    clock = SessionClock()
    for event in events:
        clock.feed(event.get("type", "?"), event.get("time"), event.get("wall_time_s"))
    return clock.wall_time()


def run_usage(outcomes: Iterable[TaskOutcome], writes: Iterable[MemoryWrite], lost: Iterable[Usage],
              consolidations: Iterable[Consolidation]) -> Usage:
    """What a run cost: its tasks (each pass's), writes, lost tasks and writes, consolidations."""
    return sum([*(o.usage for o in outcomes), *(w.usage for w in writes), *lost, *(c.usage for c in consolidations)],
               Usage())


@dataclass
class RunLog:
    """The event log of one run, typed; `order`: the run's task ids, for `latest`."""

    outcomes: list[TaskOutcome] = field(default_factory=list)     # every task event, in log order
    writes: list[MemoryWrite] = field(default_factory=list)
    lost: list[Lost] = field(default_factory=list)
    consolidations: list[Consolidation] = field(default_factory=list)
    budget_stops: list[BudgetStop] = field(default_factory=list)
    others: list[OtherEvent] = field(default_factory=list)
    # (tasks logged before it, concepts it added) per write: memory's growth in run order (the charts)
    growth: list[tuple[int, int]] = field(default_factory=list)
    counts: dict[str, list[int]] = field(default_factory=dict)     # event type -> [ok, failed]
    sessions: int = 0
    wall_time_s: float = 0.0        # of every session so far (SessionClock)
    last_time: float | None = None  # of the last event
    order: Sequence[str] = ()

    @classmethod
    def read(cls, records: Iterable[Mapping[str, Any]], order: Sequence[str] = ()) -> RunLog:
        """The log of these event records (RunDir.events()), in one pass; MalformedEvent naming
        the first event that is not one arcmemo wrote (a field missing or of another type)."""
        log, clock = cls(order=order), SessionClock()
        for number, event in enumerate(records, 1):
            kind, when = str(event.get("type", "?")), event.get("time")
            try:
                when = None if when is None else float(when)
                clock.feed(kind, when, event.get("wall_time_s"))
                log._add(kind, event)
            except (TypeError, ValueError, KeyError) as exc:
                raise MalformedEvent(f"event {number} ({kind[:40]}) is not one arcmemo wrote: "
                                     f"{type(exc).__name__}: {str(exc)[:200]}") from None
            if when is not None:
                log.last_time = when if log.last_time is None else max(log.last_time, when)
            ok = event.get("ok", not event.get("error") and not event.get("failed"))
            log.counts.setdefault(kind, [0, 0])[0 if ok else 1] += 1
        log.wall_time_s = clock.wall_time()
        return log

    def _add(self, kind: str, event: Mapping[str, Any]) -> None:
        if kind == "task":
            self.outcomes.append(TaskOutcome.from_event(dict(event)))
        elif kind == "write":
            write = MemoryWrite.from_event(event)
            self.writes.append(write)
            self.growth.append((len(self.outcomes), len(write.added)))
        elif kind in LOST_KINDS:
            self.lost.append(Lost.from_event(event))
        elif kind == "consolidate":
            self.consolidations.append(Consolidation.from_event(event))
        elif kind == "budget_stop":
            self.budget_stops.append(BudgetStop(int(event.get("pass_index") or 1), str(event.get("task_id"))))
        elif kind == "session_start":
            self.sessions += 1
        elif kind not in ("session_end", "write_skipped", "endpoint_changed"):
            self.others.append(OtherEvent(kind, dict(event)))

    @property
    def empty(self) -> bool:
        """Whether nothing was logged yet (a run not started, or a fresh one)."""
        return not self.counts

    @property
    def done(self) -> dict[tuple[int, str], TaskOutcome]:
        """Each (pass, task)'s outcome (the last one logged)."""
        return {(o.pass_index, o.task_id): o for o in self.outcomes}

    def latest(self) -> dict[str, TaskOutcome]:
        """Each task's outcome in its latest pass, in the run's task order (tasks it does not
        plan, last)."""
        found: dict[str, TaskOutcome] = {}
        for outcome in self.outcomes:
            found[outcome.task_id] = outcome
        place = {t: i for i, t in enumerate(self.order)}
        return dict(sorted(found.items(), key=lambda item: place.get(item[0], len(place))))

    def lost_of(self, kind: str) -> list[Lost]:
        return [lost for lost in self.lost if lost.kind == kind]

    def tasks_lost(self) -> dict[tuple[int, str], Lost]:
        """(pass, task) -> its loss, of the tasks lost and not solved since (a later session's
        task event settles it)."""
        done = self.done
        return {(lost.pass_index, lost.task_id): lost for lost in self.lost_of("task_lost")
                if (lost.pass_index, lost.task_id) not in done}

    def writes_lost(self) -> set[tuple[int, str]]:
        """(pass, task) of the writes lost (a later write of the same task and pass settles it)."""
        written = {(w.pass_index, w.task_id) for w in self.writes}
        return {(lost.pass_index, lost.task_id) for lost in self.lost_of("write_lost")} - written

    @property
    def lost_usage(self) -> list[Usage]:
        """What the tasks and writes lost cost (their calls were made, and paid for)."""
        return [lost.usage for lost in self.lost if lost.kind != "endpoint_fatal"]

    def usage(self) -> Usage:
        """What the run cost so far (`run_usage`)."""
        return run_usage(self.done.values(), self.writes, self.lost_usage, self.consolidations)

    def consolidated(self) -> set[tuple[int, int]]:
        """(pass, block) of every consolidation logged (resume does not do them again)."""
        return {(c.pass_index, c.block) for c in self.consolidations}


__all__ = ["BudgetStop", "Consolidation", "LOST_KINDS", "Lost", "MalformedEvent", "MemoryWrite", "OtherEvent", "RunLog",
           "SessionClock", "run_usage", "sessions_wall_time"]
