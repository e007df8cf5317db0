"""The choice of submitted answers: two grids per test input from a task's candidates, by the
train-only rule (arcmemo.core.choice), and where each submitted grid came from.

What is submitted comes from the threads' final programs: each thread's best answer (its
passing program, else its highest train-cell accuracy) ranked by arcmemo.core.choice (train
verdicts only), the distinct grids in that order; a test input left with fewer than two grids
is filled from the threads' own second choices, thread by thread (`submitted_predictions`).
With one thread this is the solver's own top two. Memory's fits are candidates like the
model's answers (candidates.py), ranked by the same rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arcmemo.core.choice import SUBMITTED, rank
from arcmemo.core.tasks import Grid, Task, as_grid
from arcmemo.run.stages.candidates import origin_of
from arcmemo.scoring import ThreadFinal, submitted_attempts
from arcmemo.solverkit import SolveResult

if TYPE_CHECKING:
    from arcmemo.run.stages.threads import ThreadRun


def predictions_of(result: SolveResult, task: Task) -> list[list[Grid]]:
    """The solver's predictions as Grids (what scoring and the submission take), one list per
    test input; anything that is not a valid grid is dropped."""
    per_test = list(result.predictions or [])[: len(task.test_inputs)]
    per_test += [[] for _ in range(len(task.test_inputs) - len(per_test))]
    return [[g for g in (as_grid(p) for p in grids or []) if g is not None][:SUBMITTED] for grids in per_test]


def _final(run: ThreadRun, n_tests: int) -> ThreadFinal | None:
    attempts = run.result.attempts
    if not attempts:
        return None
    best = attempts[rank(attempts)[0]]
    outputs = list(best.test_outputs or [])[:n_tests] + [None] * max(0, n_tests - len(best.test_outputs or []))
    return ThreadFinal(thread=run.thread, passed_train=best.passed_train, train_cell_accuracy=best.train_cell_accuracy,
                       test_outputs=tuple(as_grid(g) if g is not None else None for g in outputs))


def best_thread(runs: Sequence[ThreadRun], n_tests: int) -> ThreadRun:
    """The thread whose final program ranks first (the one the memory write learns from)."""
    finals = [(r, _final(r, n_tests)) for r in runs]
    ranked = [(r, f) for r, f in finals if f is not None]
    if not ranked:
        return runs[0]
    return ranked[rank([f for _, f in ranked])[0]][0]


def submitted_predictions(runs: Sequence[ThreadRun], task: Task) -> list[list[Grid]]:
    """attempt_1, attempt_2 per test input from all threads (module docstring)."""
    n_tests = len(task.test_inputs)
    finals = [f for f in (_final(r, n_tests) for r in runs) if f is not None]
    chosen = submitted_attempts(finals, n_tests) if finals else [[] for _ in range(n_tests)]
    own = [predictions_of(r.result, task) for r in runs]
    merged = []
    for j in range(n_tests):
        grids = list(dict.fromkeys([*chosen[j], *(g for p in own for g in p[j])]))
        merged.append(grids[:SUBMITTED])
    return merged


@dataclass
class Choice:
    """What a task submits: per test input up to two grids, best first, and where each came from
    (an Origin record per grid: the model's program or memory's fit)."""

    predictions: list[list[Grid]]
    origins: list[list[dict[str, Any]]] = field(default_factory=list)


def choose(runs: Sequence[ThreadRun], task: Task) -> Choice:
    """The submitted grids of a task's threads (their attempts with memory's fits among them) and
    each grid's origin: the best-ranked candidate that made it."""
    predictions = submitted_predictions(runs, task)
    candidates = [(a, r.thread) for r in runs for a in r.result.attempts]
    order = rank([a for a, _ in candidates]) if candidates else []
    origins = []
    for j, grids in enumerate(predictions):
        row = []
        for grid in grids:
            made = next((candidates[i] for i in order if _output(candidates[i][0], j) == grid), None)
            row.append(origin_of(*made).record() if made is not None else {"by": "unknown"})
        origins.append(row)
    return Choice(predictions=predictions, origins=origins)


def _output(attempt: Any, j: int) -> Grid | None:
    outputs = list(attempt.test_outputs or [])
    return as_grid(outputs[j]) if j < len(outputs) and outputs[j] is not None else None


__all__ = ["Choice", "choose", "best_thread", "predictions_of", "submitted_predictions"]
