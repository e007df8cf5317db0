"""Every run kind can be viewed: `runs list/show/compare/report`, `runs export` and the page handle seed,
cheatsheet, select and solve runs (and interrupted ones) by what each holds. The runs are real: made by
the commands themselves (scripted fake model, real sandbox)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from runner_support import TASK_IDS, script_run

from arcmemo.cli import cli
from arcmemo.memory.store import Memory
from arcmemo.run.records.rundir import RunDir

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
SEED_TASKS = ["0d3d703e", "1e0a9b12"]            # hand-annotated seeds: no model needed to ingest them


def invoke(*args, code: int = 0):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def kinds(tmp_path, fake_model, monkeypatch):
    """One run of every kind under tmp_path/runs: seed, cheatsheet (finished), cheatsheet (Ctrl-C during
    its second rewrite), select (--record), solve (finished) and solve (killed after its first task)."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for task_id in SEED_TASKS:
        for path in SEEDS.glob(f"{task_id}.*"):
            shutil.copy(path, seeds / path.name)
    shutil.copy(SEEDS / "memory_helpers.py", seeds)
    db, root = tmp_path / "memory.db", tmp_path / "runs"
    common = ["--db", db, "--run-dir", root]
    made = {}

    def newest() -> str:
        return sorted(p.name for p in root.iterdir() if p.name not in made.values())[-1]

    invoke("seed", seeds, "-q", *common)
    made["seed"] = newest()
    fake_model.on("cheatsheet", lambda messages: "<cheatsheet>\n- a tip\n</cheatsheet>")
    invoke("cheatsheet", "build", seeds, "--aux-model", "fake", "-q", "--db", tmp_path / "sheet.db", "--run-dir", root)
    made["cheatsheet"] = newest()
    import arcmemo.run.jobs.curating as curating

    rewrite, calls = curating.update_cheatsheet, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt      # Ctrl-C while the curator rewrites the sheet after the second seed
        return rewrite(*args, **kwargs)

    monkeypatch.setattr(curating, "update_cheatsheet", interrupted)
    invoke("cheatsheet", "build", seeds, "--aux-model", "fake", "-q", "--db", tmp_path / "sheet2.db",
           "--run-dir", root, code=130)
    made["cheatsheet_interrupted"] = newest()
    fake_model.on("select_ps", lambda messages: "I start from the cues.\n```yaml\n- nothing like it\n```")
    invoke("select", TASK_IDS[2], "--record", "--select-model", "fake", "--no-probe-helpers", *common)
    made["select"] = newest()
    script_run(fake_model)
    invoke("solve", "--tasks", ",".join(TASK_IDS[:2]), "--selection", "none", "--retries", "0", "-q",
           "--solver-model", "fake", *common)
    made["solve"] = newest()
    killed = root / "solve-killed"
    shutil.copytree(root / made["solve"], killed)
    (killed / "summary.json").unlink()
    lines = (killed / "events.jsonl").read_text().splitlines()
    last_task = max(i for i, line in enumerate(lines) if '"type":"task"' in line)
    (killed / "events.jsonl").write_text("\n".join(lines[:last_task]) + "\n")    # killed after its first task
    RunDir(killed).set_status("running", pid=999999)                           # as kill -9 leaves it
    made["solve_killed"] = "solve-killed"
    return tmp_path, made


def test_runs_list_tells_each_kind_and_its_state(kinds):
    tmp_path, made = kinds
    rows = {r["run"]: r for r in json.loads(invoke("runs", "list", "--run-dir", tmp_path / "runs", "--json").output)}
    assert rows[made["seed"]]["kind"] == "seed" and rows[made["seed"]]["holds"] == "2 of 2 seeds, 6 concepts added"
    assert rows[made["cheatsheet"]]["status"] == "finished"
    assert rows[made["cheatsheet_interrupted"]]["status"] == "interrupted"     # not "finished"
    assert rows[made["select"]]["holds"] == "1 selection" and rows[made["select"]]["score"] is None
    assert rows["solve-killed"]["status"] == "interrupted" and rows["solve-killed"]["holds"] == "1 of 2"
    assert rows["solve-killed"]["tasks"] == 1 and rows[made["seed"]]["tasks"] is None
    assert rows["solve-killed"]["score"] == 100.0                             # its one task so far
    invoke("runs", "list", "--run-dir", tmp_path / "runs")


def test_runs_show_and_compare_show_what_each_kind_holds(kinds):
    tmp_path, made = kinds
    root = tmp_path / "runs"
    seed = invoke("runs", "show", made["seed"], "--run-dir", root).output
    assert re.search(r"from annotations +2", seed) and re.search(r"concepts added +6", seed)
    sheet = invoke("runs", "show", made["cheatsheet_interrupted"], "--run-dir", root).output
    assert f"run {made['cheatsheet_interrupted']} is interrupted" in sheet and re.search(r"sheet rewritten +1", sheet)
    select = invoke("runs", "show", made["select"], "--run-dir", root).output
    assert re.search(r"selections recorded +1", select)
    killed = invoke("runs", "show", "solve-killed", "--run-dir", root).output
    assert "is interrupted: 1 of 2 tasks done, scored so far" in killed and "--resume" in killed
    assert re.search(r"oracle@1 over one thread, retry depth 0 \(the paper's score\) +100\.00", killed)
    assert json.loads(invoke("runs", "show", "solve-killed", "--run-dir", root, "--json").output)["partial"] is True
    seed_killed = root / "seed-killed"                 # killed before it could write its summary
    shutil.copytree(root / made["seed"], seed_killed)
    (seed_killed / "summary.json").unlink()
    RunDir(seed_killed).set_status("running", pid=999999)
    shown = invoke("runs", "show", "seed-killed", "--run-dir", root).output
    assert "run seed-killed is interrupted" in shown and re.search(r"verify events \(ok, failed\) +2, 0", shown)
    everything = invoke("runs", "compare", *made.values(), "--run-dir", root).output
    assert made["solve"] in everything and "solve-killed" in everything
    assert f"seed run {made['seed']}" in everything and f"cheatsheet run {made['cheatsheet']}" in everything
    as_json = json.loads(invoke("runs", "compare", *made.values(), "--run-dir", root, "--json").output)
    assert sorted(r["kind"] for r in as_json) == ["cheatsheet", "cheatsheet", "seed", "select", "solve", "solve"]
    refused = invoke("runs", "compare", made["seed"], made["solve"], "--mean", "--run-dir", root, code=1)
    assert "--mean averages solve runs; not solve runs: " + made["seed"] + " (seed)" in refused.output
    unfinished = invoke("runs", "compare", made["solve"], "solve-killed", "--mean", "--run-dir", root, code=1)
    assert "--mean averages finished runs; not finished: solve-killed (interrupted, 1 of 2 tasks)" in unfinished.output


def test_the_report_and_the_page_show_every_kind(kinds):
    tmp_path, made = kinds
    out = tmp_path / "report.html"
    invoke("runs", "report", *made.values(), "--run-dir", tmp_path / "runs", "--db", tmp_path / "memory.db",
           "-o", out)
    html = out.read_text()
    for kind, run_id in made.items():
        assert f'id="run-{run_id}"' in html, kind
    assert re.search(r'<span class="setting">cheatsheet[^<]*</span>; interrupted\.', html)
    assert re.search(r'<span class="setting">seed[^<]*</span>; finished\.', html)
    starlette_testclient = pytest.importorskip("starlette.testclient")
    from arcmemo.web.app import create_app

    with Memory(str(tmp_path / "memory.db")) as memory:
        app = create_app(memory, tmp_path / "runs", actor="user:test", allowed_hosts=["testserver"])
        with starlette_testclient.TestClient(app) as client:
            assert client.get("/runs").status_code == 200
            for kind, run_id in made.items():
                page = client.get(f"/runs/{run_id}")
                assert page.status_code == 200, (kind, page.text[-500:])
            compare = client.get("/runs/compare?" + "&".join(f"run={r}" for r in made.values()))
            assert compare.status_code == 200
            state = client.get(f"/runs/{made['cheatsheet_interrupted']}/progress").text
    assert 'data-state="interrupted"' in state


def test_export_refuses_a_run_without_predictions(kinds):
    tmp_path, made = kinds
    root = tmp_path / "runs"
    for kind in ("seed", "cheatsheet", "select"):
        target = tmp_path / f"{kind}.json"
        refused = invoke("runs", "export", made[kind], "--run-dir", root, "--kaggle", target, code=1)
        assert f"is a {kind} run: it made no predictions to export" in refused.output
        assert not target.exists()
        harness = invoke("runs", "export", made[kind], "--run-dir", root, "--harness", tmp_path / kind, code=1)
        assert "no predictions" in harness.output and not (tmp_path / kind).exists()
    empty = root / "solve-empty"
    shutil.copytree(root / "solve-killed", empty)
    for path in (empty / "submissions").iterdir():
        path.unlink()
    refused = invoke("runs", "export", "solve-empty", "--run-dir", root, "--kaggle", tmp_path / "e.json", code=1)
    assert "has no predictions to export (no task finished with a submission" in refused.output
    done = invoke("runs", "export", made["solve"], "--run-dir", root, "--kaggle", tmp_path / "solve.json")
    assert "2 from the run" in done.output and (tmp_path / "solve.json").exists()
