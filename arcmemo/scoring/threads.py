"""The paper's scores of one run with N independent threads (appendix B, Tables 4 and 5).

A thread is one sample and its retry chain; step d of a thread is its answer at retry
depth d (d = 0 is the first answer, at most R retries). A thread that passed the train
pairs early has no later steps: what it solved stays solved.

At retry depth d, for k = 1..N:

- **oracle@k**: the mean over the k-subsets C of the threads of the run's score, where a
  test input counts as solved by C if any step up to d of any thread in C solved it, a
  puzzle scores the fraction of its test inputs solved, and the run's score is the mean
  over its puzzles, in percent. k = 2 is the paper's official score, which every view headlines
  (at the full retry depth: runscore.py).
- **strict@k**: the same, but C solves a puzzle (1 or 0) only if one step of one thread
  in C — a single program — solved every test input of it.

The means are exact (for a test input solved by m of N threads, the fraction of k-subsets
holding one of them is 1 - C(N-m, k) / C(N, k)); the spread across the k-subsets (the
paper's bracketed standard deviation, sample std) is computed from the subsets themselves
when there are at most `MAX_SUBSETS` of them. The paper's "individual run scores" are the
k = 1 subsets: `per_thread[d][i]`.

What is submitted for ARC Prize (two attempts per test input) is chosen from the threads'
final programs by `submitted_attempts`, with arcmemo.core.choice's rule: threads whose
program passed every train pair first, then higher train-cell accuracy, then programs
with an output for every test input, then lower thread number; per test input the
distinct grids in that order (equal-ranked grids: the one more threads agree on first),
the first two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb
from statistics import stdev
from typing import Any

from arcmemo.core.choice import top_predictions
from arcmemo.core.tasks import Grid
from arcmemo.scoring.scores import oracle_at_k, score_task

MAX_SUBSETS = 1000

Verdicts = tuple[bool, ...]     # per test input: did this step's program produce its output


@dataclass(frozen=True)
class PuzzleThreads:
    """One puzzle's steps: `threads[i][d]` is thread i's verdicts at retry depth d."""

    task_id: str
    n_tests: int
    threads: tuple[tuple[Verdicts, ...], ...]


@dataclass(frozen=True)
class DepthTable:
    """Table 4 (and 5) for one run: rows retry depth 0..R, columns k = 1..N, in percent."""

    threads: int
    retries: int
    puzzles: int
    oracle: tuple[tuple[float, ...], ...]              # oracle[d][k - 1]
    oracle_std: tuple[tuple[float | None, ...], ...]   # None: one subset, or too many to list
    strict: tuple[tuple[float, ...], ...]
    strict_std: tuple[tuple[float | None, ...], ...]
    per_thread: tuple[tuple[float, ...], ...]          # per_thread[d][i]: thread i alone (oracle@1)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class ThreadFinal:
    """A thread's final program as the submission choice sees it (train verdicts only)."""

    thread: int
    passed_train: bool
    train_cell_accuracy: float
    test_outputs: tuple[Grid | None, ...]


def _check(puzzle: PuzzleThreads, threads: int, retries: int) -> None:
    where = f"puzzle {puzzle.task_id}"
    if puzzle.n_tests < 1:
        raise ValueError(f"{where}: a puzzle has at least one test input")
    if len(puzzle.threads) != threads:
        raise ValueError(f"{where}: {len(puzzle.threads)} threads, expected {threads} (a thread without "
                         "steps is an empty tuple)")
    for i, steps in enumerate(puzzle.threads):
        if len(steps) > retries + 1:
            raise ValueError(f"{where} thread {i}: {len(steps)} steps, more than {retries + 1} (0..{retries} retries)")
        for d, verdicts in enumerate(steps):
            if len(verdicts) != puzzle.n_tests:
                raise ValueError(f"{where} thread {i} step {d}: {len(verdicts)} verdicts, expected {puzzle.n_tests}")


def _solved_up_to(steps: tuple[Verdicts, ...], depth: int, n_tests: int) -> tuple[list[bool], bool]:
    """(per test input: solved by a step <= depth, whether one step <= depth solved them all)."""
    solved, strict = [False] * n_tests, False
    for verdicts in steps[: depth + 1]:
        solved = [a or b for a, b in zip(solved, verdicts)]
        strict = strict or all(verdicts)
    return solved, strict


def _matrices(puzzle: PuzzleThreads, depth: int) -> tuple[list[list[bool]], list[list[bool]]]:
    """At `depth`: correct[thread][test] and the one-column strict[thread] matrix."""
    rows = [_solved_up_to(steps, depth, puzzle.n_tests) for steps in puzzle.threads]
    return [solved for solved, _ in rows], [[strict] for _, strict in rows]


def _cell(matrices: Sequence[list[list[bool]]], k: int) -> float:
    """One cell of the table: the mean over puzzles of oracle@k of their matrices, in percent."""
    return 100 * sum(oracle_at_k(m, k) for m in matrices) / len(matrices)


def headline_cell(puzzles: Sequence[PuzzleThreads], threads: int, retries: int, k: int) -> tuple[float, float]:
    """(oracle@k, strict@k) at retry depth `retries` alone: the cell of `depth_table` a view
    headlines, without the rest of the table (the running score of a run in progress)."""
    if not puzzles:
        raise ValueError("headline_cell: no puzzles to score")
    for puzzle in puzzles:
        _check(puzzle, threads, retries)
    correct, whole = zip(*(_matrices(p, retries) for p in puzzles))
    return _cell(correct, k), _cell(whole, k)


def _subset_scores(matrices: list[list[list[bool]]], threads: int, k: int) -> list[float] | None:
    """The run's score (percent) for each k-subset of threads, or None if there are too many."""
    if comb(threads, k) > MAX_SUBSETS:
        return None
    scores = []
    for subset in combinations(range(threads), k):
        total = sum(sum(any(m[i][t] for i in subset) for t in range(len(m[0]))) / len(m[0]) for m in matrices)
        scores.append(100 * total / len(matrices))
    return scores


def depth_table(puzzles: Sequence[PuzzleThreads], threads: int, retries: int) -> DepthTable:
    """The paper's Table 4 block (oracle@k) and Table 5 block (strict) for one run."""
    if threads < 1 or retries < 0:
        raise ValueError(f"depth_table: need threads >= 1 and retries >= 0, got {threads} and {retries}")
    if not puzzles:
        raise ValueError("depth_table: no puzzles to score")
    for puzzle in puzzles:
        _check(puzzle, threads, retries)
    oracle, oracle_std, strict, strict_std, per_thread = [], [], [], [], []
    for depth in range(retries + 1):
        correct, whole = zip(*(_matrices(p, depth) for p in puzzles))
        rows: dict[str, list] = {"oracle": [], "oracle_std": [], "strict": [], "strict_std": []}
        for k in range(1, threads + 1):
            for name, matrices in (("oracle", correct), ("strict", whole)):
                rows[name].append(_cell(matrices, k))
                spread = _subset_scores(list(matrices), threads, k)
                rows[name + "_std"].append(stdev(spread) if spread and len(spread) > 1 else None)
        oracle.append(tuple(rows["oracle"]))
        oracle_std.append(tuple(rows["oracle_std"]))
        strict.append(tuple(rows["strict"]))
        strict_std.append(tuple(rows["strict_std"]))
        per_thread.append(tuple(_subset_scores(list(correct), threads, 1) or ()))
    return DepthTable(threads=threads, retries=retries, puzzles=len(puzzles), oracle=tuple(oracle),
                      oracle_std=tuple(oracle_std), strict=tuple(strict), strict_std=tuple(strict_std),
                      per_thread=tuple(per_thread))


def step_verdicts(test_outputs: Sequence[Any], answers: Any) -> Verdicts:
    """Per test input: did this step's output equal the expected one (scores.score_task's test)."""
    (row,) = score_task([list(test_outputs)], answers).correct
    return row


def puzzle_from_steps(task_id: str, n_tests: int, threads: Sequence[Sequence[tuple[int, Verdicts]]]) -> PuzzleThreads:
    """A puzzle's threads from their recorded steps, `(retry depth, verdicts)` each: a thread's
    verdicts at depth d are those of its steps at d (several samples of one thread are ORed)."""
    built = []
    for steps in threads:
        depths = 1 + max((d for d, _ in steps), default=-1)
        rows = [[False] * n_tests for _ in range(depths)]
        for d, verdicts in steps:
            rows[d] = [a or bool(b) for a, b in zip(rows[d], verdicts)]
        built.append(tuple(tuple(row) for row in rows))
    return PuzzleThreads(task_id, n_tests, tuple(built))


def submitted_attempts(finals: Sequence[ThreadFinal], n_tests: int) -> list[list[Grid]]:
    """attempt_1, attempt_2 per test input from the threads' final programs (module doc)."""
    ordered = sorted(finals, key=lambda f: f.thread)
    return top_predictions(ordered, n_tests)
