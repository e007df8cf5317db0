"""`arcmemo runs list|show|compare|score` over run directories made by real (fake-model) runs."""

from __future__ import annotations

import json

from click.testing import CliRunner
from runner_support import TASK_IDS, script_run

from arcmemo.cli import cli
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver


def make_run(tmp_path, llm, **settings):
    config = RunConfig(source="training", task_ids=TASK_IDS[:3], retries=0, **settings)
    runner = new_runner(config, memory=Memory(str(tmp_path / "memory.db")), make_llm=lambda run_id: llm,
                        sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                        runs_root=str(tmp_path / "runs"))
    runner.run()
    return runner.rundir


def invoke(*args):
    result = CliRunner().invoke(cli, list(args))
    return result


def test_list_show_compare_and_score(tmp_path, fake_model, fake_llm):
    script_run(fake_model)
    full = make_run(tmp_path, fake_llm, selection="none")
    script_run(fake_model, unsolved={TASK_IDS[0]})
    fake_llm.settings.cache = False   # the second run must ask again to get the worse answers
    partial = make_run(tmp_path, fake_llm, selection="all")
    root = str(tmp_path / "runs")

    listed = invoke("runs", "list", "--run-dir", root, "--json")
    assert listed.exit_code == 0, listed.output
    rows = {r["run"]: r for r in json.loads(listed.output)}
    assert rows[full.run_id]["score"] == rows[full.run_id]["arc_prize"] == 100.0
    assert rows[full.run_id]["statistic"] == "oracle@1 (one thread)" and rows[partial.run_id]["selection"] == "all"

    shown = invoke("runs", "show", partial.run_id, "--run-dir", root, "--tasks")
    assert shown.exit_code == 0 and "oracle@1 over one thread, retry depth 0" in shown.output
    assert "ARC Prize score (2 submitted attempts)" in shown.output and TASK_IDS[0] in shown.output

    compared = invoke("runs", "compare", full.run_id, partial.run_id, "--run-dir", root)
    assert compared.exit_code == 0, compared.output
    assert f"only {full.run_id} solves with its submitted attempts (1): {TASK_IDS[0]}" in compared.output
    assert f"only {partial.run_id} solves with its submitted attempts (0): -" in compared.output

    scored = invoke("runs", "score", str(partial.submissions), "--split", "training", "--json")
    assert scored.exit_code == 0, scored.output
    result = json.loads(scored.output)
    assert result["tasks"] == 3 and abs(result["oracle2"] - 2 / 3) < 1e-9 and result["missing"] == []


def test_unknown_run_is_a_clean_error(tmp_path):
    result = invoke("runs", "show", "nope", "--run-dir", str(tmp_path))
    assert result.exit_code == 1 and "no run 'nope'" in result.output and "Traceback" not in result.output


def test_selections_show_what_each_task_was_offered(tmp_path, fake_model, fake_llm):
    from runner_support import LEARNED

    script_run(fake_model)
    rundir = make_run(tmp_path, fake_llm, selection="ps", continual=True, k=1)
    result = invoke("runs", "selections", rundir.run_id, "--run-dir", str(tmp_path / "runs"), "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["task"] for r in rows] == TASK_IDS[:3]
    assert rows[0]["concepts"] == [] and rows[1]["concepts"] == [LEARNED]   # written after task 1 (k=1)
    text = invoke("runs", "selections", rundir.run_id, "--task", TASK_IDS[1], "--run-dir",
                  str(tmp_path / "runs"), "--reasoning").output
    assert f"{TASK_IDS[1]} (pass 1, ps): {LEARNED}" in text and "I start from the cues." in text


def test_selections_show_the_reasoning_apart_and_type_names_are_not_missing_concepts(tmp_path, fake_model, fake_llm):
    import yaml
    from runner_support import LEARNED, PS_CONCEPT

    memory = Memory(str(tmp_path / "memory.db"))
    concept = yaml.safe_load(PS_CONCEPT.strip("`").removeprefix("yaml"))[0]
    memory.add({**concept, "parameters": [{"name": "shape", "typing": "list[object]", "description": "what moves"}]},
               actor="test")
    memory.add_custom_type("direction", "up | down | left | right", actor="test")
    script_run(fake_model)
    answers = iter([f"The colours swap one for one, so a lookup table.\n```yaml\n- {LEARNED}\n- object\n- Direction\n"
                    "- warp space\n```", f"```yaml\n- {LEARNED}\n```", f"```yaml\n- {LEARNED}\n```"])
    fake_model.on("select_ps", lambda messages: next(answers))
    rundir = make_run(tmp_path, fake_llm, selection="ps")
    root = str(tmp_path / "runs")
    text = invoke("runs", "selections", rundir.run_id, "--run-dir", root, "--reasoning").output
    first, second = text.split(f"{TASK_IDS[1]} (pass 1")[0], text.split(f"{TASK_IDS[1]} (pass 1")[1]
    assert "named but not in memory: warp space\n" in first                  # "object", "Direction" are types
    assert "named types of the memory, not concepts: object, Direction" in first
    assert "  reasoning:\n    The colours swap one for one, so a lookup table.\n" in first
    assert f"  answer:\n    - {LEARNED}\n    - object" in first
    assert "(the select model gave no reasoning: its answer was the list alone)" in second
    rows = json.loads(invoke("runs", "selections", rundir.run_id, "--run-dir", root, "--json").output)
    assert rows[0]["unmatched"] == ["warp space"] and rows[0]["named_types"] == ["object", "Direction"]
