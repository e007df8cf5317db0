"""Submission files: write and read them, and score a folder of them against answers.

Submission files follow the ARC Prize benchmarking shape: `<task_id>.json` holds a list
with one entry per test input, `{"attempt_1": {"answer": grid, "metadata": {...}},
"attempt_2": {...}}`; a missing attempt is written with `"answer": []`.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcmemo.core.tasks import Answers, Grid, as_grid, validate_grid
from arcmemo.scoring.scores import TaskScore, attempts_from_predictions, score_task


@dataclass(frozen=True)
class SubmissionScore:
    """A submission directory scored against answers (means over all answered tasks)."""

    tasks: dict[str, TaskScore]
    missing: list[str]          # tasks with answers but no submission file (scored 0)
    unknown: list[str]          # submission files for tasks without answers (ignored)
    errors: dict[str, str] = field(default_factory=dict)  # unreadable files (scored 0)

    def _mean(self, attr: str) -> float:
        return sum(getattr(s, attr) for s in self.tasks.values()) / len(self.tasks) if self.tasks else 0.0

    @property
    def oracle1(self) -> float:
        return self._mean("oracle1")

    @property
    def oracle2(self) -> float:
        return self._mean("oracle2")

    @property
    def strict(self) -> float:
        return self._mean("strict")

    def to_dict(self) -> dict:
        return {
            "tasks": len(self.tasks),
            "oracle1": self.oracle1,
            "oracle2": self.oracle2,
            "strict": self.strict,
            "missing": self.missing,
            "unknown": self.unknown,
            "errors": self.errors,
            "per_task": {k: v.to_dict() for k, v in self.tasks.items()},
        }


_SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]+$")


def _submission_path(directory: str | Path, task_id: str) -> Path:
    if not _SAFE_ID.match(task_id) or task_id.startswith("."):
        raise ValueError(f"write_submission: task id {task_id!r} is not a safe file name")
    return Path(directory) / f"{task_id}.json"


def write_submission(directory: str | Path, task_id: str, attempts_per_test: Sequence[Sequence[Grid]],
                     metadata: Mapping[str, Any] | None = None) -> Path:
    """Write `<directory>/<task_id>.json` atomically; returns its path.

    `attempts_per_test[test_index]` holds up to two grids (attempt_1, attempt_2); a
    missing attempt is written as `"answer": []`. `metadata` is copied into every
    attempt, with `task_id`, `pair_index` and `attempt` added.
    """
    path = _submission_path(directory, task_id)
    entries = []
    for j, attempts in enumerate(attempts_per_test):
        attempts = list(attempts)
        if len(attempts) > 2:
            raise ValueError(f"write_submission {task_id} test {j}: at most 2 attempts, got {len(attempts)}")
        entry = {}
        for a in range(2):
            grid = attempts[a] if a < len(attempts) else None
            answer = [list(r) for r in validate_grid(grid, f"{task_id} test {j} attempt {a + 1}")] \
                if grid is not None else []
            meta = dict(metadata or {})
            meta.update({"task_id": task_id, "pair_index": j, "attempt": a + 1})
            entry[f"attempt_{a + 1}"] = {"answer": answer, "metadata": meta}
        entries.append(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{task_id}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(entries, f, default=str)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def read_submission(path: str | Path) -> list[list[Grid | None]]:
    """Read one submission file: per test input, its attempts in order (None = empty/invalid).

    Accepts the ARC Prize shape (a list of `{"attempt_N": {"answer": grid, ...}}`) and
    the bare variant where `attempt_N` is the grid itself.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a readable JSON submission ({exc})") from None
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list with one entry per test input, got {type(data).__name__}")
    result = []
    for j, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: entry {j} is {type(entry).__name__}, expected an object of attempts")
        keyed = []
        for key, value in entry.items():
            m = re.fullmatch(r"attempt_(\d+)", str(key))
            if not m:
                continue
            answer = value.get("answer") if isinstance(value, dict) else value
            keyed.append((int(m.group(1)), as_grid(answer) if answer else None))
        result.append([g for _, g in sorted(keyed)])
    return result


def score_submission_dir(directory: str | Path, answers: Mapping[str, Answers]) -> SubmissionScore:
    """Score every `<task_id>.json` in `directory` against `answers` (task id -> Answers).

    A task with answers but no file scores 0 and is listed in `missing`; an unreadable
    file scores 0 and is listed in `errors`.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"score_submission_dir: {directory} is not a directory")
    files = {p.stem: p for p in directory.glob("*.json")}
    scores: dict[str, TaskScore] = {}
    missing, errors = [], {}
    for task_id, ans in answers.items():
        path = files.get(task_id)
        if path is None:
            missing.append(task_id)
            scores[task_id] = score_task([], ans)
            continue
        try:
            per_test = read_submission(path)
        except ValueError as exc:
            errors[task_id] = str(exc)
            scores[task_id] = score_task([], ans)
            continue
        scores[task_id] = score_task(attempts_from_predictions(per_test), ans)
    unknown = sorted(set(files) - set(answers))
    return SubmissionScore(tasks=scores, missing=missing, unknown=unknown, errors=errors)
