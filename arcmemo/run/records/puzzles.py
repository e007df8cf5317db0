"""The puzzles a solve run ran, kept in its own directory (`tasks.json`), so a run directory is
self-contained: the page, the report and resume read a run's puzzles from it, never from a
path the run's config names (a private folder of ARC files named in a config.json must not be
shown by whoever can see the runs folder).

`tasks.json` holds the run's tasks in its order: train pairs, test inputs, and the test
outputs the run was scored against (none for a run that did not score). It is written once,
atomically, when the run is made; config.json records its SHA-256 (under "puzzles"), and a
file that no longer matches it is refused.

A run made before runs kept their puzzles shows them from the bundled datasets when its source
was one of them (`bundled`), and otherwise as not recorded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arcmemo.core.errors import ArcmemoError
from arcmemo.core.files import MiB

if TYPE_CHECKING:
    from arcmemo.core.tasks import Answers, Task, TaskSet
    from arcmemo.run.records.rundir import RunDir

PUZZLES_FILE = "tasks.json"
PUZZLES_KEY = "puzzles"       # config.json: {"file", "sha256", "tasks", "test_outputs"}
PUZZLES_MAX = 256 * MiB       # ARC-AGI-2's whole training set is about 40 MB
FORMAT = 1


class PuzzlesNotRecorded(ArcmemoError, LookupError):
    """A run's puzzles are not in its directory and not in a bundled dataset; the message says why."""


def puzzles_text(tasks: Sequence[Task], answers: Mapping[str, Answers]) -> bytes:
    """tasks.json's bytes: each task as ARC's JSON shape (with its id), test outputs from `answers`."""
    entries = []
    for task in tasks:
        data = task.to_dict()
        outputs = answers[task.id].test_outputs if task.id in answers else ()
        for entry, output in zip(data["test"], outputs):
            entry["output"] = [list(row) for row in output]
        entries.append(data)
    return json.dumps({"format": FORMAT, "tasks": entries}, separators=(",", ":")).encode("utf-8")


def write_puzzles(rundir: RunDir, tasks: Sequence[Task], answers: Mapping[str, Answers]) -> dict[str, Any]:
    """Write the run's tasks.json (atomically); the record config.json keeps of it."""
    import hashlib

    from arcmemo.core.files import atomic_write

    data = puzzles_text(tasks, answers)
    atomic_write(rundir.path / PUZZLES_FILE, data)
    return {"file": PUZZLES_FILE, "sha256": hashlib.sha256(data).hexdigest(), "tasks": len(tasks),
            "test_outputs": any(t.id in answers and answers[t.id].test_outputs for t in tasks)}


def read_puzzles(rundir: RunDir, record: Mapping[str, Any]) -> TaskSet:
    """The puzzles of tasks.json, checked against the SHA-256 config.json recorded (`record`);
    RunDirError when the file is missing, not a regular file, too large, changed or malformed."""
    import hashlib

    from arcmemo.core.files import read_regular
    from arcmemo.core.tasks import TaskError, TaskSet, check_task_id, parse_task
    from arcmemo.run.records.rundir import RunDirError

    path = rundir.path / PUZZLES_FILE
    try:
        data = read_regular(path, max_bytes=PUZZLES_MAX, follow_symlinks=False)
    except OSError as exc:
        raise RunDirError(f"{path}: cannot read the run's puzzles ({exc.strerror or exc})") from None
    if hashlib.sha256(data).hexdigest() != record.get("sha256"):
        raise RunDirError(f"{path}: not the file the run wrote (its SHA-256 differs from the one config.json "
                          "recorded)")
    try:
        entries = json.loads(data)["tasks"]
        tasks, answers = [], {}
        for i, entry in enumerate(entries):
            task_id = check_task_id(entry.get("id"), f"{path}: task {i}")
            task, answer = parse_task(entry, task_id, f"{path}: task {task_id}")
            tasks.append(task)
            answers[task_id] = answer
    except (ValueError, KeyError, TypeError, AttributeError) as exc:    # TaskError is a ValueError
        detail = str(exc) if isinstance(exc, TaskError) else f"{path}: not a puzzles file ({exc!r})"
        raise RunDirError(detail) from None
    return TaskSet(tuple(tasks), answers)


def bundled(source: str | None, task_ids: Sequence[str]) -> TaskSet:
    """A run from before tasks.json: its puzzles from the bundled dataset its source names;
    PuzzlesNotRecorded when the source is not one (a path: never read) or lacks the tasks."""
    from arcmemo.core.datasets import parse_source_name
    from arcmemo.core.tasks import TaskError, load_tasks

    if not source or parse_source_name(str(source)) is None:
        raise PuzzlesNotRecorded("the run was made before runs kept their puzzles, and its tasks came from "
                                 f"{source or 'a source not recorded'}, not a bundled dataset: its puzzles are "
                                 "not recorded")
    try:
        return load_tasks(str(source), ids=list(task_ids))
    except TaskError as exc:
        raise PuzzlesNotRecorded(f"the run's puzzles are not in {source}: {exc}") from None


__all__ = ["PUZZLES_FILE", "PUZZLES_KEY", "PUZZLES_MAX", "PuzzlesNotRecorded", "bundled", "puzzles_text",
           "read_puzzles", "write_puzzles"]
