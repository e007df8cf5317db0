"""Repeats draw new samples (run/repeats.py): `solve --repeat N` asks every step afresh, a resume
replays its own run's answers, and `runs compare --mean` refuses runs of other settings or runs
that replayed each other's answers, naming why, unless --allow-mismatch."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from click.testing import CliRunner
from runner_support import TASK_IDS, script_run

from arcmemo.cli import cli
from arcmemo.run.records.rundir import RunDir

FAKE = ["--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"]


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def solve(tmp_path, name: str, *args) -> str:
    """A continual PS run on two tasks from an empty memory of its own (so writes are asked too); its id."""
    runs = tmp_path / "runs"
    before = {p.name for p in runs.iterdir()} if runs.exists() else set()
    result = invoke("solve", "--tasks", ",".join(TASK_IDS[:2]), "--retries", "0", "--continual", "-k", "1",
                    "--db", tmp_path / f"{name}.db", "--run-dir", runs, "-q", *FAKE, *args)
    assert result.exit_code == 0, result.output
    (run,) = {p.name for p in runs.iterdir()} - before
    return run


def steps(fake, since: int) -> Counter:
    """The model's calls (the ones not answered from the cache) since call `since`, by step."""
    return Counter(c.step for c in fake.calls[since:])


def mean(tmp_path, *runs, extra=()):
    return invoke("runs", "compare", *runs, "--mean", "--run-dir", tmp_path / "runs", *extra)


def test_a_configuration_run_again_replays_the_cache_and_mean_refuses_it_by_name(tmp_path, fake_model):
    script_run(fake_model)
    first = solve(tmp_path, "a")
    asked = steps(fake_model, 0)
    assert {"solve", "select_ps", "pseudocode", "ps_abstract"} <= set(asked)      # reads and writes
    n = len(fake_model.calls)
    again = solve(tmp_path, "b")
    assert steps(fake_model, n) == Counter()          # every answer came from the call cache
    refused = mean(tmp_path, first, again)
    assert refused.exit_code == 1
    (line,) = [line for line in refused.output.splitlines() if line.strip()]
    assert f"run {again} replayed" in line and f"from run {first} through the call cache" in line
    assert "--repeat" in line and "--allow-mismatch" in line
    allowed = mean(tmp_path, first, again, extra=["--allow-mismatch"])
    assert allowed.exit_code == 0, allowed.output
    assert "averaging anyway (--allow-mismatch)" in allowed.output and "2 runs of one configuration" in allowed.output


def test_a_repeat_asks_every_step_afresh_and_mean_takes_it(tmp_path, fake_model):
    script_run(fake_model)
    first = solve(tmp_path, "a")
    asked = steps(fake_model, 0)
    n = len(fake_model.calls)
    repeat = solve(tmp_path, "b", "--repeat", "1")
    assert steps(fake_model, n) == asked              # the same calls, each asked of the model again
    assert json.loads((tmp_path / "runs" / repeat / "config.json").read_text())["settings"]["repeat"] == 1
    accepted = mean(tmp_path, first, repeat)
    assert accepted.exit_code == 0, accepted.output
    assert "2 runs of one configuration" in accepted.output and "averaging anyway" not in accepted.output


def test_a_resumed_repeat_replays_its_own_answers(tmp_path, fake_model):
    script_run(fake_model)
    runs = tmp_path / "runs"
    shutil.copy(Path(__file__).resolve().parents[1] / "memory.db", tmp_path / "m.db")   # the memory a user has
    result = invoke("solve", "--tasks", ",".join(TASK_IDS[:2]), "--retries", "0", "--repeat", "2",
                    "--db", tmp_path / "m.db", "--run-dir", runs, "-q", *FAKE)
    assert result.exit_code == 0, result.output
    (run,) = runs.iterdir()
    summary = json.loads((run / "summary.json").read_text())
    # as if killed before its tasks were recorded
    events = run / "events.jsonl"
    events.write_text("".join(line + "\n" for line in events.read_text().splitlines()
                              if json.loads(line)["type"] != "task"))
    (run / "summary.json").unlink()
    RunDir(run).set_status("interrupted")
    n = len(fake_model.calls)
    resumed = invoke("solve", "--resume", run.name, "--run-dir", runs, "-q", *FAKE)
    assert resumed.exit_code == 0, resumed.output
    assert steps(fake_model, n) == Counter()          # both tasks solved again from the run's own answers
    assert json.loads((run / "summary.json").read_text())["solved"] == summary["solved"]


def test_mean_refuses_runs_of_two_memory_methods_naming_the_setting(tmp_path, fake_model):
    script_run(fake_model)
    fake_model.on("oe_caption", lambda messages: "a caption")
    fake_model.on("select_oe", lambda messages: "```yaml\n- nothing\n```")
    ps = solve(tmp_path, "ps")
    oe = solve(tmp_path, "oe", "--selection", "oe", "--repeat", "1")
    refused = mean(tmp_path, ps, oe)
    assert refused.exit_code == 1
    (line,) = [line for line in refused.output.splitlines() if line.strip()]
    assert f"runs {ps} and {oe} are not one configuration" in line
    assert "selection: ps vs oe" in line and "memory_format: ps vs oe" in line
    released = solve(tmp_path, "rel", "--protocol", "released-code", "--repeat", "2")
    refused = mean(tmp_path, ps, released)
    assert refused.exit_code == 1 and "protocol: arcmemo vs released-code" in refused.output, refused.output


def test_a_sweeps_repeats_are_repeats_of_their_grid_point(tmp_path):
    from arcmemo.cli.sweep import load_plan as load_sweep
    from arcmemo.run.jobs.sweep import SweepError

    path = tmp_path / "sweep.yaml"
    path.write_text("solve: {retries: 0}\ngrid: {selection: [none, ps]}\nrepeats: 3\n")
    plan = load_sweep(path)
    assert [(m.key, m.config.repeat) for m in plan.members] == [
        ("selection=none#1", 0), ("selection=none#2", 1), ("selection=none#3", 2),
        ("selection=ps#1", 0), ("selection=ps#2", 1), ("selection=ps#3", 2)]
    path.write_text("solve: {retries: 0, repeat: 1}\nrepeats: 3\n")
    try:
        load_sweep(path)
    except SweepError as exc:
        assert "repeats: N" in str(exc)
    else:
        raise AssertionError("a sweep setting `repeat` must be refused")


def test_a_repeats_model_seed_starts_past_every_sample_of_the_repeats_before_it():
    from arcmemo.run.config import RunConfig

    def seeds(repeat: int) -> set[int]:
        config = RunConfig(selection="none", model_seed=100, threads=3, passes=2, repeat=repeat)
        # the solver's seed of sample i is its base + i (solverkit/conversation.py)
        return {s.extra["seed"] + s.sample_offset + i for p in (1, 2) for t in range(3)
                for s in [config.solver_settings(p, t)] for i in range(s.attempts)}

    assert seeds(0) == set(range(100, 106)) and seeds(1) == set(range(106, 112)) and not seeds(0) & seeds(2)
