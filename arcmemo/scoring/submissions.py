"""Submission files: write them in the ARC Prize harness shape, read anyone's, score them.

`<task_id>.json` holds a list with one entry per test input, `{"attempt_1": {"answer":
grid, "metadata": {...}}, "attempt_2": ...}` (the metadata as harness.py describes); a
missing attempt is `null`. Reading also accepts arcmemo's older files (a missing attempt
as `"answer": []`) and bare grids (`"attempt_1": grid`), as other tools write them.

A malformed grid or entry is never silently scored as a wrong guess: reading raises a
`SubmissionError` naming the file, entry and attempt, and scoring counts that task 0 and
lists the error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcmemo.core.errors import ArcmemoError
from arcmemo.core.files import JSONFileError, atomic_write_json, read_json
from arcmemo.core.table import counted
from arcmemo.core.tasks import Answers, Grid, TaskError, check_task_id, validate_grid
from arcmemo.scoring.harness import missing_keys
from arcmemo.scoring.scores import TaskScore, attempts_from_predictions, score_task

ATTEMPT_KEY = re.compile(r"attempt_(\d+)")
PerTest = list[list[Grid | None]]      # per test input, its attempts in order (None = no answer)


class SubmissionError(ArcmemoError, ValueError):
    """A submission file or entry is malformed; the message names the file and entry."""


@dataclass(frozen=True)
class SubmissionScore:
    """Submissions scored against answers (means over every scored task)."""

    tasks: dict[str, TaskScore]
    missing: list[str]          # tasks with answers but no submission (scored 0)
    unknown: list[str]          # submissions for tasks the answers do not have (scored 0, in errors)
    errors: dict[str, str] = field(default_factory=dict)  # task id (or file) -> what was wrong (scored 0)

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

    def to_dict(self, per_task: bool = True) -> dict:
        data = {"tasks": len(self.tasks), "oracle1": self.oracle1, "oracle2": self.oracle2, "strict": self.strict,
                "missing": self.missing, "unknown": self.unknown, "errors": self.errors}
        if per_task:
            data["per_task"] = {k: v.to_dict() for k, v in self.tasks.items()}
        return data


def submission_path(directory: str | Path, task_id: str) -> Path:
    try:
        check_task_id(task_id, "write_submission")
    except TaskError as exc:
        raise ValueError(f"write_submission: task id {task_id!r} is not a safe file name") from exc
    return Path(directory) / f"{task_id}.json"


def write_submission(directory: str | Path, task_id: str, attempts_per_test: Sequence[Sequence[Any]],
                     metadata: Sequence[Sequence[Mapping[str, Any]]]) -> Path:
    """Write `<directory>/<task_id>.json` atomically (`_entries`); returns its path."""
    path = submission_path(directory, task_id)
    atomic_write_json(path, _entries(task_id, attempts_per_test, metadata))
    return path


def submission_file(task_id: str, attempts_per_test: Sequence[Sequence[Any]],
                    metadata: Sequence[Sequence[Mapping[str, Any]]]) -> tuple[str, str]:
    """(file name, JSON text) of what `write_submission` writes, kept in memory (a task's records)."""
    return submission_path(".", task_id).name, json.dumps(_entries(task_id, attempts_per_test, metadata))


def _entries(task_id: str, attempts_per_test: Sequence[Sequence[Any]],
             metadata: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The entries of task `task_id`'s submission file; ValueError for one that is not valid
    (the task id is checked by the callers, which name the file).

    `attempts_per_test[j]` holds up to two grids (attempt_1, attempt_2) and
    `metadata[j][a]` the harness metadata of attempt a (harness.attempt_metadata); a
    missing attempt is written as `null`.
    """
    entries = []
    for j, attempts in enumerate(attempts_per_test):
        attempts = list(attempts)
        if len(attempts) > 2:
            raise ValueError(f"write_submission {task_id} test {j}: at most 2 attempts, got {len(attempts)}")
        entry: dict[str, Any] = {}
        for a in range(2):
            grid = attempts[a] if a < len(attempts) else None
            if grid is None:
                entry[f"attempt_{a + 1}"] = None
                continue
            where = f"{task_id} test {j} attempt {a + 1}"
            answer = [list(r) for r in validate_grid(grid, where)]
            try:
                meta = dict(metadata[j][a])
            except (IndexError, TypeError):
                raise ValueError(f"write_submission {where}: no metadata for this attempt") from None
            lacking = missing_keys(meta)
            if lacking:
                raise ValueError(f"write_submission {where}: metadata lacks {', '.join(lacking)}")
            entry[f"attempt_{a + 1}"] = {"answer": answer, "metadata": meta}
        entries.append(entry)
    return entries


def _answer(value: Any, where: str) -> Grid | None:
    """One attempt's grid: None for a missing attempt (`null`, `[]`, `{"answer": []}`)."""
    answer = value.get("answer") if isinstance(value, dict) else value
    if answer is None or answer == []:
        return None
    try:
        return validate_grid(answer, where)
    except TaskError as exc:
        raise SubmissionError(str(exc)) from None


def parse_entries(data: Any, where: str) -> PerTest:
    """Per test input, its attempts in order (None = no answer; missing last attempts are
    dropped, so one guess scores as one attempt, as the run that wrote it scored it), from a
    list of entries `{"attempt_N": {"answer": grid, ...} | grid | null}`; `where` names the
    file (and task)."""
    if not isinstance(data, list):
        raise SubmissionError(f"{where}: expected a list with one entry per test input, got {type(data).__name__}")
    result = []
    for j, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise SubmissionError(f"{where}: entry {j} is {type(entry).__name__}, expected an object of attempts")
        keyed = sorted((int(m.group(1)), value) for key, value in entry.items()
                       if (m := ATTEMPT_KEY.fullmatch(str(key))))
        if not keyed:
            raise SubmissionError(f"{where}: entry {j} has no attempt_1, attempt_2 ... keys")
        attempts = [_answer(value, f"{where}: entry {j} attempt_{n}") for n, value in keyed]
        while attempts and attempts[-1] is None:      # a missing last attempt is no attempt
            attempts.pop()
        result.append(attempts)
    return result


def read_submission(path: str | Path) -> PerTest:
    """Read one per-task submission file (any of the shapes in the module doc)."""
    try:
        data = read_json(path)
    except JSONFileError as exc:
        raise SubmissionError(str(exc)) from None
    return parse_entries(data, str(path))


def score_predictions(predictions: Mapping[str, PerTest], answers: Mapping[str, Answers],
                      origins: Mapping[str, str] | None = None,
                      errors: Mapping[str, str] | None = None) -> SubmissionScore:
    """Score each task's predictions against `answers` (task id -> Answers).

    A task with answers and no predictions scores 0 (`missing`); predictions with a
    different number of test entries than the task has test inputs, predictions for a task
    the answers lack, and the tasks in `errors` (unreadable, named by the caller) score 0
    and are listed in `errors`. `origins` names where each task's predictions came from.
    """
    origins, errors = dict(origins or {}), dict(errors or {})
    scores: dict[str, TaskScore] = {}
    missing = []
    for task_id, ans in answers.items():
        per_test = predictions.get(task_id)
        if task_id in errors or per_test is None:
            if task_id not in errors:
                missing.append(task_id)
            scores[task_id] = score_task([], ans)
            continue
        if len(per_test) != len(ans.test_outputs):
            errors[task_id] = (f"{origins.get(task_id, task_id)}: {len(per_test)} test entries, but task "
                               f"{task_id} has {counted(len(ans.test_outputs), 'test input')}")
            scores[task_id] = score_task([], ans)
            continue
        scores[task_id] = score_task(attempts_from_predictions(per_test), ans)
    unknown = sorted(set(predictions) - set(answers))
    for task_id in unknown:
        errors.setdefault(task_id, f"{origins.get(task_id, task_id)}: no task {task_id} to score against")
        scores[task_id] = TaskScore(0.0, 0.0, 0.0)
    return SubmissionScore(tasks=scores, missing=missing, unknown=unknown, errors=errors)


def read_submission_dir(directory: str | Path) -> tuple[dict[str, PerTest], dict[str, str], dict[str, str]]:
    """(predictions, origins, errors) of every `<task_id>.json` in `directory`."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"{directory} is not a directory of submission files")
    predictions, origins, errors = {}, {}, {}
    for path in sorted(directory.glob("*.json")):
        if path.name == "results.json":      # the harness's own summary, beside its submissions
            continue
        origins[path.stem] = str(path)
        try:
            predictions[path.stem] = read_submission(path)
        except SubmissionError as exc:
            errors[path.stem] = str(exc)
    return predictions, origins, errors


def score_submission_dir(directory: str | Path, answers: Mapping[str, Answers]) -> SubmissionScore:
    """Score every `<task_id>.json` in `directory` against `answers` (see score_predictions)."""
    predictions, origins, errors = read_submission_dir(directory)
    for task_id in errors:
        predictions.setdefault(task_id, [])
    return score_predictions(predictions, answers, origins, errors)
