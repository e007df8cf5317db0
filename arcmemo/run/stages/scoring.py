"""Scoring, a task's last stage and the only one that reads its test outputs: the submitted
attempts' scores, and each thread's steps with their verdicts on the test inputs (what the
paper's Table 4 is computed from). Nothing here feeds back into solving, except, under the
released code's protocol (retry_when=test-fails), a yes or no per attempt (`retry_judge`):
such a run is marked test-informed (run/protocol.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arcmemo.core.tasks import to_lists
from arcmemo.run.config import RunConfig
from arcmemo.run.stages.read import selection_level
from arcmemo.run.stages.threads import ThreadRun
from arcmemo.scoring import TaskScore, attempts_from_predictions, score_task, step_verdicts


def retry_judge(config: RunConfig, answers: Any | None) -> Callable[[Any], bool] | None:
    """retry_when=test-fails: whether an attempt's thread retries, from its test outputs scored
    here (a yes or no is all the solver gets back); None: the solver's train-pair rule."""
    if config.protocol.retry_when != "test-fails":
        return None
    return lambda attempt: not all(step_verdicts(list(attempt.test_outputs or []), answers))


def score(predictions: Sequence[Sequence[Any]], answers: Any | None) -> TaskScore | None:
    """The submitted attempts' scores (None: the run solves without scoring)."""
    return score_task(attempts_from_predictions(predictions), answers) if answers else None


def thread_record(run: ThreadRun, n_tests: int, answers: Any | None) -> dict[str, Any]:
    """What the event log keeps of a thread: its selection's outcome and every step, each
    with its verdict per test input when the run scores (`test_correct`, else None) and
    whether its answer was cut at the token limit (`cut`)."""
    steps = []
    for a in run.result.attempts:
        outputs = list(a.test_outputs or [])[:n_tests]
        outputs += [None] * (n_tests - len(outputs))
        steps.append({
            "sample": a.sample, "round": a.round, "label": a.label, "code": a.code, "error": a.error,
            "helpers_called": list(getattr(a, "helpers_called", []) or []), "cut": bool(getattr(a, "cut", False)),
            "passed_train": a.passed_train, "train_correct": list(a.train_correct),
            "train_cell_accuracy": a.train_cell_accuracy,
            "test_outputs": [None if g is None else to_lists(g) for g in outputs],
            "test_correct": list(step_verdicts(outputs, answers)) if answers else None,
        })
    selection = run.selection
    return {"thread": run.thread, "selected": list(selection.concept_ids), "level": selection_level(selection),
            "fallback": bool(selection.fallback), "passed_train": bool(run.result.passed_train),
            "error": run.error, "steps": steps, "reselections": list(run.reselections)}


__all__ = ["retry_judge", "score", "thread_record"]
