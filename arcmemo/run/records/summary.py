"""A solve run's summary.json, and the lines its progress says of a task and a write: made from
the tasks' latest outcomes and the run's events, so `runs show` can rebuild it from the log."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arcmemo.core.table import counted
from arcmemo.llm import Usage
from arcmemo.memory.store.usage import COUNTERS
from arcmemo.run.config import RunConfig
from arcmemo.run.records.events import Consolidation, MemoryWrite
from arcmemo.run.records.outcome import TaskOutcome
from arcmemo.run.records.scores import outcome_scores, per_task_scores
from arcmemo.selection.types import SELECTION_LEVELS as LEVELS

FAULT_STAGES = ("solver", "sandbox", "probe", "read")


def pass_scores(p: int, latest: Mapping[str, TaskOutcome], config: RunConfig) -> dict[str, Any]:
    """The scores after pass p: at the run's retry depth, or in pass order at the depth pass p
    reached (p - 1: pass 1 is every task's first answer)."""
    depth = p - 1 if config.pass_order else config.retries
    return {"pass": p, "tasks": len(latest), **outcome_scores(latest.values(), config.threads, depth, table=False)}


def fault_counts(outcomes: Iterable[TaskOutcome]) -> dict[str, Any]:
    """How often each stage broke, and under which tasks (a run whose solver or sandbox broke must
    not end with a plain 0)."""
    tasks: dict[str, list[str]] = {}
    for o in outcomes:
        for stage in dict.fromkeys(f.get("stage") for f in o.faults or []):
            tasks.setdefault(stage, []).append(o.task_id)
    return {"faults": {stage: len(ids) for stage, ids in tasks.items()},
            "fault_tasks": {stage: sorted(set(ids)) for stage, ids in tasks.items()}}


def summary(*, run_id: str, config: RunConfig, tasks_planned: int, latest: Mapping[str, TaskOutcome],
            done: Mapping[tuple[int, str], TaskOutcome], per_pass: list[dict[str, Any]],
            writes: Sequence[MemoryWrite], consolidations: Sequence[Consolidation], usage: Usage,
            lost_tasks: Iterable[str], writes_lost: Iterable[str], scored: bool | None,
            failure_lessons: Mapping[str, Any], memory_revision_end: int | None, stopped: str | None,
            wall: float) -> dict[str, Any]:
    """The summary of a solve run (`usage`: everything it paid for, events.run_usage); the
    reader makes an unfinished run's from its log the same way."""
    added = sorted({name for w in writes for name in w.added})
    extended = sorted({name for w in writes for name in w.extended})
    return {
        "run_id": run_id,
        "tasks": len(latest),
        "tasks_planned": tasks_planned,
        **outcome_scores(latest.values(), config.threads, config.retries),  # scoring/runscore.py
        "scored": scored,     # False: no test outputs (or --no-score); scores are None
        "passes": per_pass,
        "passed_train": sorted(t for t, o in latest.items() if o.passed_train),
        "solved": sorted(t for t, o in latest.items() if o.solved),
        "per_task": per_task_scores(dict(latest), config.threads, config.retries),
        "concepts_selected_per_task": round(sum(len(o.selected) for o in done.values()) / (len(done) or 1), 2),
        "selection_fallbacks": sum(o.selection_fallback for o in done.values()),
        "concept_use": {name: sum(row.get(name, 0) for o in done.values() for row in o.concept_use)
                        for name in COUNTERS},
        "probe_fit_tasks": sorted(t for t, o in latest.items() if o.helper_fits),
        "fit_answer_tasks": sorted(t for t, o in latest.items() if o.fit_answers),
        "fit_answers": {t: list(o.fit_answers) for t, o in sorted(latest.items()) if o.fit_answers},   # their calls
        "selection_levels": level_counts(latest.values()),
        "threads": config.threads,
        "retries": config.retries,
        "concepts_added": added,
        "concepts_extended": extended,
        "writes": len(writes),
        "write_failures": sum(w.failed for w in writes),
        "consolidations": len(consolidations),
        "consolidation_usage": sum((c.usage for c in consolidations), Usage()).to_dict(),
        **failure_lessons,
        **fault_counts(latest.values()),
        "tasks_lost": sorted(set(lost_tasks)),
        "writes_lost": sorted(set(writes_lost)),
        "usage": usage.to_dict(),
        "memory_revision_end": memory_revision_end,
        "stopped": stopped,
        "wall_time_s": round(wall, 2),
        "strict_variant": config.protocol.strict_variant,   # the strict score the views show (runscore.py)
    }


def level_counts(outcomes: Iterable[TaskOutcome]) -> dict[str, int]:
    """How many tasks got each selection level (the tasks whose selection had a model step)."""
    counts: dict[str, int] = {}
    for o in outcomes:
        if o.selection_level is not None:
            counts[o.selection_level] = counts.get(o.selection_level, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: LEVELS.index(kv[0]) if kv[0] in LEVELS else len(LEVELS)))


def outcome_line(outcome: TaskOutcome) -> str:
    """What the progress says of a finished task: its verdict, what memory offered, who answered."""
    if not outcome.scores:
        verdict = "passed train pairs (not scored)" if outcome.passed_train else "failed train pairs (not scored)"
    else:
        verdict = ("solved" if outcome.solved else
                   "passed train pairs, wrong on test" if outcome.passed_train else "not solved")
    n = len(outcome.selected)
    answered = f" · answered by memory's fit {', '.join(outcome.fit_answers)}" if outcome.fit_answers else ""
    broke = sorted({f.get("stage") for f in outcome.faults or []})
    faults = f" · broke: {', '.join(broke)}" if broke else ""
    return f"{verdict} · {n} {'concept' if n == 1 else 'concepts'} offered{answered}{faults}"


def write_line(write: MemoryWrite) -> str:
    """What the progress says of a memory write."""
    if write.failed:
        return f"memory write failed: {write.error}"
    dropped, removed = write.types_dropped, write.removed
    return (f"memory: {len(write.added)} added, {len(write.extended)} extended"
            + (f", {len(removed)} removed" if removed else "")
            + (f"; {counted(len(dropped), 'custom type')} not created (over the cap per write)" if dropped else ""))


__all__ = ["summary", "pass_scores", "fault_counts", "level_counts", "outcome_line", "write_line", "FAULT_STAGES"]
