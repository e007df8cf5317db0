"""What every solver does with a candidate program: run it on the task, rank attempts,
pick the top-2 distinct predictions per test input (the rule is arcmemo.core.choice's,
shared with the run layer), and add up usage.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arcmemo.core.choice import rank, top_predictions
from arcmemo.core.tasks import Grid, Task, cell_accuracy, to_lists, validate_grid
from arcmemo.llm.client import Usage
from arcmemo.sandbox import RunOutcome
from arcmemo.solverkit.reading import ARCMEMO

if TYPE_CHECKING:
    from arcmemo.sandbox import Sandbox
    from arcmemo.solverkit.contract import Attempt

@dataclass(frozen=True)
class PairsCheck:
    """A program checked against (input, output) pairs."""

    outcomes: list[RunOutcome]
    correct: list[bool]
    cell_accuracy: list[float]
    passed_all: bool
    mean_accuracy: float

    @property
    def first_failure(self) -> int | None:
        """Index of the first pair the program got wrong, or None."""
        for i, ok in enumerate(self.correct):
            if not ok:
                return i
        return None


def _pair_parts(pair: Any) -> tuple[Any, Any]:
    if hasattr(pair, "input") and hasattr(pair, "output"):
        return pair.input, pair.output
    if isinstance(pair, dict):
        return pair["input"], pair["output"]
    inp, out = pair
    return inp, out


def run_on_pairs(sb: Sandbox, source: str, pairs: Iterable[Any], *, entry: str = "transform",
                 modules: dict[str, str] | None = None, helpers: str | None = None,
                 timeout_s: float | None = None, reading: str = ARCMEMO) -> PairsCheck:
    """Run a program on the inputs of (input, output) pairs and compare with the outputs.

    `pairs` are `tasks.Pair`s, `{"input", "output"}` dicts or 2-tuples; `helpers` names the
    module of `modules` holding the memory's helpers (Sandbox.run); `reading` is the run's
    answer reading (reading.py), which says how the program runs and what is an output.
    """
    parts = [_pair_parts(p) for p in pairs]
    outcomes = sb.run(source, [i for i, _ in parts], entry=entry, modules=modules, helpers=helpers,
                      timeout_s=timeout_s, reading=reading)
    correct, acc = [], []
    for (_, expected), outcome in zip(parts, outcomes):
        expected = to_lists(validate_grid(expected, "run_on_pairs expected output"))
        if outcome.ok:
            correct.append(outcome.output == expected)
            acc.append(cell_accuracy(outcome.output, expected))
        else:
            correct.append(False)
            acc.append(0.0)
    return PairsCheck(
        outcomes=outcomes,
        correct=correct,
        cell_accuracy=acc,
        passed_all=bool(correct) and all(correct),
        mean_accuracy=sum(acc) / len(acc) if acc else 0.0,
    )


# Errors that mean the program never got to run, so running it on test inputs is pointless.
_NOT_RUNNABLE = {"syntax", "missing_entry"}


@dataclass
class ProgramRun:
    """A program's results on one task: train verdicts and outputs on the test inputs."""

    train_outcomes: list[RunOutcome] = field(default_factory=list)
    train_correct: list[bool] = field(default_factory=list)
    train_accuracy: list[float] = field(default_factory=list)   # cell accuracy per train pair
    test_outcomes: list[RunOutcome] = field(default_factory=list)
    test_outputs: list[Grid | None] = field(default_factory=list)
    error: str | None = None          # the first error category seen (train pairs first)

    @property
    def helpers_called(self) -> list[str]:
        """The memory helpers the program called on any grid, in the order first called."""
        return list(dict.fromkeys(n for o in self.train_outcomes + self.test_outcomes for n in o.called))

    @property
    def helpers_rebound(self) -> list[str]:
        """The memory helpers the program had redefined (the memory's versions were used)."""
        return sorted({n for o in self.train_outcomes + self.test_outcomes for n in o.rebound})

    @property
    def passed_train(self) -> bool:
        return bool(self.train_correct) and all(self.train_correct)

    @property
    def mean_accuracy(self) -> float:
        return sum(self.train_accuracy) / len(self.train_accuracy) if self.train_accuracy else 0.0

    @property
    def test_complete(self) -> bool:
        return all(g is not None for g in self.test_outputs)


def _grid(output: Any) -> Grid | None:
    if output is None:
        return None
    return tuple(tuple(int(v) for v in row) for row in output)


def run_program(sandbox: Sandbox, task: Task, code: str, *, modules: dict[str, str] | None = None,
                helpers: str | None = None, entry: str = "transform", reading: str = ARCMEMO) -> ProgramRun:
    """Run `code` on every train pair, then on the test inputs (blocking; use a thread), as the
    run's answer `reading` says (reading.py).

    A sandbox that itself fails (not the program) is recorded as error "sandbox:<type>"
    with every pair failed, so a broken worker pool never crashes a solve.
    """
    run = ProgramRun()
    n_train, n_test = len(task.train), len(task.test_inputs)
    try:
        check = run_on_pairs(sandbox, code, list(task.train), entry=entry, modules=modules, helpers=helpers,
                             reading=reading)
    except Exception as exc:  # the sandbox machinery, not the program
        failed = RunOutcome(ok=False, output=None, error="crash",
                            message=f"sandbox failure: {type(exc).__name__}: {exc}", stdout="")
        run.train_outcomes = [failed] * n_train
        run.train_correct = [False] * n_train
        run.train_accuracy = [0.0] * n_train
        run.test_outputs = [None] * n_test
        run.error = f"sandbox:{type(exc).__name__}"
        return run
    run.train_outcomes = list(check.outcomes)
    run.train_correct = [bool(c) for c in check.correct]
    run.train_accuracy = [float(a) for a in check.cell_accuracy]
    errors = [o.error for o in run.train_outcomes if o.error]
    run.error = errors[0] if errors else None
    if run.error in _NOT_RUNNABLE or n_test == 0:
        run.test_outputs = [None] * n_test
        return run
    try:
        outcomes = sandbox.run(code, list(task.test_inputs), entry=entry, modules=modules, helpers=helpers,
                               reading=reading)
    except Exception as exc:
        outcomes = [RunOutcome(ok=False, output=None, error="crash",
                               message=f"sandbox failure: {type(exc).__name__}: {exc}", stdout="")
                    ] * n_test
    run.test_outcomes = list(outcomes)
    run.test_outputs = [_grid(o.output) if o.ok else None for o in outcomes]
    return run


def rank_attempts(attempts: Sequence[Attempt]) -> list[int]:
    """Indices of `attempts`, best first (stable: ties keep their original order)."""
    return rank(attempts)


def select_predictions(attempts: Sequence[Attempt], n_tests: int, k: int = 2) -> list[list[Grid]]:
    """Per test input, up to `k` distinct predicted grids, best first (arcmemo.core.choice)."""
    return top_predictions(attempts, n_tests, k)


def usage_of(completions: Iterable[Any]) -> Usage:
    """The summed usage of a solve's Completions (a cache hit counts as a call, no tokens)."""
    return sum((Usage.of(c) for c in completions), Usage())
