"""`arcmemo select TASK`: prints chosen concepts, unmatched names and the hint."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.memory.store import Memory

TASK = {"train": [{"input": [[1, 0], [0, 0]], "output": [[2, 0], [0, 0]]},
                  {"input": [[0, 1], [0, 0]], "output": [[0, 2], [0, 0]]}],
        "test": [{"input": [[0, 0], [1, 0]], "output": [[0, 0], [2, 0]]}]}


@pytest.fixture
def setup(tmp_path, monkeypatch):
    task_file = tmp_path / "cafe0001.json"
    task_file.write_text(json.dumps(TASK))
    db = tmp_path / "memory.db"
    mem = Memory(db)
    mem.add({"name": "recolor object", "kind": "routine", "routine_subtype": "grid manipulation",
             "output_typing": "grid", "cues": ["same shapes, new colour"]}, actor="t")
    mem.add({"name": "draw line", "kind": "routine", "routine_subtype": "grid manipulation"}, actor="t")
    mem.close()
    monkeypatch.setenv("ARCMEMO_SELECT_MODEL", "fake")
    monkeypatch.setenv("ARCMEMO_AUX_MODEL", "fake")
    return str(task_file), str(db)


def test_select_ps_prints_concepts_unmatched_and_hint(setup, fake_model):
    task_file, db = setup
    fake_model.queue("select_ps", "```yaml\n- Recolor Object\n- warp space\n```")
    result = CliRunner().invoke(cli, ["select", task_file, "--db", db, "--no-other-names"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "task cafe0001  mode ps" in out
    assert "memory: 2 concepts, 2 shown to the model (full)" in out
    assert "recolor object" in out.split("--- hint ---")[0]
    assert "unmatched: 'warp space'" in out
    assert "- concept: recolor object" in out.split("--- hint ---")[1]
    assert "draw line" not in out
    runs = Path(os.environ["ARCMEMO_RUNS_DIR"])
    assert not runs.exists()                                        # not recorded by default


def test_select_leaves_the_memory_file_as_it_was(setup, fake_model):
    task_file, db = setup
    before = Path(db).read_bytes()
    fake_model.queue("select_ps", "```yaml\n- recolor object\n```")
    result = CliRunner().invoke(cli, ["select", task_file, "--db", db, "--record"])
    assert result.exit_code == 0, result.output
    assert Path(db).read_bytes() == before


def test_select_json_and_record(setup, fake_model):
    task_file, db = setup
    fake_model.queue("select_ps", "```yaml\n- draw line\n```")
    result = CliRunner().invoke(cli, ["select", task_file, "--db", db, "--json", "--record", "--run-id", "dbg"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [c["name"] for c in data["concepts"]] == ["draw line"] and data["fallback"] is False
    from arcmemo.run.records.rundir import RunDir

    rundir = RunDir.find("dbg", os.environ["ARCMEMO_RUNS_DIR"])      # recorded with the run, not in memory
    (rec,) = rundir.selections()
    assert rundir.run_id == "dbg" and rec["task_id"] == "cafe0001" and rec["concepts"] == ["draw line"]
    listed = CliRunner().invoke(cli, ["runs", "selections", "dbg", "--json"])
    assert json.loads(listed.output)[0]["concepts"] == ["draw line"]


def test_select_all_and_none_need_no_model(setup, fake_model):
    task_file, db = setup
    out = CliRunner().invoke(cli, ["select", task_file, "--db", db, "--mode", "all"]).output
    assert "chosen (2):" in out and "- concept: draw line" in out
    listed = out.split("chosen (2):\n")[1].splitlines()[:3]       # core/table.py's columns, ids to the right
    assert listed[0].split() == ["id", "concept"] and [line.split()[1:] for line in listed[1:]] == [["recolor", "object"],
                                                                                                  ["draw", "line"]]
    assert len({line.index(line.split()[1]) for line in listed}) == 1
    out = CliRunner().invoke(cli, ["select", task_file, "--db", db, "--mode", "none"]).output
    assert "(empty: the solver sees no memory)" in out
    assert fake_model.calls == []


def test_select_fallback_is_reported(setup, fake_model):
    task_file, db = setup
    fake_model.queue("select_ps", "no yaml", "still none")
    result = CliRunner().invoke(cli, ["select", task_file, "--db", db])
    assert result.exit_code == 0
    assert "fallback (no hint): select_ps: unreadable answer" in result.output


def test_select_unknown_task_is_a_user_error(setup):
    _, db = setup
    result = CliRunner().invoke(cli, ["select", "nosuchtask", "--db", db, "--mode", "none"])
    assert result.exit_code == 1
    assert "nosuchtask" in result.output and "Traceback" not in result.output


def test_select_other_names_shows_the_hint_as_solve_hands_it_on(setup, fake_model):
    from arcmemo.selection.ps import NOTE_OTHERS

    task_file, db = setup
    fake_model.queue("select_ps", "```yaml\n- recolor object\n```")
    result = CliRunner().invoke(cli, ["select", task_file, "--db", db, "--other-names"])
    assert result.exit_code == 0, result.output
    hint = result.output.split("--- hint ---")[1]
    assert "- concept: recolor object" in hint
    assert NOTE_OTHERS.strip() in hint and hint.split(NOTE_OTHERS.strip())[1].split() == ["-", "draw", "line"]
