"""Which predictions are submitted: rank candidate programs, keep the top distinct grids.

A candidate is anything with `passed_train`, `train_cell_accuracy` and `test_outputs`
(a solver's attempts, or the final programs of a run's independent threads).

Ranking (best first): candidates passing every train pair, then higher mean train-cell
accuracy, then candidates with an output for every test input, then earlier candidates.
For each test input the distinct predicted grids are ordered by the best candidate that
produced them; among grids whose best candidates rank equal (same pass verdict and
accuracy), the one more candidates agree on comes first. The first `k` (2, as ARC Prize
scores) are submitted as attempt_1, attempt_2. Candidates that fail train pairs still
contribute when nothing better exists: a near miss is a better second guess than an
empty slot. Train pairs alone decide: test outputs are never looked at.

Who made a candidate is said in the records' own words (kept here, light, so the views that read
records need not load the solver or the model client): FIT_LABEL and FIT_SAMPLE mark a step made
by memory (a helper call that gave every train output, run as a candidate: run/stages/probe.py),
WRONG_OUTPUT is the error of a program that ran and gave a wrong train output, and
`describe_origin` says an Origin record (run/stages/candidates.py) in words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arcmemo.core.tasks import Grid

SUBMITTED = 2
FIT_LABEL = "memory fit"       # an attempt made by memory (a fit), not by the model
FIT_SAMPLE = -1                # its sample index: no model sample made it
WRONG_OUTPUT = "wrong_output"  # the error of a program that ran and gave a wrong train output


def describe_origin(record: dict[str, Any]) -> str:
    """An origin record in words, for every view: "memory's fit flip_grid(grid, 'horizontal')", or
    "the model's program (thread 1, sample 1, retry 0)"."""
    if record.get("by") == "memory":
        return f"memory's fit {record.get('call')}"
    if record.get("by") == "model":
        return (f"the model's program (thread {int(record.get('thread', 0)) + 1}, sample {record.get('sample')}, "
                f"retry {record.get('round')})")
    return "unknown"


def rank_key(candidate: Any) -> tuple:
    outputs = candidate.test_outputs
    complete = bool(outputs) and all(g is not None for g in outputs)
    return (bool(candidate.passed_train), candidate.train_cell_accuracy, complete)


def rank(candidates: Sequence[Any]) -> list[int]:
    """Indices of `candidates`, best first (stable: ties keep their original order)."""
    return sorted(range(len(candidates)), key=lambda i: rank_key(candidates[i]), reverse=True)


def top_predictions(candidates: Sequence[Any], n_tests: int, k: int = SUBMITTED) -> list[list[Grid]]:
    """Per test input, up to `k` distinct predicted grids, best first (see the module doc)."""
    order = rank(candidates)
    predictions: list[list[Grid]] = []
    for j in range(n_tests):
        best: dict[Grid, tuple] = {}     # grid -> (rank key of its best candidate, first position)
        votes: dict[Grid, int] = {}
        for pos, i in enumerate(order):
            outputs = candidates[i].test_outputs
            grid = outputs[j] if j < len(outputs) else None
            if grid is None:
                continue
            votes[grid] = votes.get(grid, 0) + 1
            best.setdefault(grid, (rank_key(candidates[i]), pos))
        ranked = sorted(best, key=lambda g: (best[g][0], votes[g], -best[g][1]), reverse=True)
        predictions.append(ranked[:k])
    return predictions
