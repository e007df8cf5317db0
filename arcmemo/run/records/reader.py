"""A run directory read back, the one way every view and resume read it (`read_run`): the page,
the report, `arcmemo runs ...`, the concepts commands that count a run's use, and `--resume`.

A `RunRecord` holds what the run recorded, typed where a typed value exists:
- its kind and, for a solve, its `RunConfig` (RunConfig.from_dict: the one set of defaults)
  and protocol; other kinds hold what their config.json says;
- its event log as typed events (events.py: TaskOutcome, MemoryWrite, Lost, Consolidation...)
  and each task's latest outcome;
- its state: its status (status.json and the lock: running, finished, stopped, failed,
  interrupted), never guessed from whether it has a summary, with a running run that has
  logged nothing for STALE_AFTER_S shown as stuck;
- its summary: the one it wrote, or, for a solve stopped before writing one (killed, or
  still running), one made from its events the way the run makes its own (`partial`);
- its score (run/records/scores.py, scoring/runscore.py), and what it cost: its tasks,
  writes, lost tasks and writes, and consolidations;
- its puzzles (puzzles.py): from its own tasks.json, or for a run from before, a bundled
  dataset's, never from a path its config names.

Files are read as run files are (rundir.py: regular files only, within limits); what is read
is kept, so a record reads its directory once (make a new one to see new events).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from arcmemo.core.table import cell, counted
from arcmemo.run.protocol import PROTOCOL_KEY, Protocol, from_record, test_informed
from arcmemo.run.records.report import score_of, summary_rows
from arcmemo.run.records.rundir import DEFAULT_RUNS_DIR, RUNNING, RunDir, RunDirError
from arcmemo.scoring.runscore import RunScore, headline_name

if TYPE_CHECKING:
    from arcmemo.core.tasks import Answers, Task, TaskSet
    from arcmemo.llm.usage import Usage
    from arcmemo.run.config import RunConfig
    from arcmemo.run.records.events import MemoryWrite, RunLog
    from arcmemo.run.records.outcome import TaskOutcome

SOLVE, SEED, CHEATSHEET, SELECT = "solve", "seed", "cheatsheet", "select"
STALE_AFTER_S = 300     # a running run with no event for this long is shown as stuck
SELECTION_FIELDS = ("task_id", "pass_index", "mode", "concept_ids", "reasoning", "unmatched", "fallback", "error",
                    "named_types")
T = TypeVar("T")


class NothingToExport(RunDirError):
    """A run without predictions (not a solve run, or one that finished no task)."""


class NoSuchTask(RunDirError, LookupError):
    """A task the run did not finish (the page answers 404)."""


@dataclass
class RunTask:
    """One task of a run: its latest outcome, every pass, what memory offered, what was written."""

    task_id: str
    outcome: TaskOutcome
    passes: list[TaskOutcome]
    writes: list[MemoryWrite]
    selections: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Puzzles:
    """A run's puzzles and their test outputs; `missing` says why there are none."""

    tasks: dict[str, Task]
    answers: dict[str, Answers]
    missing: str | None = None


class RunRecord:
    """One run read from its directory (module docstring). Thread-safe: what it reads is read
    once, by the first thread that asks."""

    def __init__(self, rundir: RunDir, recorded: dict[str, Any]):
        self.rundir = rundir
        self.recorded = recorded            # config.json as the run wrote it
        self._lock = threading.RLock()
        self._kept: dict[str, Any] = {}

    def _once(self, name: str, make: Callable[[], T]) -> T:
        if name not in self._kept:
            with self._lock:
                if name not in self._kept:
                    self._kept[name] = make()
        return self._kept[name]

    # -- what the run was asked ---------------------------------------------------------
    @property
    def run_id(self) -> str:
        return self.rundir.run_id

    @property
    def kind(self) -> str:
        return str(self.recorded.get("kind", SOLVE))

    @property
    def settings(self) -> dict[str, Any]:
        """The settings as recorded (for showing; a solve's values are `config`'s)."""
        settings = self.recorded.get("settings")
        return settings if isinstance(settings, dict) else {}

    @property
    def planned(self) -> list[str]:
        return [str(t) for t in self.recorded.get("task_ids") or []]

    @property
    def protocol(self) -> Protocol:
        return from_record(self.recorded.get(PROTOCOL_KEY))

    @property
    def test_informed(self) -> bool:
        return test_informed(self.recorded)

    @property
    def config(self) -> RunConfig:
        """A solve run's RunConfig as it recorded it (RunDirError when that cannot be made, or
        for another kind of run)."""
        return self._once("config", self._config)

    def _config(self) -> RunConfig:
        if self.kind != SOLVE:
            raise RunDirError(f"run {self.run_id} is a {self.kind} run: it has no solve settings")
        from arcmemo.run.config import RunConfig

        try:
            return RunConfig.from_dict({**self.settings, "task_ids": self.planned,
                                        PROTOCOL_KEY: self.recorded.get(PROTOCOL_KEY)})
        except (TypeError, ValueError) as exc:
            raise RunDirError(f"{self.rundir.path / 'config.json'}: settings arcmemo cannot use ({exc})") from None

    @property
    def threads(self) -> int:
        return self._shape()[0]

    @property
    def retries(self) -> int:
        return self._shape()[1]

    def _shape(self) -> tuple[int, int]:
        """(threads, retries): its config's; when that cannot be made here (a method not installed,
        a protocol this arcmemo does not know), what its summary recorded it ran with."""
        try:
            return self.config.threads, self.config.retries
        except RunDirError:
            recorded = self.written_summary or {}
            if isinstance(recorded.get("threads"), int) and isinstance(recorded.get("retries"), int):
                return recorded["threads"], recorded["retries"]
            raise

    @property
    def statistic(self) -> str:
        """The name of the run's headline: oracle@2, or oracle@1 (one thread)."""
        return headline_name(self.threads)

    @property
    def label(self) -> str:
        """How charts name the run: its memory method and solver model, then its id."""
        model = (self.recorded.get("models") or {}).get("solver", "?")
        return f"{self.settings.get('selection', '?')} · {model} · {self.run_id}"

    # -- what it did ----------------------------------------------------------------------
    @property
    def log(self) -> RunLog:
        """The event log, typed (RunDirError: unreadable, or not a log arcmemo wrote)."""
        return self._once("log", self._read_log)

    def _read_log(self) -> RunLog:
        # imported here: `runs list` of finished runs reads no log (and loads no model types)
        from arcmemo.run.records.events import MalformedEvent, RunLog

        try:
            return RunLog.read(self.rundir.events(), order=self.planned)
        except MalformedEvent as exc:
            raise RunDirError(f"{self.rundir.path / 'events.jsonl'}: {exc}") from None

    @property
    def latest(self) -> dict[str, TaskOutcome]:
        """Each task's outcome in its latest pass, in the run's task order."""
        return self._once("latest", self.log.latest)

    @property
    def outcomes(self) -> list[TaskOutcome]:
        return self.log.outcomes

    @property
    def writes(self) -> list[MemoryWrite]:
        return self.log.writes

    def usage(self) -> Usage:
        """What the run cost so far: its tasks, writes, lost tasks and writes, consolidations."""
        return self._once("usage", self.log.usage)

    @property
    def written_summary(self) -> dict[str, Any] | None:
        """summary.json, when the run wrote one."""
        return self._once("written", self.rundir.summary)

    @property
    def partial(self) -> bool:
        """Whether the summary is made from the events (a solve without a summary.json)."""
        return self.kind == SOLVE and self.written_summary is None

    @property
    def summary(self) -> dict[str, Any] | None:
        """The run's summary: the one it wrote, or (a solve without one) one made from its events."""
        if not self.partial:
            return self.written_summary
        return self._once("partial", self._partial_summary)

    def _partial_summary(self) -> dict[str, Any]:
        """What a solve run's events hold before its summary exists, made as the run makes its
        own (records/summary.py) from what the log has: its tasks so far, each task's latest pass."""
        from arcmemo.run.records import summary as summaries

        log, latest = self.log, self.latest
        done = log.done
        writes_done = {(w.pass_index, w.task_id) for w in log.writes}
        made = summaries.summary(
            run_id=self.run_id, config=self.config, tasks_planned=len(self.planned), latest=latest, done=done,
            per_pass=[], writes=log.writes, consolidations=log.consolidations, usage=self.usage(),
            lost_tasks=[t for (p, t) in log.tasks_lost() if (p, t) not in done],
            writes_lost=[w.task_id for w in log.lost_of("write_lost") if (w.pass_index, w.task_id) not in writes_done],
            scored=all(o.scores for o in latest.values()) if latest else None, failure_lessons={},
            memory_revision_end=None, stopped=None, wall=log.wall_time_s)
        return {**made, "partial": True}

    # -- its state --------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """The run's status as it is now (RunDir.status: read each time, with the lock)."""
        return self.rundir.status()

    def idle_s(self, now: float | None = None) -> float | None:
        """Seconds since the run's last event (None: no event yet)."""
        last = self.log.last_time
        return None if last is None else max(0.0, (time.time() if now is None else now) - last)

    def lost_count(self) -> int:
        """How many tasks the run lost (its summary's, partial or not)."""
        return len((self.summary or {}).get("tasks_lost") or []) if self.kind == SOLVE else 0

    def state(self, now: float | None = None) -> str:
        """The run's state as every view words it (`run_state`)."""
        status = self.status()
        return run_state(status, self.idle_s(now) if status["status"] == RUNNING else None, self.lost_count())

    @property
    def score(self) -> RunScore | None:
        """The run's score (solve runs: its summary's, partial or not); None for other kinds."""
        if self.kind != SOLVE:
            return None
        return self._once("score", lambda: score_of(self.recorded, self.summary))

    def progress(self, now: float | None = None) -> dict[str, Any]:
        """Where the run stands: state, tasks done of planned, score so far (None: unknown),
        tokens and cost (everything it paid for), writes, the last event."""
        now = time.time() if now is None else now
        latest, usage, score = self.latest, self.usage(), self.score
        status, idle = self.status(), self.idle_s(now)
        return {
            "run_id": self.run_id, "kind": self.kind, "state": run_state(status, idle, self.lost_count()),
            "running": live(status, idle),
            "planned": len(self.planned), "done": len(latest),
            "passed_train": sum(bool(o.passed_train or o.fit_answers) for o in latest.values()),   # memory's fit too
            "score": score.value if score else None, "score_cell": score.cell() if score else "-",
            "statistic": score.name if score else None, "test_informed": bool(score and score.test_informed),
            "arc_prize": score.arc_prize if score else None, "strict": score.strict if score else None,
            "writes": len(self.writes), "tokens": int(usage.prompt_tokens + usage.completion_tokens),
            "cost_usd": round(usage.cost_usd, 6), "idle_s": None if idle is None else round(idle, 1),
            "last_task": next(reversed(latest), None),
        }

    # -- shown by kind ------------------------------------------------------------------------
    def rows(self) -> list[tuple[str, Any]]:
        """(label, value) rows of what the run holds, by its kind."""
        summary = self.summary
        if summary is None:
            return [("state", self.state()), *self._event_rows()]
        if self.kind == SOLVE:
            return summary_rows(summary, self.recorded)
        if self.kind in (SEED, CHEATSHEET):
            return _summary_object_rows(self.kind, summary)
        if self.kind == SELECT:
            records = self.rundir.selections()
            return [("selections recorded", len(records)),
                    ("tasks", len({r.get("task_id") for r in records})),
                    ("concepts offered", len({c for r in records for c in r.get("concepts") or []}))]
        return [(k, v) for k, v in summary.items() if not isinstance(v, (dict, list))]

    def _event_rows(self) -> list[tuple[str, Any]]:
        """What a run without a summary (killed) did, counted from its events."""
        return [(f"{kind} events (ok, failed)", f"{ok}, {bad}") for kind, (ok, bad) in self.log.counts.items()]

    def brief(self) -> str:
        """What the run did, in a few words (the `tasks` column of `runs list`)."""
        s = self.summary or {}
        if self.kind == SOLVE:
            return f"{s['tasks']} of {s['tasks_planned']}" if self.summary else "-"
        if self.kind == SEED:
            added = counted(s.get("concepts_added", 0), "concept")
            return f"{s.get('verified', '?')} of {s.get('files', '?')} seeds, {added} added"
        if self.kind == CHEATSHEET:
            return f"{s.get('verified', '?')} of {s.get('files', '?')} seeds, {s.get('sheet_words', 0)} words"
        if self.kind == SELECT:
            return counted(len(self.rundir.selections()), "selection")
        return "-"

    def check_exportable(self) -> None:
        """NothingToExport unless the run has predictions to hand on."""
        if self.kind != SOLVE:
            raise NothingToExport(f"run {self.run_id} is a {self.kind} run: it made no predictions to export "
                                  "(export a solve run)")
        if not any(self.rundir.submissions.glob("*.json")):
            raise NothingToExport(f"run {self.run_id} has no predictions to export (no task finished with a "
                                  f"submission; it is {self.state()})")

    # -- one task -----------------------------------------------------------------------------
    def task(self, task_id: str, memory: Any = None) -> RunTask:
        """One finished task (RunDirError: the run has none by that id); `memory`: the memory
        the run read, for the selection records runs kept there before the run directory."""
        if task_id not in self.latest:
            raise NoSuchTask(f"run {self.run_id} has no finished task {task_id!r}")
        return RunTask(task_id, self.latest[task_id], [o for o in self.outcomes if o.task_id == task_id],
                       [w for w in self.writes if w.task_id == task_id], self.selections(task_id, memory))

    def tasks(self, memory: Any = None) -> list[RunTask]:
        return [self.task(t, memory) for t in self.latest]

    def selections(self, task_id: str, memory: Any = None) -> list[dict[str, Any]]:
        """What memory selection offered the task and why, as plain dicts (SELECTION_FIELDS):
        from the run directory, or for a run from before it kept them there, from `memory`."""
        kept = [r for r in self._once("selections", self.rundir.selections) if r.get("task_id") == task_id]
        if kept:
            return [{name: r.get(name) for name in SELECTION_FIELDS} for r in kept]
        if memory is None:
            return []
        return [{name: getattr(r, name, None) for name in SELECTION_FIELDS}
                for r in memory.selection_records(self.run_id, task_id)]

    def task_scores(self, outcome: TaskOutcome) -> dict[str, Any]:
        """One task's scores as cells: its headline over its threads, then the submitted attempts'
        (marked † in a test-informed run); worked out once per outcome (a run's page lists them all)."""
        cells = self._once("cells", dict)
        kept = cells.get(id(outcome))
        if kept is None or kept[0] is not outcome:
            kept = cells[id(outcome)] = (outcome, self._task_cells(outcome))
        return kept[1]

    def _task_cells(self, outcome: TaskOutcome) -> dict[str, Any]:
        from arcmemo.run.records.scores import task_headline

        mark = " †" if self.test_informed else ""
        head = task_headline(outcome, self.threads, self.retries)

        def shown(value: float | None, missing: str) -> str:
            return missing if value is None else cell(value) + mark

        scores = outcome.score_record()
        return {"statistic": self.statistic, "headline": shown(head, "unknown" if not scores else "not recorded"),
                **{key: shown(scores.get(name), "unknown")
                   for key, name in (("arc_prize", "oracle2"), ("oracle1", "oracle1"), ("strict", "strict"))}}

    def check_resumable(self) -> None:
        """RunDirError unless this is a solve run whose config.json has what resuming needs."""
        if self.kind != SOLVE:
            raise RunDirError(f"run {self.run_id} is a {self.kind} run; only solve runs resume")
        if not isinstance(self.recorded.get("settings"), dict) or not isinstance(self.recorded.get("task_ids"), list):
            raise RunDirError(f"{self.rundir.path / 'config.json'}: not a run config arcmemo can resume "
                              "(no settings or task ids)")

    # -- its puzzles ----------------------------------------------------------------------------
    def run_tasks(self) -> TaskSet:
        """The run's puzzles, every one (resume): from its tasks.json, checked against the hash
        config.json recorded; a run from before, from the bundled dataset it named. RunDirError
        when they are not recorded."""
        from arcmemo.run.records.puzzles import PUZZLES_KEY, PuzzlesNotRecorded, bundled, read_puzzles

        record = self.recorded.get(PUZZLES_KEY)
        if isinstance(record, dict):
            taskset = read_puzzles(self.rundir, record)
        else:
            try:
                taskset = bundled(self.settings.get("source"), self.planned)
            except PuzzlesNotRecorded as exc:
                raise RunDirError(f"run {self.run_id}: {exc}") from None
        missing = [t for t in self.planned if t not in {task.id for task in taskset.tasks}]
        if missing:
            raise RunDirError(f"run {self.run_id}: its puzzles lack {len(missing)} of its tasks ({', '.join(missing[:5])})")
        return taskset

    def puzzles(self) -> Puzzles:
        """The run's puzzles and test outputs to draw attempts against (run_tasks); none, with
        why, when they cannot be had."""
        def load() -> Puzzles:
            try:
                taskset = self.run_tasks()
            except RunDirError as exc:
                return Puzzles({}, {}, str(exc))
            return Puzzles({t.id: t for t in taskset.tasks}, dict(taskset.answers))
        return self._once("puzzles", load)


def live(status: dict[str, Any], idle: float | None) -> bool:
    """Whether a run is running and has logged something lately (not stuck)."""
    return status["status"] == RUNNING and not (idle is not None and idle > STALE_AFTER_S)


def run_state(status: dict[str, Any], idle: float | None, lost: int) -> str:
    """running, finished, interrupted...: with the stop reason, a running run that logged nothing
    for STALE_AFTER_S (`idle` seconds since its last event) shown as stuck, and the tasks lost."""
    state = status["status"] + (f": {status['reason']}" if status.get("reason") else "")
    if status["status"] == RUNNING and not live(status, idle):
        state = "running, no event for a while (stuck?)"
    return state + (f" ({lost} lost)" if lost else "")


def read_run(rundir: RunDir | str | Path) -> RunRecord:
    """The run in `rundir` (RunDirError: its config.json cannot be read)."""
    rundir = rundir if isinstance(rundir, RunDir) else RunDir(rundir)
    return RunRecord(rundir, rundir.config())


def find_run(ref: str | Path, root: str | Path = DEFAULT_RUNS_DIR) -> RunRecord:
    """A run by path or by id under `root` (RunDir.find), read."""
    return read_run(RunDir.find(ref, root))


def _summary_object_rows(kind: str, summary: dict[str, Any]) -> list[tuple[str, Any]]:
    """A seed or cheatsheet run's summary in the rows its command printed at its end."""
    from arcmemo.llm import Usage  # only here: `runs list` must not load the model client

    if kind == SEED:
        from arcmemo.run.jobs.seeding import SeedSummary as cls
    else:
        from arcmemo.run.jobs.curating import CheatsheetSummary as cls
    names = {f.name for f in dataclasses.fields(cls)} - {"usage"}
    made = cls(**{k: v for k, v in summary.items() if k in names}, usage=Usage.from_dict(summary.get("usage") or {}))
    rows: list[tuple[str, Any]] = list(made.rows())
    if summary.get("problems"):
        rows.append(("problems", len(summary["problems"])))
    return rows


__all__ = ["CHEATSHEET", "NoSuchTask", "NothingToExport", "Puzzles", "RunRecord", "RunTask", "SEED", "SELECT", "SOLVE",
           "STALE_AFTER_S", "find_run", "live", "read_run", "run_state"]
