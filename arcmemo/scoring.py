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

Submission files follow the ARC Prize benchmarking shape: `<task_id>.json` holds a list
with one entry per test input, `{"attempt_1": {"answer": grid, "metadata": {...}},
"attempt_2": {...}}`; a missing attempt is written with `"answer": []`.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any, Mapping, Sequence

from arcmemo.tasks import Answers, Grid, TaskError, validate_grid

OFFICIAL_K = 2


@dataclass(frozen=True)
class TaskScore:
    """Scores of one puzzle; `correct[attempt][test]` is what they were computed from."""

    oracle1: float
    oracle2: float
    strict: float
    correct: tuple[tuple[bool, ...], ...] = ()

    @property
    def official(self) -> float:
        return self.oracle2

    def to_dict(self) -> dict:
        return {"oracle1": self.oracle1, "oracle2": self.oracle2, "strict": self.strict,
                "correct": [list(row) for row in self.correct]}


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


def _as_grid(value: Any) -> Grid | None:
    """A grid as tuple of tuples, or None when it is missing or not a valid grid."""
    if value is None:
        return None
    try:
        return validate_grid(value, "attempt")
    except TaskError:
        return None


def _answer_grids(answers: Answers | Sequence[Any]) -> list[Grid]:
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
    truth = _answer_grids(answers)
    correct = []
    for attempt in attempts:
        row = []
        for j, expected in enumerate(truth):
            predicted = _as_grid(attempt[j]) if j < len(attempt) else None
            row.append(predicted is not None and predicted == expected)
        correct.append(tuple(row))
    return TaskScore(
        oracle1=oracle_at_k(correct, 1),
        oracle2=oracle_at_k(correct, 2),
        strict=strict_score(correct, OFFICIAL_K),
        correct=tuple(correct),
    )


def cell_accuracy(predicted: Any, expected: Any) -> float:
    """Fraction of cells equal; 0.0 when the prediction is missing, invalid or a different shape."""
    p, e = _as_grid(predicted), _as_grid(expected)
    if p is None or e is None or len(p) != len(e) or len(p[0]) != len(e[0]):
        return 0.0
    cells = len(e) * len(e[0])
    same = sum(1 for prow, erow in zip(p, e) for a, b in zip(prow, erow) if a == b)
    return same / cells


# -- submission files -------------------------------------------------------------------

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
            keyed.append((int(m.group(1)), _as_grid(answer) if answer else None))
        result.append([g for _, g in sorted(keyed)])
    return result


def attempts_from_predictions(per_test: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Submission order (per test input: attempt_1, attempt_2, ...) -> attempts[a][test],
    with None where an attempt has no grid for a test input."""
    n = max((len(p) for p in per_test), default=0)
    return [[p[a] if a < len(p) else None for p in per_test] for a in range(n)]


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
