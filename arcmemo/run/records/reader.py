"""Any run directory read as what its kind holds, for every view of runs (`runs list/show/
compare/report/export`, the web page).

- solve: its summary; a solve run stopped before writing one (killed, or still running)
  gets a partial summary from its event log — the tasks done so far, scored the same way
  (`partial_summary`) — so it can be shown and compared, marked as not finished;
- seed and cheatsheet: the counts their summary holds (or, without one, what their
  verify / ingest / curate events say);
- select (`arcmemo select --record`): the selections it recorded.

A run's state is its status (status.json and the lock: running, finished, stopped, failed,
interrupted), never guessed from whether it has a summary: seed and cheatsheet runs write
theirs when they are interrupted too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from arcmemo.run.records.report import score_of, summary_rows
from arcmemo.run.records.rundir import RunDir, RunDirError
from arcmemo.scoring.runscore import RunScore

SOLVE, SEED, CHEATSHEET, SELECT = "solve", "seed", "cheatsheet", "select"


class NothingToExport(RunDirError):
    """A run without predictions (not a solve run, or one that finished no task)."""


@dataclass
class RunRecord:
    """One run: its config, status and summary (`partial` when rebuilt from its events)."""

    rundir: RunDir
    config: dict[str, Any]
    status: dict[str, Any]
    summary: dict[str, Any] | None
    partial: bool = False

    @property
    def run_id(self) -> str:
        return self.rundir.run_id

    @property
    def kind(self) -> str:
        return self.config.get("kind", SOLVE)

    @property
    def state(self) -> str:
        """finished, running, interrupted...; with the stop reason and the tasks lost, if any."""
        state = self.status["status"] + (f": {self.status['reason']}" if self.status.get("reason") else "")
        lost = (self.summary or {}).get("tasks_lost")
        return state + (f" ({len(lost)} lost)" if lost else "")

    @cached_property
    def score(self) -> RunScore | None:
        """The run's score (solve runs with a summary, partial or not); None for other kinds."""
        if self.kind != SOLVE or self.summary is None:
            return None
        return score_of(self.config, self.summary)

    def rows(self) -> list[tuple[str, Any]]:
        """(label, value) rows of what the run holds, by its kind."""
        if self.summary is None:
            return [("state", self.state), *_event_rows(self.rundir)]
        if self.kind == SOLVE:
            return summary_rows(self.summary, self.config)
        if self.kind in (SEED, CHEATSHEET):
            return _summary_object_rows(self.kind, self.summary)
        if self.kind == SELECT:
            records = self.rundir.selections()
            return [("selections recorded", len(records)),
                    ("tasks", len({r.get("task_id") for r in records})),
                    ("concepts offered", len({c for r in records for c in r.get("concepts") or []}))]
        return [(k, v) for k, v in self.summary.items() if not isinstance(v, (dict, list))]

    def brief(self) -> str:
        """What the run did, in a few words (the `tasks` column of `runs list`)."""
        s = self.summary or {}
        if self.kind == SOLVE:
            return f"{s['tasks']} of {s['tasks_planned']}" if self.summary else "-"
        if self.kind == SEED:
            return f"{s.get('verified', '?')} of {s.get('files', '?')} seeds, {s.get('concepts_added', 0)} concepts added"
        if self.kind == CHEATSHEET:
            return f"{s.get('verified', '?')} of {s.get('files', '?')} seeds, {s.get('sheet_words', 0)} words"
        if self.kind == SELECT:
            return f"{len(self.rundir.selections())} selection(s)"
        return "-"

    def check_exportable(self) -> None:
        """NothingToExport unless the run has predictions to hand on."""
        if self.kind != SOLVE:
            raise NothingToExport(f"run {self.run_id} is a {self.kind} run: it made no predictions to export "
                                  "(export a solve run)")
        if not any(self.rundir.submissions.glob("*.json")):
            raise NothingToExport(f"run {self.run_id} has no predictions to export (no task finished with a "
                                  f"submission; it is {self.state})")


def read_run(rundir: RunDir) -> RunRecord:
    """A run as its kind holds it (module docstring)."""
    config, status = rundir.config(), rundir.status()
    summary = rundir.summary()
    if summary is None and config.get("kind", SOLVE) == SOLVE:
        return RunRecord(rundir, config, status, partial_summary(rundir, config), partial=True)
    return RunRecord(rundir, config, status, summary)


def partial_summary(rundir: RunDir, config: dict[str, Any]) -> dict[str, Any]:
    """What a solve run's events hold before its summary exists: its tasks so far, scored as
    Runner._summary scores them (each task's latest pass)."""
    from arcmemo.run.records.outcome import TaskOutcome
    from arcmemo.run.records.scores import outcome_scores, per_task_scores
    from arcmemo.run.records.summary import total_usage

    settings = config.get("settings", {})
    threads, retries = int(settings.get("threads", 1)), int(settings.get("retries", 0))
    latest: dict[str, TaskOutcome] = {}
    usages = []
    for event in rundir.events():
        if event.get("type") == "task":
            outcome = latest[event["task_id"]] = TaskOutcome.from_event(event)
            usages.append(outcome.usage)
        elif event.get("type") in ("write", "task_lost", "write_lost"):
            usages.append(event.get("usage", {}))
    outcomes = list(latest.values())
    return {
        "run_id": rundir.run_id, "tasks": len(latest), "tasks_planned": len(config.get("task_ids") or []),
        **outcome_scores(outcomes, threads, retries),
        "scored": all(o.scores for o in outcomes) if outcomes else None,
        "passed_train": sorted(t for t, o in latest.items() if o.passed_train),
        "solved": sorted(t for t, o in latest.items() if o.scores.get("oracle2") == 1),
        "per_task": per_task_scores(latest, threads, retries),
        "threads": threads, "retries": retries, "usage": total_usage(usages).to_dict(),
        "partial": True,
    }


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


def _event_rows(rundir: RunDir) -> list[tuple[str, Any]]:
    """What a run without a summary (killed) did, counted from its events."""
    counts: dict[str, list[int]] = {}
    for event in rundir.events():
        kind = event.get("type", "?")
        ok = event.get("ok", not event.get("error") and not event.get("failed"))
        row = counts.setdefault(kind, [0, 0])
        row[0 if ok else 1] += 1
    return [(f"{kind} events (ok, failed)", f"{ok}, {bad}") for kind, (ok, bad) in counts.items()]


__all__ = ["CHEATSHEET", "NothingToExport", "RunRecord", "SEED", "SELECT", "SOLVE", "partial_summary", "read_run"]
