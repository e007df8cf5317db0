"""One task solved in one pass, as the run's event log keeps it (`TaskOutcome`): what every view,
the write-back and resume read back of a task."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from arcmemo.llm.usage import Usage
from arcmemo.scoring.scores import TaskScore

SCORE_NAMES = ("oracle1", "oracle2", "strict")


def logged_usage(data: Any) -> Usage:
    """A usage as the log keeps it (Usage.to_dict), read back; ValueError unless its counts are numbers."""
    usage = Usage.from_dict(data if isinstance(data, dict) else None)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vars(usage).values()):
        raise ValueError(f"a usage whose counts are not numbers: {str(data)[:120]}")
    return usage


@dataclass
class TaskOutcome:
    """One task solved in one pass, as recorded in the event log."""

    task_id: str
    pass_index: int
    predictions: list[list[Any]]       # per test input: up to two grids, best first
    passed_train: bool
    code: str | None
    reasoning: str
    scores: TaskScore | None           # the submitted attempts' (the log keeps {}: None, not scored)
    usage: Usage                       # every call made for the task
    selected: list[int]
    selection_fallback: bool
    error: str | None = None
    notes: list[str] = field(default_factory=list)   # the solver's remarks (e.g. views dropped for length)
    helpers_offered: list[str] = field(default_factory=list)   # helper functions the solver was offered
    helper_fits: list[str] = field(default_factory=list)       # calls the probe found to give every train output
    fit_answers: list[str] = field(default_factory=list)       # those whose outputs were submitted (--fits-as-answers)
    concept_use: list[dict] = field(default_factory=list)      # per concept: id, name and its use counters
    # Threads (stages/threads.py): every thread's selection and steps, and the task's selection
    # level (the most degraded of its threads'). Runs from before threads have neither.
    threads: list[dict[str, Any]] = field(default_factory=list)
    selection_level: str | None = None
    # The feedback each thread's kept conversation was answered with, per round (methods/experience.py)
    feedback: list[dict[str, Any]] = field(default_factory=list)
    # Per test input, where each submitted grid came from (stages/candidates.py Origin.record()):
    # the model's program (thread, sample, round) or memory's fit (its call). Runs from before have none.
    origins: list[list[dict[str, Any]]] = field(default_factory=list)
    # What broke under the task, by stage (a solver that raised, with its traceback; a sandbox that
    # failed; the probe's or the method's read's errors): counted and named by the run's summary.
    faults: list[dict[str, Any]] = field(default_factory=list)

    @property
    def solved(self) -> bool:
        """Whether the submitted attempts solved every test input (ARC Prize's oracle@2 of 1)."""
        return self.scores is not None and self.scores.oracle2 == 1

    def score_record(self) -> dict[str, float]:
        """The scores as the log keeps them: oracle1, oracle2, strict ({} when not scored)."""
        return {} if self.scores is None else {name: getattr(self.scores, name) for name in SCORE_NAMES}

    def event(self) -> dict[str, Any]:
        """The task event: the fields as they are, plain JSON values (dataclasses.asdict's deep
        copy cost more than the rest of the event's way to the log)."""
        return {"type": "task", **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)},
                "scores": self.score_record(), "usage": self.usage.to_dict()}

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> TaskOutcome:
        """A task event read back: its usage a Usage, its scores a TaskScore (None: not scored)."""
        own = {f.name: event[f.name] for f in dataclasses.fields(cls) if f.name in event}
        scores = own.get("scores") or {}
        own["scores"] = TaskScore(*(float(scores.get(name) or 0) for name in SCORE_NAMES)) if scores else None
        own["usage"] = logged_usage(own.get("usage"))
        return cls(**own)


__all__ = ["SCORE_NAMES", "TaskOutcome", "logged_usage"]
