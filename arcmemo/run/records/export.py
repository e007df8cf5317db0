"""A run's submissions in other tools' shapes: Kaggle's submission.json, or a folder of
per-task files for the ARC Prize benchmarking harness (the run's own files, which are
already in its shape).

Only a solve run with predictions is exported (a seed run would otherwise become a file of
placeholders), and a test-informed run only when asked (`allow_test_informed`): a test
output decided something in it, so its predictions are not a held-out submission."""

from __future__ import annotations

import shutil
from pathlib import Path

from arcmemo.core.table import counted
from arcmemo.core.tasks import TaskSet, load_tasks
from arcmemo.run.protocol import test_informed_by, what_tests_decided
from arcmemo.run.records.reader import RunRecord
from arcmemo.run.records.rundir import RunDirError
from arcmemo.scoring import KaggleExport, read_submission_dir, write_kaggle


def run_split(record: RunRecord) -> TaskSet:
    """Every task of the split a run was drawn from (a run given only task ids: those tasks)."""
    settings = record.settings
    source = settings.get("source", "training")
    if source.rpartition("/")[2] == "all":
        return load_tasks(source, ids=record.planned)
    return load_tasks(source, solutions=settings.get("solutions"))


def _run_predictions(record: RunRecord, allow_test_informed: bool = False):
    record.check_exportable()
    if record.test_informed and not allow_test_informed:
        name = (record.recorded.get("protocol") or {}).get("name", "?")
        decided = what_tests_decided(test_informed_by(record.recorded)) or "its retries or memory writes"
        raise RunDirError(f"run {record.run_id} is test-informed (protocol {name}: a test output decided "
                          f"{decided}), so its predictions are not a held-out submission; pass "
                          "--allow-test-informed to export it anyway")
    predictions, _, errors = read_submission_dir(record.rundir.submissions)
    if errors:
        task_id, error = next(iter(errors.items()))
        raise RunDirError(f"run {record.run_id}: {counted(len(errors), 'unreadable submission file')}, e.g. {error}")
    return predictions


def export_kaggle(record: RunRecord, path: str | Path, *, allow_test_informed: bool = False) -> KaggleExport:
    """Write the run's predictions as submission.json over every task of its split."""
    predictions = _run_predictions(record, allow_test_informed)
    return write_kaggle(path, run_split(record), predictions)


def export_harness(record: RunRecord, directory: str | Path, *, allow_test_informed: bool = False) -> int:
    """Copy the run's per-task submission files into `directory`; returns how many."""
    _run_predictions(record, allow_test_informed)   # refuse to hand on a file that does not read back
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    files = sorted(record.rundir.submissions.glob("*.json"))
    for path in files:
        shutil.copyfile(path, directory / path.name)
    return len(files)
