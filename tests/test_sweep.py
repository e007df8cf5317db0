"""`arcmemo sweep`: a grid of solve runs, each an ordinary run directory; members that write
memory start from their own copy; running it again skips finished members and resumes stopped
ones; it ends with the `runs compare` table."""

from __future__ import annotations

import json

from click.testing import CliRunner
from runner_support import PS_CONCEPT, TASK_IDS, script_run

from arcmemo.cli import cli
from arcmemo.memory.store import Memory

SWEEP = f"""name: demo
solve: {{source: training, task_ids: [{TASK_IDS[0]}, {TASK_IDS[1]}], retries: 0, continual: true, k: 2,
        solver_model: fake, aux_model: fake, select_model: fake}}
grid:
  selection: [none, ps]
repeats: 2
tasks_in_flight: 2
"""


def sweep(tmp_path, text=SWEEP):
    path = tmp_path / "sweep.yaml"
    path.write_text(text)
    return CliRunner().invoke(cli, ["sweep", str(path), "--db", str(tmp_path / "start.db"),
                                    "--run-dir", str(tmp_path / "runs"), "-q"])


def test_a_sweep_runs_every_member_and_compares_them(tmp_path, fake_model):
    import yaml

    script_run(fake_model)
    start = Memory(str(tmp_path / "start.db"))
    start.add(yaml.safe_load(PS_CONCEPT.strip("`").removeprefix("yaml"))[0], actor="test")
    revision = start.revision()
    result = sweep(tmp_path)
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "runs" / "sweeps" / "demo.json").read_text())
    assert sorted(record) == ["selection=none#1", "selection=none#2", "selection=ps#1", "selection=ps#2"]
    for key, run_id in record.items():
        summary = json.loads((tmp_path / "runs" / run_id / "summary.json").read_text())
        config = json.loads((tmp_path / "runs" / run_id / "config.json").read_text())
        assert summary["tasks"] == 2 and config["settings"]["selection"] == key.split("=")[1].split("#")[0]
        assert config["memory_url"].endswith(".db") and "sweeps/demo/" in config["memory_url"]
        assert run_id in result.stdout                      # the compare table names every member
        first = next(json.loads(line) for line in (tmp_path / "runs" / run_id / "events.jsonl").open()
                     if '"type":"task"' in line)
        assert bool(first["selected"]) == ("ps" in key)     # each copy starts with the starting memory's concept
    assert "oracle@1 (one thread)" in result.stdout and start.revision() == revision   # members wrote their copies
    solves = len(fake_model.calls_for("solve"))
    assert solves == 8                                      # repeat 2 asked afresh, not from the cache

    again = sweep(tmp_path)                                  # finished members are not run again
    assert again.exit_code == 0 and len(fake_model.calls_for("solve")) == solves
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == sorted([*record.values(), "sweeps"])


def test_a_stopped_member_is_resumed_by_running_the_sweep_again(tmp_path, fake_model):
    script_run(fake_model)
    assert sweep(tmp_path).exit_code == 0
    record = json.loads((tmp_path / "runs" / "sweeps" / "demo.json").read_text())
    stopped = tmp_path / "runs" / record["selection=ps#2"]
    (stopped / "summary.json").unlink()                     # as if killed after its first task
    lines = (stopped / "events.jsonl").read_text().splitlines()
    last_task = max(i for i, line in enumerate(lines) if '"type":"task"' in line)
    (stopped / "events.jsonl").write_text("\n".join(lines[:last_task]) + "\n")
    (stopped / "status.json").write_text(json.dumps({"status": "interrupted"}))
    result = sweep(tmp_path)
    assert result.exit_code == 0, result.output
    summary = json.loads((stopped / "summary.json").read_text())
    assert summary["tasks"] == 2 and json.loads((stopped / "status.json").read_text())["status"] == "finished"


def test_a_bad_sweep_file_names_the_key(tmp_path):
    result = sweep(tmp_path, "solve: {source: training}\ngrid: {selection: [none], colour: [red]}\n")
    assert result.exit_code == 1 and "sweep.yaml: grid: unknown key 'colour'" in result.output
    assert "sweep.yaml" in result.output and not (tmp_path / "runs").exists()
    result = sweep(tmp_path, "solve: {source: training}\ngrid: {k: [0]}\n")
    assert result.exit_code == 1 and "k must be at least 1" in result.output
