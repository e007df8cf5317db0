"""The strict score as the ArcMemo authors' released driver logs it, beside arcmemo's.

arcmemo's strict score (threads.py, the paper's Table 5) is *test-only, any step*: a thread
solves a puzzle at retry depth d if one of its steps up to d gave every test output. The
released driver logs *train and test, last step*: a thread solves a puzzle at depth d if
its last step up to d is right on every train pair and every test input (a thread that
stopped early keeps its last step). Per depth and k = 1..N both are means over the
k-subsets of threads (a subset solves a puzzle if one of its threads does), in percent;
the released driver's number is the k = N column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arcmemo.scoring.scores import oracle_at_k

STRICT_VARIANTS = ("test-any-step", "train-test-last-step")


@dataclass(frozen=True)
class Step:
    """One answer of a thread, as scoring sees it."""

    depth: int                      # its retry depth (0: the first answer)
    sample: int                     # which sample of the thread (each its own retry chain)
    passed_train: bool
    test_correct: tuple[bool, ...]  # per test input


@dataclass(frozen=True)
class LastStepTable:
    """strict[d][k - 1]: train-and-test, last-step strict score at retry depth d, in percent."""

    threads: int
    retries: int
    puzzles: int
    strict: tuple[tuple[float, ...], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"variant": STRICT_VARIANTS[1], "threads": self.threads, "retries": self.retries,
                "puzzles": self.puzzles, "strict": self.strict}


def _solved_at(steps: Sequence[Step], depth: int) -> bool:
    """Whether a thread's last step up to `depth` (of any of its samples) is right on everything."""
    last: dict[int, Step] = {}
    for step in steps:
        if step.depth <= depth and (step.sample not in last or step.depth >= last[step.sample].depth):
            last[step.sample] = step
    return any(s.passed_train and s.test_correct and all(s.test_correct) for s in last.values())


def last_step_table(puzzles: Sequence[Sequence[Sequence[Step]]], threads: int, retries: int) -> LastStepTable:
    """The released driver's strict score for every depth 0..retries and k = 1..threads, from
    `puzzles[p][thread]`: that thread's steps."""
    if not puzzles:
        raise ValueError("last_step_table: no puzzles to score")
    for i, puzzle in enumerate(puzzles):
        if len(puzzle) != threads:
            raise ValueError(f"last_step_table: puzzle {i} has {len(puzzle)} threads, expected {threads}")
    rows = []
    for depth in range(retries + 1):
        solved = [[[_solved_at(steps, depth)] for steps in puzzle] for puzzle in puzzles]
        rows.append(tuple(100 * sum(oracle_at_k(m, k) for m in solved) / len(puzzles) for k in range(1, threads + 1)))
    return LastStepTable(threads=threads, retries=retries, puzzles=len(puzzles), strict=tuple(rows))


def steps_from_records(records: Sequence[dict[str, Any]], retries: int) -> list[list[Step]] | None:
    """A puzzle's threads as a run's event log records them (run/stages/threads.py thread_record); None
    when a step has no test verdicts (the run did not score)."""
    threads = []
    for record in records:
        steps = []
        for s in record["steps"]:
            if s.get("test_correct") is None:
                return None
            steps.append(Step(depth=min(s["round"], retries), sample=s.get("sample", 0),
                              passed_train=bool(s["passed_train"]), test_correct=tuple(s["test_correct"])))
        threads.append(steps)
    return threads


__all__ = ["STRICT_VARIANTS", "Step", "LastStepTable", "last_step_table", "steps_from_records"]
