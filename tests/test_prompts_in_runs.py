"""A run with the user's templates (--prompts DIR) and grid text (--grid-text): checked before anything
exists, in force for every model call, recorded in config.json, kept by --resume. End to end through
the CLI against the scripted fake model, reading the prompts it received."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from runner_support import script_run

from arcmemo.cli import cli
from arcmemo.core.tasks import load_tasks
from arcmemo.prompts import SHIPPED

ROOT = Path(__file__).resolve().parent.parent
TASK = "0d3d703e"
SOLVE = ("---\nrequired: puzzle, hint_section\n---\nREWORDED-SOLVE: find the rule of these grids.\n$puzzle\n"
         "$hint_section\nEnd with one ```python block defining transform(grid).\n")
SELECT = "REWORDED-SELECT: pick concepts.\n$memory\n$puzzle\n"


@pytest.fixture
def prompts(tmp_path) -> Path:
    folder = tmp_path / "prompts"
    (folder / "program-synthesis").mkdir(parents=True)
    (folder / "program-synthesis" / "solve.txt").write_text(SOLVE)
    (folder / "select_ps.txt").write_text(SELECT)
    return folder


@pytest.fixture
def memory(tmp_path) -> str:
    """The default memory (seeded concepts to select from), copied: the solve only reads it."""
    copy = tmp_path / "memory.db"
    shutil.copy(ROOT / "memory.db", copy)
    return str(copy)


def solve(tmp_path, memory, *args):
    return CliRunner().invoke(cli, ["solve", "--tasks", TASK, "--retries", "0", "--no-probe-helpers", "-q",
                                    "--solver-model", "fake", "--select-model", "fake", "--db", memory,
                                    "--run-dir", str(tmp_path / "runs"), *args])


def only_run(tmp_path) -> Path:
    (run,) = (tmp_path / "runs").iterdir()
    return run


def test_a_solve_with_one_overridden_template_sends_the_new_wording_and_records_its_source(
        tmp_path, memory, prompts, fake_model):
    script_run(fake_model)
    result = solve(tmp_path, memory, "--prompts", str(prompts))
    assert result.exit_code == 0, result.output
    (solve_call,) = fake_model.calls_for("solve")
    user = solve_call.messages[1]["content"]
    assert user.startswith("REWORDED-SOLVE: find the rule of these grids.")
    assert "# Your task" not in user                              # the shipped wording is gone
    assert "You solve ARC puzzles by writing Python programs." in solve_call.messages[0]["content"]   # shipped
    select_call = fake_model.calls_for("select_ps")[0]       # (then asked again, naming the memory's concepts)
    assert select_call.messages[0]["content"].startswith("REWORDED-SELECT: pick concepts.")
    run = only_run(tmp_path)
    assert json.loads((run / "summary.json").read_text())["passed_train"] == [TASK]      # the run itself went right
    config = json.loads((run / "config.json").read_text())
    assert config["settings"]["prompts_dir"] == str(prompts.resolve())
    assert config["solver_templates"]["solve"]["source"] == str(prompts.resolve() / "program-synthesis" / "solve.txt")
    assert config["solver_templates"]["system"]["source"] == SHIPPED
    assert config["prompt_templates"]["select_ps"]["source"] == str(prompts.resolve() / "select_ps.txt")
    assert config["prompt_templates"]["caption"] == {"hash": config["prompt_templates"]["caption"]["hash"],
                                                     "source": SHIPPED}


def test_resume_renders_the_recorded_templates_and_refuses_new_ones(tmp_path, memory, prompts, fake_model):
    script_run(fake_model)
    assert solve(tmp_path, memory, "--prompts", str(prompts)).exit_code == 0
    run = only_run(tmp_path)
    events = run / "events.jsonl"                          # forget the task: --resume solves it again
    events.write_text("".join(line for line in events.read_text().splitlines(keepends=True)
                              if '"type":"task"' not in line))
    refused = CliRunner().invoke(cli, ["solve", "--resume", str(run), "--prompts", str(prompts)])
    assert refused.exit_code == 2 and "leave out --config, --prompts and --grid-text" in refused.output
    resumed = CliRunner().invoke(cli, ["solve", "--resume", str(run), "-q", "--no-cache"])
    assert resumed.exit_code == 0, resumed.output
    first, again = fake_model.calls_for("solve")
    assert again.messages == first.messages and "REWORDED-SOLVE" in again.prompt
    assert "prompt templates changed" not in resumed.output


def test_resume_says_which_templates_changed_since_the_run_started(tmp_path, memory, prompts, fake_model):
    script_run(fake_model)
    assert solve(tmp_path, memory, "--prompts", str(prompts)).exit_code == 0
    run = only_run(tmp_path)
    recorded = json.loads((run / "config.json").read_text())["solver_templates"]["solve"]["hash"]
    (prompts / "program-synthesis" / "solve.txt").write_text(SOLVE.replace("REWORDED", "EDITED"))
    resumed = CliRunner().invoke(cli, ["solve", "--resume", str(run), "-q"])
    assert resumed.exit_code == 0, resumed.output
    assert re.search(rf"prompt templates changed since the run started: solve \({recorded} -> [0-9a-f]{{16}}\)",
                     resumed.output)


def test_a_bad_prompts_directory_or_template_stops_the_run_before_a_run_directory_exists(
        tmp_path, memory, prompts, fake_model):
    script_run(fake_model)
    missing = solve(tmp_path, memory, "--prompts", str(tmp_path / "nowhere"))
    assert missing.exit_code == 1
    assert missing.output.strip() == (f"Error: setting prompts_dir (from flag --prompts): expected an existing "
                                      f"directory, got '{tmp_path / 'nowhere'}'")
    (prompts / "program-synthesis" / "solve.txt").write_text(SOLVE.replace("$hint_section", "$hints"))
    bad = solve(tmp_path, memory, "--prompts", str(prompts))
    assert bad.exit_code == 1
    assert bad.output.strip().splitlines() == [
        f"Error: {prompts.resolve() / 'program-synthesis' / 'solve.txt'}: uses $hints, which template "
        "'program-synthesis/solve' does not take (it takes $puzzle, $hint_section; any template may use "
        "$grid_layout, $grid_note)"]
    assert not (tmp_path / "runs").exists() and fake_model.calls == []


def test_grid_text_numpy_writes_every_grid_as_numpy_arrays_and_says_so(tmp_path, memory, fake_model):
    script_run(fake_model)
    result = solve(tmp_path, memory, "--grid-text", "numpy")
    assert result.exit_code == 0, result.output
    task = load_tasks("training", ids=[TASK]).tasks[0]
    first_input = np.array2string(np.array(task.train[0].input), separator=", ")
    (solve_call,) = fake_model.calls_for("solve")
    system, user = (m["content"] for m in solve_call.messages)
    assert f"Example 1 input (3x3):\n{first_input}" in user
    assert "numpy array" in system and "one digit per cell" not in system
    select_call = fake_model.calls_for("select_ps")[0]
    assert first_input in select_call.prompt and "Grids are written as numpy arrays" in select_call.prompt
    config = json.loads((only_run(tmp_path) / "config.json").read_text())
    assert config["settings"]["grid_text"] == "numpy"
    assert json.loads((only_run(tmp_path) / "summary.json").read_text())["passed_train"] == [TASK]


def test_the_grid_text_setting_comes_from_the_environment_and_a_bad_one_is_refused(
        tmp_path, memory, fake_model, monkeypatch):
    script_run(fake_model)
    monkeypatch.setenv("ARCMEMO_GRID_TEXT", "numpy")
    assert solve(tmp_path, memory).exit_code == 0
    assert json.loads((only_run(tmp_path) / "config.json").read_text())["settings"]["grid_text"] == "numpy"
    monkeypatch.setenv("ARCMEMO_GRID_TEXT", "hex")
    bad = solve(tmp_path, memory)
    assert bad.exit_code == 1 and "setting grid_text (from env ARCMEMO_GRID_TEXT): expected one of digits, numpy, " \
        "got 'hex'" in bad.output
    assert len(list((tmp_path / "runs").iterdir())) == 1


def test_select_reads_the_prompts_and_grid_text_and_records_them(tmp_path, memory, prompts, fake_model):
    script_run(fake_model)
    result = CliRunner().invoke(cli, ["select", TASK, "--no-probe-helpers", "--select-model", "fake", "--db", memory,
                                      "--prompts", str(prompts), "--grid-text", "numpy", "--record",
                                      "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    call = fake_model.calls_for("select_ps")[0]
    assert call.prompt.startswith("REWORDED-SELECT") and "[[" in call.prompt
    config = json.loads((only_run(tmp_path) / "config.json").read_text())
    assert config["grid_text"] == "numpy" and config["prompts_dir"] == str(prompts.resolve())
    assert config["prompt_templates"]["select_ps"]["source"] == str(prompts.resolve() / "select_ps.txt")


def test_a_sweep_checks_every_members_prompts_before_the_first_run(tmp_path, memory, prompts, fake_model):
    script_run(fake_model)
    (prompts / "select_ps.txt").write_text("$memory only")          # leaves out the puzzle
    plan = tmp_path / "sweep.yaml"
    plan.write_text(f"solve: {{task_ids: [{TASK}], retries: 0, probe_helpers: false}}\n"
                    f"grid: {{prompts_dir: [null, {prompts}], solver_model: [fake], select_model: [fake]}}\n")
    result = CliRunner().invoke(cli, ["sweep", str(plan), "--db", memory, "--run-dir", str(tmp_path / "runs"), "-q"])
    assert result.exit_code == 1
    assert "select_ps.txt: leaves out $puzzle, which template 'select_ps' requires" in result.output
    assert fake_model.calls == []
