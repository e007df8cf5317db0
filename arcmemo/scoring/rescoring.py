"""Scoring other tools' submissions: a folder of per-task files or a Kaggle submission.json,
against a split (given, or inferred from the task ids), a task folder or a challenges file.

The split is inferred as the one holding most of the submitted task ids (ARC-AGI-1 before
ARC-AGI-2, whose training split repeats most of ARC-AGI-1, a few tasks with other test
pairs: pass --dataset arc-agi-2 for those). Submissions naming tasks that another split
holds are refused as a whole — a wrong split would otherwise score them all 0 — with a
message saying how many and where they are. A task id no known split holds, an
unreadable file, a malformed grid or a wrong number of test entries is named, scored 0,
and the rest is scored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arcmemo.core.datasets import DATASETS, DEFAULT_DATASET, source_label, source_name, splits_holding
from arcmemo.core.tasks import TaskSet, load_tasks
from arcmemo.scoring.kaggle import read_kaggle
from arcmemo.scoring.submissions import (
    PerTest,
    SubmissionError,
    SubmissionScore,
    read_submission_dir,
    score_predictions,
)


@dataclass(frozen=True)
class Rescored:
    source: str              # the task source scored against
    inferred: bool           # chosen from the task ids
    result: SubmissionScore

    @property
    def label(self) -> str:
        return source_label(self.source)


def read_predictions(path: str | Path) -> tuple[dict[str, PerTest], dict[str, str], dict[str, str]]:
    """(predictions, origins, errors) from a folder of per-task files or a submission.json."""
    path = Path(path)
    if path.is_dir():
        return read_submission_dir(path)
    if path.is_file():
        return read_kaggle(path)
    raise SubmissionError(f"{path}: no such folder of submission files or submission.json")


def infer_source(ids: set[str], dataset: str | None = None) -> str:
    """The split holding most of `ids` (in `dataset`, or in any bundled dataset)."""
    datasets = (dataset,) if dataset else DATASETS
    found = splits_holding(ids, datasets)
    if not found:
        sample = ", ".join(sorted(ids)[:5])
        raise SubmissionError(f"none of the {len(ids)} submitted task ids ({sample}) is in {' or '.join(datasets)}; "
                              "name the tasks with --tasks-from")
    return max(found, key=lambda source: len(found[source]))    # ties: the first, as splits_holding orders them


def _refuse_other_splits(outside: set[str], total: int, source: str, dataset: str | None) -> None:
    if not outside:
        return
    elsewhere = splits_holding(outside, (dataset,) if dataset else DATASETS)
    if not elsewhere:
        return
    where = "; ".join(f"{len(held)} in {source_label(s)} ({', '.join(sorted(held)[:3])}"
                      f"{' ...' if len(held) > 3 else ''})" for s, held in elsewhere.items())
    raise SubmissionError(f"{len(outside)} of {total} submitted tasks are not in {source_label(source)}: {where}. "
                          "Choose their split with --split/--dataset, or leave --split out to infer it")


def rescore(path: str | Path, *, dataset: str | None = None, split: str | None = None,
            tasks_from: str | Path | None = None, solutions: str | Path | None = None,
            all_tasks: bool = False) -> Rescored:
    """Score the submissions at `path` (see the module doc). With `all_tasks`, every task of
    the chosen set counts (no submission: 0); otherwise only the submitted ones."""
    predictions, origins, errors = read_predictions(path)
    ids = set(predictions) | set(errors)
    if not ids:
        raise SubmissionError(f"{path}: no submissions in it")
    inferred = False
    if tasks_from is not None:
        if split is not None:
            raise SubmissionError("give --split or --tasks-from, not both")
        source = str(tasks_from)
        taskset: TaskSet = load_tasks(Path(tasks_from), solutions=solutions)
    else:
        if solutions is not None:
            raise SubmissionError("--solutions goes with --tasks-from (a challenges file)")
        if split is None:
            source, inferred = infer_source(ids, dataset), True
        else:
            try:
                source = source_name(dataset or DEFAULT_DATASET, split)
            except ValueError as exc:
                raise SubmissionError(f"--split: {exc}") from None
        taskset = load_tasks(source)
    known = {t.id for t in taskset.tasks}
    _refuse_other_splits(ids - known, len(ids), source, dataset)
    answers = taskset.answers_for_scoring()
    if not answers:
        raise SubmissionError(f"{source_label(source)} has no test outputs to score against"
                              + (" (give them with --solutions)" if tasks_from is not None else ""))
    if not all_tasks:
        answers = {t: a for t, a in answers.items() if t in ids}
    for task_id in errors:
        predictions.setdefault(task_id, [])
    return Rescored(source=source, inferred=inferred,
                    result=score_predictions(predictions, answers, origins, errors))
