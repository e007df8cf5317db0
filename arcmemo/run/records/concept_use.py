"""How often memory's concepts were used, counted one way for every view (`concepts stats`, the
web concept page and its list of the runs that offered a concept).

A run that writes memory records its tasks' concept use in the memory (run/loop.py
_record_use; `usage`); a read-only run (a solve without --continual, the quick start's) keeps
it only in its task events. So a concept's counts are the memory's rows plus, for each run in
the runs folder that read this memory and whose use the memory did not record
(`usage_run_ids`), the counts of its task events: the last outcome of each task and pass, a
task and pass counting once per concept. The runs that offered a concept are listed from the
same task events (`offered_by`), a task once per pass, so their tasks add up to its "offered"
(when the runs that wrote the memory are in the runs folder too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arcmemo.memory.store.reads import COUNTERS, ConceptUse


@dataclass(frozen=True)
class TaskUse:
    """One task and pass's concept use rows (TaskOutcome.concept_use: id, name and counters)."""

    task_id: str
    pass_index: int
    rows: tuple[dict[str, Any], ...]

    @property
    def label(self) -> str:
        return self.task_id if self.pass_index <= 1 else f"{self.task_id} (pass {self.pass_index})"


RunUse = tuple[str, Sequence[TaskUse]]       # (run id, its tasks' use)


def task_uses(outcomes: Iterable[Any]) -> tuple[TaskUse, ...]:
    """The concept use of these task outcomes (the last of each task and pass: RunRecord.log.done)."""
    return tuple(TaskUse(o.task_id, int(o.pass_index or 1), tuple(o.concept_use)) for o in outcomes if o.concept_use)


def _per_task(use: TaskUse, merged_into: Mapping[int, int]) -> dict[int, dict[str, int]]:
    """Concept id -> its counters in one task and pass, a concept merged into another counted for
    that one (a counter set if any of its rows set it)."""
    used: dict[int, dict[str, int]] = {}
    for row in use.rows:
        mine = used.setdefault(merged_into.get(row["id"], row["id"]), {})
        for name in COUNTERS:
            mine[name] = max(mine.get(name, 0), int(row.get(name, 0)))
    return used


def outcome_use(uses: Iterable[TaskUse], merged_into: Mapping[int, int] | None = None) -> dict[int, ConceptUse]:
    """Per concept id, the use counts of these tasks (module docstring)."""
    counts: dict[int, ConceptUse] = {}
    for use in uses:
        for concept_id, row in _per_task(use, merged_into or {}).items():
            total = counts.setdefault(concept_id, ConceptUse())
            for name in COUNTERS:
                setattr(total, name, getattr(total, name) + row[name])
    return counts


def offered_by(runs: Iterable[RunUse], concept_id: int, merged_into: Mapping[int, int] | None = None
               ) -> list[tuple[str, list[tuple[str, str]]]]:
    """(run id, the tasks it offered the concept to: (task id, label: "t" or "t (pass 2)")) of the
    runs that did, counted as `outcome_use` counts "offered"."""
    found = []
    for run_id, uses in runs:
        tasks = [(u.task_id, u.label) for u in uses if _per_task(u, merged_into or {}).get(concept_id, {}).get("offered")]
        if tasks:
            found.append((run_id, tasks))
    return found


def concept_use(memory: Any, runs: Iterable[RunUse], concept_ids: Iterable[int] | None = None
                ) -> dict[int, ConceptUse]:
    """Per concept id, its use: the memory's rows, plus each of `runs` (the runs that read this
    memory) whose use the memory did not record (module docstring)."""
    ids = None if concept_ids is None else set(concept_ids)
    own = memory.usage_run_ids()
    merged = memory.merged_into()
    counts = {cid: ConceptUse(**use.as_dict()) for cid, use in memory.usage(concept_ids=ids).items()}
    for run_id, uses in runs:
        if run_id in own:
            continue
        for concept_id, use in outcome_use(uses, merged).items():
            if ids is None or concept_id in ids:
                mine = counts.setdefault(concept_id, ConceptUse())
                for name in COUNTERS:
                    setattr(mine, name, getattr(mine, name) + getattr(use, name))
    return counts


def runs_reading(memory_url: str, runs_dir: str | Path) -> list[RunUse]:
    """The runs in `runs_dir` that read the memory at `memory_url` (as run directories record it:
    core/config.py memory_url_for_record), with their tasks' use; a run that cannot be read is
    left out (`arcmemo runs list` says why)."""
    from arcmemo.core.config import memory_url_for_record
    from arcmemo.run.records.reader import read_run
    from arcmemo.run.records.rundir import RunDirError, list_runs

    wanted = memory_url_for_record(memory_url)
    found = []
    for rundir in list_runs(runs_dir):
        try:
            if (rundir.config() or {}).get("memory_url") != wanted:
                continue
            found.append((rundir.run_id, task_uses(read_run(rundir).log.done.values())))
        except (RunDirError, OSError, ValueError):
            continue
    return found


__all__ = ["TaskUse", "RunUse", "task_uses", "outcome_use", "offered_by", "concept_use", "runs_reading"]
