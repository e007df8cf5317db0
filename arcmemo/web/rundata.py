"""A run directory read for pages and reports, also while the run is still writing it.

Everything comes from the run directory (arcmemo.run.records.rundir): config.json, the event log,
summary.json. The truth (test outputs) is loaded here only to draw attempts against it
for the user; nothing read here goes back to a model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from arcmemo.core.table import cell
from arcmemo.core.tasks import Answers, Task, TaskError
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig, load_run_tasks
from arcmemo.run.protocol import test_informed
from arcmemo.run.records.outcome import TaskOutcome
from arcmemo.run.records.reader import RunRecord, read_run
from arcmemo.run.records.report import score_of
from arcmemo.run.records.rundir import RUNNING, RunDir, RunDirError
from arcmemo.run.records.scores import outcome_scores, task_headline
from arcmemo.scoring.runscore import RunScore, headline_name
from arcmemo.web.lookup import run_dirs

STALE_AFTER_S = 300  # an unfinished run with no event for this long is reported as stopped or killed


@dataclass
class TaskRecord:
    """One task of a run: its latest outcome, every pass, what memory offered, what was written."""

    task_id: str
    outcome: TaskOutcome
    passes: list[TaskOutcome]
    writes: list[dict]
    selections: list[dict] = field(default_factory=list)


class RunView:
    """One run, read once from its directory (make a new view to see new events). `memory`: the
    memory the run read, for the selection records runs kept there before the run directory."""

    def __init__(self, rundir: RunDir, memory: Memory | None = None):
        self.rundir = rundir
        self.config = rundir.config()
        self.summary = rundir.summary()
        self.events = list(rundir.events())
        self.memory = memory

    @cached_property
    def record(self) -> RunRecord:
        """The run as its kind holds it (arcmemo.run.records.reader): kind, status, rows to show."""
        return read_run(self.rundir)

    @property
    def kind(self) -> str:
        return self.config.get("kind", "solve")

    @property
    def threads(self) -> int:
        return int(self.settings.get("threads", 1))

    @property
    def retries(self) -> int:
        return int(self.settings.get("retries", 0))

    @property
    def statistic(self) -> str:
        """The name of the run's headline: oracle@2, or oracle@1 (one thread)."""
        return headline_name(self.threads)

    def score(self) -> RunScore | None:
        """The run's score (solve runs): its summary's, or, before it has one, its tasks' so far."""
        if self.kind != "solve":
            return None
        summary = self.summary or {"tasks": len(self.latest),
                                   **outcome_scores(self.latest.values(), self.threads, self.retries, table=False)}
        return score_of(self.config, summary)

    def task_scores(self, outcome: TaskOutcome) -> dict[str, Any]:
        """One task's scores as cells: its headline over its threads, then the submitted attempts'
        (marked † in a test-informed run)."""
        mark = " †" if test_informed(self.config) else ""
        head = task_headline(outcome, self.threads, self.retries)

        def shown(value: float | None, missing: str) -> str:
            return missing if value is None else cell(value) + mark

        unscored = "unknown" if not outcome.scores else None
        return {"statistic": self.statistic, "headline": shown(head, unscored or "not recorded"),
                **{key: shown(outcome.scores.get(name), "unknown")
                   for key, name in (("arc_prize", "oracle2"), ("oracle1", "oracle1"), ("strict", "strict"))}}

    @classmethod
    def find(cls, ref: str, runs_root: str | Path, memory: Memory | None = None) -> RunView:
        return cls(RunDir.find(ref, runs_root), memory)

    @property
    def run_id(self) -> str:
        return self.rundir.run_id

    @property
    def settings(self) -> dict[str, Any]:
        return self.config.get("settings", {})

    @property
    def label(self) -> str:
        """How charts name the run: its selection mode and solver model, then its id."""
        model = self.config.get("models", {}).get("solver", "?")
        return f"{self.settings.get('selection', '?')} · {model} · {self.run_id}"

    @property
    def planned(self) -> list[str]:
        return list(self.config.get("task_ids", []))

    @cached_property
    def outcomes(self) -> list[TaskOutcome]:
        """Every task outcome in the order the run finished them."""
        return [TaskOutcome.from_event(e) for e in self.events if e.get("type") == "task"]

    @cached_property
    def latest(self) -> dict[str, TaskOutcome]:
        """Each task's outcome in its latest pass, in the run's task order."""
        found: dict[str, TaskOutcome] = {}
        for outcome in self.outcomes:
            found[outcome.task_id] = outcome
        order = {t: i for i, t in enumerate(self.planned)}
        return dict(sorted(found.items(), key=lambda item: order.get(item[0], len(order))))

    @property
    def writes(self) -> list[dict]:
        return [e for e in self.events if e.get("type") == "write"]

    def task(self, task_id: str) -> TaskRecord:
        if task_id not in self.latest:
            raise RunDirError(f"run {self.run_id} has no finished task {task_id!r}")
        return TaskRecord(task_id, self.latest[task_id], [o for o in self.outcomes if o.task_id == task_id],
                          [w for w in self.writes if w.get("task_id") == task_id], self.selections(task_id))

    def selections(self, task_id: str) -> list[dict]:
        """What memory selection offered the task and why, as plain dicts (task_id, pass_index,
        mode, concept_ids, reasoning, unmatched, fallback, error): from the run directory, or
        for a run from before it kept them there, from the memory."""
        fields = ("task_id", "pass_index", "mode", "concept_ids", "reasoning", "unmatched", "fallback", "error",
                  "named_types")
        kept = [r for r in self.rundir.selections() if r.get("task_id") == task_id]
        if kept:
            return [{name: r.get(name) for name in fields} for r in kept]
        if self.memory is None:
            return []
        return [{name: getattr(r, name, None) for name in fields} for r in self.memory.selection_records(self.run_id, task_id)]

    def tasks(self) -> list[TaskRecord]:
        return [self.task(t) for t in self.latest]

    @cached_property
    def puzzles(self) -> tuple[dict[str, Task], dict[str, Answers]]:
        """The run's tasks and their answers (for drawing attempts against the truth); empty when
        the tasks cannot be loaded any more (a moved task file)."""
        try:
            config = RunConfig.from_dict({**self.settings, "task_ids": self.planned})
            taskset = load_run_tasks(config)
        except (TaskError, ValueError, KeyError, OSError):
            return {}, {}
        return {t.id: t for t in taskset.tasks}, dict(taskset.answers)

    def progress(self, now: float | None = None) -> dict[str, Any]:
        """Where the run stands: its state (its status: running, finished, interrupted...), tasks
        done of planned, its score so far (None: unknown), tokens, cost, last event."""
        now = time.time() if now is None else now
        latest = self.latest.values()
        score = self.score()
        tokens = sum(o.usage.get("prompt_tokens", 0) + o.usage.get("completion_tokens", 0) for o in self.outcomes)
        cost = sum(o.usage.get("cost_usd", 0) for o in self.outcomes)
        cost += sum(w.get("usage", {}).get("cost_usd", 0) for w in self.writes)
        last = max((e.get("time", 0) for e in self.events), default=None)
        idle = None if last is None else max(0.0, now - last)
        status = self.rundir.status()
        state = status["status"] + (f": {status['reason']}" if status.get("reason") else "")
        if status["status"] == RUNNING and idle is not None and idle > STALE_AFTER_S:
            state = "running, no event for a while (stuck?)"
        return {
            "run_id": self.run_id, "kind": self.kind, "state": state, "planned": len(self.planned),
            "done": len(self.latest), "passed_train": sum(o.passed_train for o in latest),
            "score": score.value if score else None, "score_cell": score.cell() if score else "-",
            "statistic": score.name if score else None, "test_informed": bool(score and score.test_informed),
            "arc_prize": score.arc_prize if score else None, "strict": score.strict if score else None,
            "writes": len(self.writes), "tokens": int(tokens), "cost_usd": round(cost, 6),
            "idle_s": None if idle is None else round(idle, 1), "last_task": next(reversed(self.latest), None),
        }


def runs_under(root: str | Path, memory: Memory | None = None) -> list[RunView]:
    """Every readable run directly under `root`, newest first (an unreadable one, or one leading
    out of `root` through a symlink, is skipped)."""
    views = []
    for rundir in reversed(run_dirs(root)):
        try:
            views.append(RunView(rundir, memory))
        except RunDirError:
            continue
    return views
