"""Run records live where runs live: the run directory holds the selections and the status, a
read-only solve leaves the memory file byte-identical, `runs list` tells the states apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from runner_support import LEARNED, PS_CONCEPT, TASK_IDS, script_run

from arcmemo.cli import cli
from arcmemo.memory.store import Memory
from arcmemo.run.records.rundir import RunDir, list_runs

ROOT = Path(__file__).resolve().parents[1]
FAKE = ["--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"]


def solve(tmp_path, *args):
    return CliRunner().invoke(cli, ["solve", "--tasks", ",".join(TASK_IDS[:2]), "--retries", "0",
                                    "--run-dir", str(tmp_path / "runs"), *FAKE, *args])


def only_run(tmp_path) -> RunDir:
    (run,) = list_runs(tmp_path / "runs")
    return run


def test_a_read_only_solve_leaves_the_memory_file_byte_identical(tmp_path, fake_model):
    db = tmp_path / "memory.db"
    shutil.copy(ROOT / "memory.db", db)            # the git-tracked default memory, as a user has it
    before = db.read_bytes()
    script_run(fake_model)
    for selection in ("ps", "all", "none"):
        result = solve(tmp_path, "--db", str(db), "--selection", selection)
        assert result.exit_code == 0, result.output
        assert db.read_bytes() == before, f"--selection {selection} changed the memory file"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.db", "runs"]   # no -wal/-shm left behind
    ps_run = next(r for r in list_runs(tmp_path / "runs") if r.config()["settings"]["selection"] == "ps")
    records = ps_run.selections()
    assert [r["task_id"] for r in records] == TASK_IDS[:2] and all(r["mode"] == "ps" for r in records)
    assert ps_run.status()["status"] == "finished"


def test_a_continual_solve_records_itself_in_memory_and_its_selections_with_the_run(tmp_path, fake_model):
    script_run(fake_model)
    db = tmp_path / "memory.db"
    result = solve(tmp_path, "--db", str(db), "--continual", "-k", "1")
    assert result.exit_code == 0, result.output
    run = only_run(tmp_path)
    first, second = run.selections()
    assert first["concepts"] == [] and second["concepts"] == [LEARNED]     # written after task 1 (k=1)
    with Memory(db) as memory:
        assert {r.run_id for r in memory.history()} == {run.run_id}
        (recorded,) = [r for r in memory.runs() if r.id == run.run_id]
        assert (recorded.kind, recorded.status) == ("solve", "done")


def test_runs_list_tells_running_finished_failed_and_interrupted_apart(tmp_path, fake_model):
    script_run(fake_model)
    assert solve(tmp_path, "--db", str(tmp_path / "m.db"), "--selection", "none").exit_code == 0
    finished = only_run(tmp_path)
    root = tmp_path / "runs"

    def copy(name: str) -> RunDir:
        shutil.copytree(finished.path, root / name)
        (root / name / "summary.json").unlink()
        return RunDir(root / name)

    failed, killed, live = copy("r-failed"), copy("r-killed"), copy("r-live")
    with pytest.raises(RuntimeError), failed.hold():
        raise RuntimeError("plugin bug")
    killed.set_status("running", pid=999999)          # as a kill -9 leaves it: "running", lock free

    def states() -> dict[str, str]:
        listed = CliRunner().invoke(cli, ["runs", "list", "--run-dir", str(root), "--json"])
        assert listed.exit_code == 0, listed.output
        return {row["run"]: row["status"] for row in json.loads(listed.output)}

    with live.hold():                                  # a process running it holds its lock
        assert states() == {finished.run_id: "finished", "r-failed": "failed", "r-killed": "interrupted",
                            "r-live": "running"}
        busy = CliRunner().invoke(cli, ["runs", "delete", "r-live", "--yes", "--run-dir", str(root)])
        assert busy.exit_code == 1 and "is running" in busy.output and (root / "r-live").exists()
    assert states()["r-live"] == "finished"
    assert "RuntimeError: plugin bug" in failed.status()["error"]
    shown = CliRunner().invoke(cli, ["runs", "show", "r-killed", "--run-dir", str(root)])
    assert shown.exit_code == 0 and "is interrupted: 2 of 2 tasks done, scored so far" in shown.output
    assert f"arcmemo solve --resume {root / 'r-killed'}" in shown.output


def test_runs_delete_removes_the_run_directory(tmp_path, fake_model):
    script_run(fake_model)
    assert solve(tmp_path, "--db", str(tmp_path / "m.db"), "--selection", "none").exit_code == 0
    run = only_run(tmp_path)
    refused = CliRunner().invoke(cli, ["runs", "delete", run.run_id, "--run-dir", str(tmp_path / "runs")], input="n\n")
    assert refused.exit_code == 1 and run.path.exists()
    result = CliRunner().invoke(cli, ["runs", "delete", run.run_id, "--run-dir", str(tmp_path / "runs"), "--yes"])
    assert result.exit_code == 0 and not run.path.exists()
    missing = CliRunner().invoke(cli, ["runs", "delete", "nope", "--yes", "--run-dir", str(tmp_path / "runs")])
    assert missing.exit_code == 1 and "no run 'nope'" in missing.output


def test_a_seed_run_gets_a_run_directory(tmp_path):
    result = CliRunner().invoke(cli, ["seed", str(ROOT / "seeds"), "--annotations-only", "-q",
                                      "--db", str(tmp_path / "m.db"), "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    run = only_run(tmp_path)
    config, summary = run.config(), run.summary()
    assert config["kind"] == "seed" and config["memory_revision_start"] == 0 and run.status()["status"] == "finished"
    assert summary["verified"] == 44 and summary["annotated"] == 17 and summary["run_id"] == run.run_id
    assert sum(e["type"] == "verify" for e in run.events()) == 44
    assert {e["task_id"] for e in run.events() if e["type"] == "ingest"} == {p.stem for p in (ROOT / "seeds").glob("*.yaml")}
    listed = CliRunner().invoke(cli, ["runs", "list", "--run-dir", str(tmp_path / "runs")])
    assert "seed" in listed.output and "finished" in listed.output
    shown = CliRunner().invoke(cli, ["runs", "show", run.run_id, "--run-dir", str(tmp_path / "runs")])
    assert shown.exit_code == 0 and "verified" in shown.output


def test_compare_json_and_score_without_a_split(tmp_path, fake_model):
    script_run(fake_model)
    assert solve(tmp_path, "--db", str(tmp_path / "m.db"), "--selection", "none").exit_code == 0
    run = only_run(tmp_path)
    compared = CliRunner().invoke(cli, ["runs", "compare", run.run_id, "--run-dir", str(tmp_path / "runs"), "--json"])
    assert compared.exit_code == 0, compared.output
    (row,) = json.loads(compared.output)
    assert row["run"] == run.run_id and row["score"] == row["arc_prize"] == 100.0
    assert row["only_solves"] == sorted(TASK_IDS[:2])
    # a run's own (training) submissions score by their task ids, with no --split
    scored = CliRunner().invoke(cli, ["runs", "score", str(run.submissions), "--json"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.output)["tasks"] == 2 and json.loads(scored.output)["oracle2"] == 1.0


def test_selection_records_name_the_concepts_as_they_were(tmp_path, fake_model):
    import yaml

    script_run(fake_model)
    db = tmp_path / "memory.db"
    with Memory(db) as memory:
        memory.add(yaml.safe_load(PS_CONCEPT.strip("`").removeprefix("yaml"))[0], actor="test")
    assert solve(tmp_path, "--db", str(db)).exit_code == 0
    run = only_run(tmp_path)
    with Memory(db) as memory:
        memory.delete(LEARNED, actor="test", reason="gone")
    listed = CliRunner().invoke(cli, ["runs", "selections", run.run_id, "--run-dir", str(tmp_path / "runs")])
    assert listed.exit_code == 0 and f"{TASK_IDS[0]} (pass 1, ps): {LEARNED}" in listed.output


def test_a_session_killed_without_a_word_still_counts_to_its_last_event():
    from arcmemo.run.records.events import sessions_wall_time

    events = [{"type": "session_start", "time": 100.0}, {"type": "task", "time": 130.0},
              {"type": "session_end", "time": 131.0, "wall_time_s": 31.0},
              {"type": "session_start", "time": 200.0}, {"type": "task", "time": 260.0},   # then SIGKILL
              {"type": "session_start", "time": 300.0},                                       # killed before a task
              {"type": "session_start", "time": 400.0}, {"type": "task", "time": 410.5},
              {"type": "session_end", "time": 411.0, "wall_time_s": 11.0}]
    assert sessions_wall_time(events) == 31.0 + 60.0 + 0.0 + 11.0
    assert sessions_wall_time(events[:5]) == 31.0 + 60.0
