"""A task's candidate answers: every answer its threads' model made and every fit of memory's probe,
each carrying where it came from (`Origin`), so "solved" always says by what.

Memory's fits (stages/probe.py) join each thread's attempts first and the thread's predictions
are chosen again over all of them, by the train-only rule (arcmemo.core.choice); they are
labelled as memory's (FIT_LABEL) and never taught to memory (probe.model_steps).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arcmemo.core.choice import FIT_LABEL, describe_origin, top_predictions
from arcmemo.solverkit import Attempt

if TYPE_CHECKING:
    from arcmemo.run.stages.threads import ThreadRun


@dataclass(frozen=True)
class Origin:
    """Where an answer came from: the model's program (its thread, sample and retry round) or
    memory's fit (the helper call that gave every train output)."""

    by: str                       # "model" | "memory"
    thread: int | None = None
    sample: int | None = None
    round: int | None = None
    call: str | None = None

    def record(self) -> dict[str, Any]:
        """As the task event keeps it (TaskOutcome.origins)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}

    def describe(self) -> str:
        return describe_origin(self.record())


def origin_of(attempt: Attempt, thread: int) -> Origin:
    if attempt.label == FIT_LABEL:
        return Origin(by="memory", call=attempt.raw)
    return Origin(by="model", thread=thread, sample=attempt.sample, round=attempt.round)


def with_memory_answers(runs: Sequence[ThreadRun], answers: Sequence[Attempt], n_tests: int) -> list[ThreadRun]:
    """Each thread with memory's fits first among its attempts and its predictions chosen again
    over all of them (train verdicts only)."""
    if not answers:
        return list(runs)
    merged = []
    for run in runs:
        attempts = [*answers, *run.result.attempts]
        result = dataclasses.replace(run.result, attempts=attempts, predictions=top_predictions(attempts, n_tests))
        merged.append(dataclasses.replace(run, result=result))
    return merged


__all__ = ["Origin", "origin_of", "describe_origin", "with_memory_answers"]
