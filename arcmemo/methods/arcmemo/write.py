"""ArcMemo's memory write, shared by its methods (ps, oe, and the none / all baselines): every
task whose program passed every train pair is abstracted into PS concepts or OE lessons, in
the run's memory format (`--memory-format`: oe for the oe method, else ps). With the option
learn_from_failures (ps, oe) a task whose programs failed its train pairs is written too, as
OE lessons from a failure (failure_write.py), in the same task order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arcmemo.abstraction.records import SolutionInput
from arcmemo.methods.arcmemo.failure_write import STEP as FAILURE_STEP
from arcmemo.methods.arcmemo.failure_write import learns_from_failure, write_failure_lessons
from arcmemo.methods.arcmemo.options import ArcMemoOptions
from arcmemo.methods.contract import Experience, WriteContext, WriteEvent, each_experience, guarded

FORMATS = ("ps", "oe")


def passed_train(experience: Experience) -> bool:
    """ArcMemo learns from verified solves only: a program that passed every train pair."""
    return experience.passed_train and bool(experience.program)


def write_arcmemo(experiences: Sequence[Experience], memory: Any, llm: Any, ctx: WriteContext,
                  memory_format: str) -> list[WriteEvent]:
    """PS concepts (memory_format "ps") or OE lessons ("oe") from each passing experience."""
    if memory_format not in FORMATS:
        raise ValueError(f"ArcMemo writes PS concepts or OE lessons, not {memory_format!r}")
    from arcmemo.abstraction import write_oe, write_ps  # the writers: loaded by the first write, not at start-up

    def write_one(experience: Experience) -> WriteEvent:
        solution = SolutionInput(task=experience.task, code=experience.program, origin="self",
                                 reasoning=experience.reasoning)
        if memory_format == "oe":
            result = write_oe(memory, llm, solution, run_id=ctx.run_id, examples=ctx.examples())
        else:
            extra = {} if ctx.memory_tokens is None else {"memory_tokens": ctx.memory_tokens}
            result = write_ps(memory, llm, solution, run_id=ctx.run_id, examples=ctx.examples(),
                              verify_helpers=ctx.verifier(experience.task), **extra)
        return WriteEvent(experience.task_id, added=list(result.added), extended=list(result.extended),
                          failed=bool(result.failed), error=result.error, helpers=list(result.helpers),
                          helper_problems=list(result.helper_problems), types_dropped=list(result.types_dropped))

    def write_failure(experience: Experience) -> WriteEvent:
        return write_failure_lessons(memory, llm, experience, run_id=ctx.run_id)

    failures = ArcMemoOptions.of(ctx.options).learn_from_failures
    events = []
    for experience in each_experience(experiences, ctx, learns_from=lambda e: passed_train(e) or (
            failures and learns_from_failure(e))):
        if passed_train(experience):
            event = guarded(write_one, experience, memory, step=f"{memory_format}_write", run_id=ctx.run_id)
        else:
            event = guarded(write_failure, experience, memory, step=FAILURE_STEP, run_id=ctx.run_id)
        if event is not None:
            events.append(event)
    return events


__all__ = ["write_arcmemo", "passed_train", "FORMATS"]
