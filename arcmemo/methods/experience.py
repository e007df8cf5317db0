"""A finished task's train-only view (`Experience`), built from what the run recorded of it.

The run's task event holds more than a method may see (scores, predictions, each step's
verdict on the test inputs). `experience_of` copies only the train-side fields, by name, into
the Experience; nothing else is carried. It reads the event (a dict), so a resumed run
builds the same experiences from its log as the session that solved the tasks.

The feedback a solver was shown lives in its conversation (the best sample's transcript,
solverkit.Trace); `feedback_of` takes it out per answered round, so the event can keep it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arcmemo.core.choice import rank
from arcmemo.core.tasks import Task
from arcmemo.methods.contract import AttemptView, Experience


def feedback_of(thread: int, attempts: Sequence[Any], transcript: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The feedback messages of a thread's kept conversation (the best answer's sample, as the
    solver kit keeps it): one {thread, sample, round, text} per message, `round` the round of
    the answer it replied to."""
    if not attempts or not transcript:
        return []
    sample = attempts[rank(attempts)[0]].sample
    return [{"thread": thread, "sample": sample, "round": int(entry["round"]) - 1, "text": str(entry["content"])}
            for entry in transcript
            if entry.get("role") == "user" and isinstance(entry.get("round"), int) and entry["round"] > 0
            and isinstance(entry.get("content"), str)]


def _attempts(event: Mapping[str, Any]) -> tuple[AttemptView, ...]:
    said = {(f["thread"], f["sample"], f["round"]): f["text"] for f in event.get("feedback") or []}
    views = []
    for record in event.get("threads") or []:
        thread = int(record.get("thread", 0))
        for step in record.get("steps") or []:
            views.append(AttemptView(
                thread=thread, sample=int(step["sample"]), round=int(step["round"]), program=step.get("code"),
                train_correct=tuple(bool(v) for v in step.get("train_correct") or ()),
                train_cell_accuracy=float(step.get("train_cell_accuracy") or 0.0), error=step.get("error"),
                feedback=said.get((thread, int(step["sample"]), int(step["round"]))), label=step.get("label") or ""))
    return tuple(views)


def experience_of(task: Task, event: Mapping[str, Any]) -> Experience:
    """The Experience of `task` from its task event (runner.TaskOutcome.event())."""
    shown = list(event.get("selected") or []) + [row["id"] for row in event.get("concept_use") or []
                                                   if row.get("offered")]
    return Experience(task=task, pass_index=int(event.get("pass_index", 1)), program=event.get("code"),
                      reasoning=event.get("reasoning") or "", passed_train=bool(event.get("passed_train")),
                      attempts=_attempts(event), shown=tuple(dict.fromkeys(int(i) for i in shown)))


__all__ = ["experience_of", "feedback_of"]
