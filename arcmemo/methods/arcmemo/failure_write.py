"""Lessons from a failure (`--learn-from-failures`): a task whose programs failed its train pairs
after every retry is turned into OE lessons, "when you notice X, check Y", marked as from a failure.

One aux step (step `oe_failure`, prompt oe_failure.txt): the model is shown the puzzle's
example pairs, the program that was tried, how it did on each example and the feedback the
solver was answered with, and asked what the program assumed, why that does not fit, and
for one or two situation/suggestion lessons generalised away from the puzzle's colours and
counts. Everything it is shown comes from the task's Experience, which holds no test
output, prediction or score (methods/contract.py): a failure lesson cannot quote a test
output because none reaches this step.

The lessons merge into the OE memory like any lesson (by content) with meta
`{"from": "failure"}` (failure_lessons.FROM_FAILURE); no solution is stored, as none was
verified. A malformed answer is sent back once, then recorded as the task's write failure,
and nothing is stored.
"""

from __future__ import annotations

from arcmemo.abstraction.failures import failed_write, previous_failures
from arcmemo.abstraction.steps import StepFailed, ask
from arcmemo.core.gridtext import format_task
from arcmemo.core.text import cap
from arcmemo.methods.arcmemo.failure_lessons import FROM_FAILURE
from arcmemo.methods.contract import AttemptView, Experience, WriteEvent
from arcmemo.prompts import keep_tail, render_prompt

STEP = "oe_failure"
STORE_STEP = "oe_failure_store"
PROGRAM_CHARS = 4_000       # the program tried, as the prompt shows it
FEEDBACK_CHARS = 1_500      # the feedback the solver was answered with after it
REASONING_CHARS = 1_000     # the end of the solver's reasoning


def tried(experience: Experience) -> AttemptView | None:
    """The answer the lessons are about: the final program's (its last answer), else the answer
    whose program came closest on the train pairs; None when no answer had a program."""
    with_program = [a for a in experience.attempts if a.program]
    final = [a for a in with_program if a.program == experience.program]
    if final:
        return final[-1]
    return max(with_program, key=lambda a: a.train_cell_accuracy, default=None)


def last_feedback(experience: Experience, attempt: AttemptView | None) -> str:
    """The last feedback the solver was answered with before or after `attempt`, in its chain (the
    final answer of a chain has none after it: the retries ran out)."""
    if attempt is None:
        return ""
    said = [a for a in experience.attempts if (a.thread, a.sample) == (attempt.thread, attempt.sample)
            and a.round <= attempt.round and (a.feedback or "").strip()]
    return max(said, key=lambda a: a.round).feedback.strip() if said else ""


def learns_from_failure(experience: Experience) -> bool:
    """A task whose programs failed its train pairs after every retry, with a program to learn from."""
    return not experience.passed_train and (bool(experience.program) or tried(experience) is not None)


def verdict_text(attempt: AttemptView | None) -> str:
    """How the program did on the example pairs, in a line."""
    if attempt is None or not attempt.train_correct:
        return "It did not give the example outputs." + (f" ({cap(attempt.error, 200)})" if attempt and attempt.error
                                                           else "")
    right = sum(attempt.train_correct)
    return (f"It gave {right} of {len(attempt.train_correct)} example outputs exactly "
            f"({attempt.train_cell_accuracy:.0%} of the cells right)"
            + (f"; error: {cap(attempt.error, 200)}." if attempt.error else "."))


def failure_prompt(experience: Experience) -> str:
    """The oe_failure prompt for a failed task: its train pairs and what was tried on them."""
    attempt = tried(experience)
    program = (attempt.program if attempt is not None else None) or experience.program or ""
    feedback = last_feedback(experience, attempt)
    reasoning = (experience.reasoning or "").strip()
    return render_prompt(
        "oe_failure", puzzle=format_task(experience.task, with_test=False), program=cap(program.strip(), PROGRAM_CHARS),
        verdict=verdict_text(attempt),
        feedback=f"\nThe last feedback the solver was given:\n{cap(feedback, FEEDBACK_CHARS)}\n" if feedback else "",
        reasoning=f"\nThe end of the solver's reasoning:\n{keep_tail(reasoning, REASONING_CHARS)}\n" if reasoning
        else "")


def write_failure_lessons(memory, llm, experience: Experience, *, run_id: str | None) -> WriteEvent:
    """OE lessons from one failed task (module docstring). Never raises for model trouble: a
    failure is recorded (WriteFailure with the raw answer) and returned as a failed event."""
    from arcmemo.abstraction.oe import parse_lessons  # the OE writer: loaded by the first write, not at start-up

    task_id = experience.task_id
    model = llm.model_for("aux")
    sample = previous_failures(memory, task_id, (STEP, STORE_STEP))
    try:
        answer = ask(llm, failure_prompt(experience), parse_lessons, step=STEP, task_id=task_id, sample=sample)
    except StepFailed as exc:
        failed = failed_write(memory, run_id=run_id, task_id=task_id, step=exc.step, model=model, error=exc.error,
                              raw=exc.raw, usage=exc.usage, message=str(exc))
        return WriteEvent(task_id, failed=True, error=failed.error)
    event = WriteEvent(task_id)
    try:
        with memory.transaction():
            for lesson in answer.value:
                merged = memory.merge({**lesson, "meta": dict(FROM_FAILURE)}, actor=model, run_id=run_id,
                                      task_id=task_id, model=model, source="self",
                                      reason="a lesson from a task that failed its train pairs")
                {"added": event.added, "extended": event.extended}.get(merged.action, []).append(merged.concept.name)
    except (ValueError, LookupError) as exc:         # the store refused; the transaction rolled back
        failed = failed_write(memory, run_id=run_id, task_id=task_id, step=STORE_STEP, model=model, error=str(exc),
                              raw=answer.text, usage=answer.usage, message=f"store: {exc}")
        return WriteEvent(task_id, failed=True, error=failed.error)
    return event


__all__ = ["STEP", "STORE_STEP", "failure_prompt", "last_feedback", "learns_from_failure", "tried", "verdict_text",
           "write_failure_lessons"]
