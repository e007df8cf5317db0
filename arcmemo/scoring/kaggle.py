"""The ARC Prize competition's `submission.json` (Kaggle): write one, read one.

One JSON object mapping every task id of the evaluated set to a list with one
`{"attempt_1": grid, "attempt_2": grid}` per test input, in test-input order. Kaggle
needs every task and both attempts: a task without predictions gets the placeholder
`[[0]]` (so does a test input without any grid), a single guess is submitted twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arcmemo.core.files import JSONFileError, atomic_write_json, read_json
from arcmemo.core.tasks import TaskSet, to_lists
from arcmemo.scoring.submissions import PerTest, SubmissionError, parse_entries

PLACEHOLDER = [[0]]


@dataclass(frozen=True)
class KaggleExport:
    path: Path
    tasks: int
    placeholder_tasks: list[str]      # tasks without any prediction: every slot [[0]]
    empty_tests: int                  # test inputs of reached tasks without any grid: [[0]]
    repeated: int                     # second attempts that repeat the first (one guess only)


def write_kaggle(path: str | Path, taskset: TaskSet, predictions: Mapping[str, PerTest]) -> KaggleExport:
    """Write `submission.json` for every task of `taskset`, in its order, from
    `predictions[task_id][test][attempt]`. A task without predictions, or a test input
    without a grid, gets `[[0]]` twice; a test input with one grid repeats it as attempt_2
    (a second guess of [[0]] would only ever be right by accident)."""
    path = Path(path)
    data, unreached, empty, repeated = {}, [], 0, 0
    for task in taskset.tasks:
        per_test = predictions.get(task.id)
        if per_test is None:
            unreached.append(task.id)
        entries = []
        for j in range(len(task.test_inputs)):
            grids = [to_lists(g) for g in (per_test[j] if per_test and j < len(per_test) else []) if g is not None]
            if not grids:
                empty += per_test is not None
                grids = [PLACEHOLDER]
            if len(grids) == 1:
                repeated += per_test is not None and grids[0] is not PLACEHOLDER
                grids = grids * 2
            entries.append({"attempt_1": grids[0], "attempt_2": grids[1]})
        data[task.id] = entries
    atomic_write_json(path, data)
    return KaggleExport(path=path, tasks=len(data), placeholder_tasks=unreached, empty_tests=empty,
                        repeated=repeated)


def read_kaggle(path: str | Path) -> tuple[dict[str, PerTest], dict[str, str], dict[str, str]]:
    """(predictions, origins, errors) of a `submission.json`: a malformed task entry is
    named (file, task, entry, attempt) in `errors` and the others are still read."""
    try:
        data = read_json(path)
    except JSONFileError as exc:
        raise SubmissionError(str(exc)) from None
    if not isinstance(data, dict):
        raise SubmissionError(f"{path}: expected a JSON object mapping task ids to lists of attempts, "
                              f"got {type(data).__name__}")
    predictions, origins, errors = {}, {}, {}
    for task_id, entries in data.items():
        where = f"{path}: task {task_id}"
        origins[task_id] = where
        try:
            predictions[task_id] = parse_entries(entries, where)
        except SubmissionError as exc:
            errors[task_id] = str(exc)
    return predictions, origins, errors
