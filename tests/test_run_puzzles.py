"""A run directory carries its own puzzles (issue 37, point 2): a solve writes tasks.json (train
pairs, test inputs and the test outputs it was scored against) with its SHA-256 in config.json,
and the page, the report, `runs show --task` and resume read the puzzles there, never from the
path the run's config names. A run made before shows puzzles of a bundled dataset only, or says
they are not recorded."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from runner_support import TASK_IDS, script_run
from web_support import copy_fixture

from arcmemo.cli import cli
from arcmemo.core.tasks import load_tasks, to_lists
from arcmemo.memory.store import Memory
from arcmemo.run.records.reader import find_run
from arcmemo.run.records.rundir import RunDirError, list_runs

FAKE = ["--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"]
SECRET = [[7, 7, 7], [7, 0, 7], [7, 7, 7]]     # a test output only the private folder holds


def private_folder(path: Path, task_ids, secret_output=None) -> Path:
    """A 0700 folder of ARC task files (the bundled tasks, or with `secret_output` as every test output)."""
    path.mkdir(mode=0o700)
    taskset = load_tasks("training", ids=list(task_ids))
    for task in taskset.tasks:
        data = task.to_dict()
        for entry, output in zip(data["test"], taskset.answers[task.id].test_outputs):
            entry["output"] = secret_output or to_lists(output)
        (path / f"{task.id}.json").write_text(json.dumps(data))
    return path


def page(runs: Path, memory: Path, path: str):
    from starlette.testclient import TestClient

    from arcmemo.web.app import create_app

    with Memory(str(memory)) as opened:
        app = create_app(opened, runs, actor="user:test", allowed_hosts=["testserver"])
        with TestClient(app) as client:
            return client.get(path)


def show_task(runs: Path, run_id: str, task_id: str):
    return CliRunner().invoke(cli, ["runs", "show", run_id, "--task", task_id, "--run-dir", str(runs)])


def test_a_solve_keeps_its_puzzles_and_resumes_without_its_source(tmp_path, fake_model):
    ids = TASK_IDS[:2]
    source = private_folder(tmp_path / "private", ids)
    runs, db = tmp_path / "runs", tmp_path / "memory.db"
    script_run(fake_model, task_ids=ids)
    done = CliRunner().invoke(cli, ["solve", "--tasks-from", str(source), "--retries", "0", "--selection", "none",
                                    "--run-dir", str(runs), "--db", str(db), *FAKE])
    assert done.exit_code == 0, done.output
    (rundir,) = list_runs(runs)
    kept = (rundir.path / "tasks.json").read_bytes()
    record = json.loads((rundir.path / "config.json").read_text())["puzzles"]
    assert record == {"file": "tasks.json", "sha256": hashlib.sha256(kept).hexdigest(), "tasks": 2,
                      "test_outputs": True}
    truth = load_tasks("training", ids=ids)
    assert [t["id"] for t in json.loads(kept)["tasks"]] == ids
    assert json.loads(kept)["tasks"][0]["test"][0]["output"] == to_lists(truth.answers[ids[0]].test_outputs[0])

    shutil.rmtree(source)                       # the source is gone: the run still has its puzzles
    run = find_run(rundir.run_id, runs)
    assert run.puzzles().missing is None and set(run.puzzles().tasks) == set(ids)
    shown = show_task(runs, rundir.run_id, ids[0])
    assert shown.exit_code == 0 and "not recorded" not in shown.output and "expected" in shown.output.lower()
    html = page(runs, db, f"/runs/{rundir.run_id}/tasks/{ids[0]}").text
    assert "The puzzle is not recorded" not in html and 'class="picture puzzle"' in html

    # the run stopped before its last task: resuming solves it from tasks.json
    events = (rundir.path / "events.jsonl").read_text().splitlines()
    last = max(i for i, line in enumerate(events) if json.loads(line)["type"] == "task")
    (rundir.path / "events.jsonl").write_text("\n".join(events[:last]) + "\n")
    (rundir.path / "summary.json").unlink()
    resumed = CliRunner().invoke(cli, ["solve", "--resume", rundir.run_id, "--run-dir", str(runs), "--db", str(db),
                                       *FAKE])
    assert resumed.exit_code == 0, resumed.output
    assert find_run(rundir.run_id, runs).summary["tasks"] == 2


@pytest.fixture
def old_run(web_fixture, tmp_path):
    """A copy of a fixture run as runs were made before they kept their puzzles, its source a
    private folder whose test outputs are SECRET."""
    copy_fixture(web_fixture, tmp_path / "copy")
    runs = tmp_path / "copy" / "runs"
    run = runs / web_fixture.baseline
    private = private_folder(tmp_path / "private", web_fixture.tasks, SECRET)
    config = json.loads((run / "config.json").read_text())
    config.pop("puzzles", None)
    config["settings"]["source"] = str(private)
    (run / "config.json").write_text(json.dumps(config))
    (run / "tasks.json").unlink(missing_ok=True)
    return runs, run, web_fixture


def test_a_run_naming_a_private_folder_shows_nothing_from_it(old_run, tmp_path):
    runs, run, fx = old_run
    task = fx.tasks[0]
    record = find_run(run.name, runs)
    assert record.puzzles().tasks == {} and "not a bundled dataset" in record.puzzles().missing
    html = page(runs, runs.parent / "memory.db", f"/runs/{run.name}/tasks/{task}").text
    assert "The puzzle is not recorded" in html and 'class="picture puzzle"' not in html
    shown = show_task(runs, run.name, task)
    assert shown.exit_code == 0 and "the puzzle is not recorded" in shown.output
    report = CliRunner().invoke(cli, ["runs", "report", run.name, "--run-dir", str(runs), "--db",
                                      str(runs.parent / "memory.db"), "-o", str(tmp_path / "report.html")])
    assert report.exit_code == 0 and "The puzzle is not recorded" in (tmp_path / "report.html").read_text()
    with pytest.raises(RunDirError, match="its puzzles are not recorded"):
        record.run_tasks()                      # what resume reads: refused, the folder never opened


def test_a_run_from_before_of_a_bundled_split_shows_its_puzzles(old_run):
    runs, run, fx = old_run
    config = json.loads((run / "config.json").read_text())
    config["settings"]["source"] = "training"
    (run / "config.json").write_text(json.dumps(config))
    puzzles = find_run(run.name, runs).puzzles()
    assert puzzles.missing is None and set(puzzles.tasks) == set(fx.tasks)
    html = page(runs, runs.parent / "memory.db", f"/runs/{run.name}/tasks/{fx.tasks[0]}").text
    assert 'class="picture puzzle"' in html


def test_puzzles_changed_after_the_run_are_refused(web_fixture, tmp_path):
    copy_fixture(web_fixture, tmp_path / "copy")
    runs = tmp_path / "copy" / "runs"
    kept = runs / web_fixture.baseline / "tasks.json"
    data = json.loads(kept.read_text())
    data["tasks"][0]["test"][0]["output"] = SECRET
    kept.write_text(json.dumps(data))
    record = find_run(web_fixture.baseline, runs)
    assert "not the file the run wrote" in record.puzzles().missing
    with pytest.raises(RunDirError, match="SHA-256 differs"):
        record.run_tasks()
