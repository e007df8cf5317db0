"""Scoring: oracle@k (the ArcMemo paper, appendix B), the strict score, submission files.

oracle@k for one puzzle with attempts X (|X| = n) and test cases T:

    score = mean over k-subsets C of X of  z(C),   z(C) = (1/|T|) * sum_t 1{some c in C solves t}

Each test case is scored separately; the official ARC-AGI score is k = 2. A puzzle with
fewer attempts than k counts what it has (k is capped at n). The mean over all k-subsets
is computed exactly without enumerating them: for a test case solved by m of the n
attempts, the fraction of k-subsets containing at least one solver is
1 - C(n-m, k) / C(n, k).

The strict score (the paper's "a single program must solve all test cases") uses the same
ensemble average, but a subset earns credit only if one attempt in it solves every test
case of the puzzle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arcmemo.core.tasks import Answers, Grid

OFFICIAL_K = 2


@dataclass(frozen=True)
class TaskScore:
    """Scores of one puzzle; `correct[attempt][test]` is what they were computed from."""

    oracle1: float
    oracle2: float
    strict: float
    correct: tuple[tuple[bool, ...], ...] = ()

    def to_dict(self) -> dict:
        return {"oracle1": self.oracle1, "oracle2": self.oracle2, "strict": self.strict,
                "correct": [list(row) for row in self.correct]}


def _check_matrix(correct: Sequence[Sequence[bool]], k: int, where: str) -> tuple[int, int]:
    if k < 1:
        raise ValueError(f"{where}: k must be at least 1, got {k}")
    n = len(correct)
    if n == 0:
        return 0, 0
    widths = {len(row) for row in correct}
    if len(widths) != 1:
        raise ValueError(f"{where}: every attempt needs one verdict per test case, got lengths {sorted(widths)}")
    t = widths.pop()
    if t == 0:
        raise ValueError(f"{where}: a puzzle has at least one test case")
    return n, t


def _subset_hit_rate(n: int, m: int, k: int) -> float:
    """Fraction of the k-subsets of n attempts that contain at least one of m good ones."""
    return 1.0 - comb(n - m, k) / comb(n, k)


def oracle_at_k(correct: Sequence[Sequence[bool]], k: int = OFFICIAL_K) -> float:
    """oracle@k of one puzzle; `correct[attempt][test_case]`. No attempts scores 0."""
    n, t = _check_matrix(correct, k, "oracle_at_k")
    if n == 0:
        return 0.0
    kk = min(k, n)
    total = 0.0
    for j in range(t):
        m = sum(1 for row in correct if row[j])
        total += _subset_hit_rate(n, m, kk)
    return total / t


def strict_score(correct: Sequence[Sequence[bool]], k: int = OFFICIAL_K) -> float:
    """Like oracle@k, but a subset counts only if one attempt in it solves every test case."""
    n, _ = _check_matrix(correct, k, "strict_score")
    if n == 0:
        return 0.0
    m = sum(1 for row in correct if all(row))
    return _subset_hit_rate(n, m, min(k, n))


def _answer_grids(answers: Answers | Sequence[Any]) -> list[Grid]:
    # imported here: a run's score (runscore.py) needs this module, not the tasks
    from arcmemo.core.tasks import Answers, validate_grid

    outputs = answers.test_outputs if isinstance(answers, Answers) else answers
    name = f"task {answers.task_id}" if isinstance(answers, Answers) else "answers"
    grids = [validate_grid(g, f"{name} test output {i}") for i, g in enumerate(outputs)]
    if not grids:
        raise ValueError(f"score_task: {name} has no test outputs to score against")
    return grids


def score_task(attempts: Sequence[Sequence[Grid | None]], answers: Answers | Sequence[Any]) -> TaskScore:
    """Score `attempts[attempt][test_index]` (None = no prediction) against the answers.

    An attempt with fewer predictions than test inputs is wrong on the missing ones.
    """
    from arcmemo.core.tasks import as_grid

    truth = _answer_grids(answers)
    correct = []
    for attempt in attempts:
        row = []
        for j, expected in enumerate(truth):
            predicted = as_grid(attempt[j]) if j < len(attempt) else None
            row.append(predicted is not None and predicted == expected)
        correct.append(tuple(row))
    return TaskScore(
        oracle1=oracle_at_k(correct, 1),
        oracle2=oracle_at_k(correct, 2),
        strict=strict_score(correct, OFFICIAL_K),
        correct=tuple(correct),
    )


def attempts_from_predictions(per_test: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Submission order (per test input: attempt_1, attempt_2, ...) -> attempts[a][test],
    with None where an attempt has no grid for a test input."""
    n = max((len(p) for p in per_test), default=0)
    return [[p[a] if a < len(p) else None for p in per_test] for a in range(n)]
