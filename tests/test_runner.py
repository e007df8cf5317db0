"""The solve loop end to end with the scripted fake model, the real sandbox and solver."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from runner_support import (
    LEARNED,
    PS_CONCEPT,
    TASK_IDS,
    empty_memory,
    script_run,
    seed_code,
    sigint_as_in_a_terminal,
    task_lines,
    task_of,
    wait_for_tasks,
)

from arcmemo.core.tasks import load_tasks
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver

HERE = Path(__file__).resolve().parent


def run(tmp_path, llm, memory=None, **settings):
    tmp_path.mkdir(parents=True, exist_ok=True)
    memory = memory or Memory(str(tmp_path / "memory.db"))
    config = RunConfig(source="training", **settings)
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
    return runner, runner.run(), memory


def task_events(runner):
    return {e["task_id"]: e for e in runner.rundir.events() if e["type"] == "task"}


def test_concept_written_after_block_one_is_selected_in_block_two(tmp_path, fake_model, fake_llm):
    script_run(fake_model)
    runner, summary, memory = run(tmp_path, fake_llm, task_ids=TASK_IDS[:4], continual=True, k=2, retries=0)
    assert summary["passed_train"] == sorted(TASK_IDS[:4]) and summary["oracle2"] == 100.0
    learned = memory.get(LEARNED)
    assert learned is not None and set(learned.used_in) >= set(TASK_IDS[:2])
    events = task_events(runner)
    assert all(learned.id not in events[t]["selected"] for t in TASK_IDS[:2])   # block 1: memory empty
    assert all(learned.id in events[t]["selected"] for t in TASK_IDS[2:4])      # block 2: it was written
    assert LEARNED in summary["concepts_added"]
    # the run directory holds config, events, one submission per task and the summary
    config = json.loads((runner.rundir.path / "config.json").read_text())
    assert config["models"]["solver"] == "fake" and config["memory_revision_start"] == 0
    assert "select_ps" in config["prompt_templates"] and "feedback_closing" in config["solver_templates"]
    assert sorted(p.stem for p in runner.rundir.submissions.iterdir()) == sorted(TASK_IDS[:4])
    assert summary["memory_revision_end"] == memory.revision() > 0
    [recorded] = [r for r in memory.runs() if r.id == runner.rundir.run_id]
    assert (recorded.kind, recorded.status, recorded.memory_revision_start) == ("solve", "done", 0)
    assert recorded.memory_revision_end == memory.revision() and recorded.config["models"]["aux"] == "fake"


def test_memory_is_read_only_without_continual(tmp_path, fake_model, fake_llm):
    script_run(fake_model)
    memory = Memory(str(tmp_path / "memory.db"))
    import yaml

    memory.add(yaml.safe_load(PS_CONCEPT.strip("`").removeprefix("yaml"))[0], actor="test")
    before = memory.revision()
    runner, summary, _ = run(tmp_path, fake_llm, memory=memory, task_ids=TASK_IDS[:3])
    assert memory.revision() == before and summary["writes"] == 0
    assert all(memory.get(LEARNED).id in e["selected"] for e in task_events(runner).values())


def _memorizer(task):
    """Passes every train pair by lookup, wrong on the test input."""
    table = {str([list(r) for r in p.input]): [list(r) for r in p.output] for p in task.train}
    return f"TABLE = {table!r}\ndef transform(grid):\n    return TABLE.get(str(grid.tolist()), [[0]])\n"


def _test_peeker(task, answer):
    """Fails the train pairs but returns the right test output."""
    key = str([list(r) for r in task.test_inputs[0]])
    return f"def transform(grid):\n    return {answer!r} if str(grid.tolist()) == {key!r} else [[0]]\n"


def test_write_back_is_decided_by_train_pairs_only(tmp_path, fake_model, fake_llm):
    ids = TASK_IDS[:2]
    tasks = load_tasks("training", ids=ids)
    train_only, test_only = tasks.tasks
    answer = [list(r) for r in tasks.answers[test_only.id].test_outputs[0]]
    programs = {train_only.id: _memorizer(train_only), test_only.id: _test_peeker(test_only, answer)}
    script_run(fake_model)
    fake_model.on("solve", lambda m: f"```python\n{programs[task_of(m, ids)]}```")
    runner, summary, memory = run(tmp_path, fake_llm, task_ids=ids, continual=True, k=2, retries=0)
    assert summary["passed_train"] == [train_only.id]
    assert summary["per_task"][test_only.id]["oracle2"] == 1.0      # scoring sees the test output...
    written = [e["task_id"] for e in runner.rundir.events() if e["type"] == "write"]
    assert written == [train_only.id]                                # ...but only train pairs decide writes
    assert memory.get(LEARNED).used_in == [train_only.id]


def test_budget_stops_cleanly_before_exceeding(tmp_path, fake_model, fake_llm, isolated_home):
    (isolated_home / "models.yaml").write_text("prices:\n  fake: {input: 10000, output: 10000}\n")
    from arcmemo.llm.catalog import load_catalog

    fake_llm.catalog = load_catalog()   # the fixture's client was made before the price existed
    script_run(fake_model)
    first = run(tmp_path / "a", fake_llm, task_ids=TASK_IDS[:1], retries=0)[1]["usage"]["cost_usd"]
    assert first > 0
    _, summary, _ = run(tmp_path / "b", fake_llm, task_ids=TASK_IDS[1:5], retries=0, budget_usd=first * 2.5)
    assert summary["stopped"] == "budget"
    assert 0 < summary["tasks"] < 4 and summary["usage"]["cost_usd"] <= first * 2.5


def test_all_malformed_answers_finish_with_zero_solves(tmp_path, fake_model, fake_llm):
    memory = Memory(str(tmp_path / "memory.db"))
    import yaml

    memory.add(yaml.safe_load(PS_CONCEPT.strip("`").removeprefix("yaml"))[0], actor="test")
    script_run(fake_model, malformed=True)
    _, summary, _ = run(tmp_path, fake_llm, memory=memory, task_ids=TASK_IDS[:3], continual=True, k=1,
                        attempts=2, retries=1, passes=2)
    assert summary["tasks"] == 3 and summary["oracle2"] == 0 and summary["passed_train"] == []
    assert summary["selection_fallbacks"] > 0 and summary["writes"] == 0


# ---------------------------------------------------------------------- kill -9 and resume

COMPARED = ("tasks", "oracle1", "oracle2", "strict", "passes", "passed_train", "solved", "per_task",
            "concepts_added", "concepts_extended", "writes", "write_failures", "memory_revision_end")


def _cli(args, env, **kw):
    return subprocess.Popen([sys.executable, str(HERE / "fake_solve_cli.py"), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _solve_args(db, runs):
    return ["solve", "--tasks", ",".join(TASK_IDS), "--continual", "-k", "2", "--retries", "0", "-q",
            "--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake",
            "--db", str(db), "--run-dir", str(runs)]


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [1, 3])
def test_resume_after_kill_equals_uninterrupted_run(tmp_path, kill_after):
    # separate call logs: the killed run must not be sped up by the clean run's cached answers
    env = {**os.environ, "FAKE_DELAY": "0.3", "ARCMEMO_HOME": str(tmp_path / "home-killed")}
    clean_env = {**env, "ARCMEMO_HOME": str(tmp_path / "home-clean")}
    clean = _cli(_solve_args(tmp_path / "clean.db", tmp_path / "clean"), clean_env)
    out, err = clean.communicate(timeout=180)
    assert clean.returncode == 0, err
    (clean_dir,) = (tmp_path / "clean").iterdir()

    proc = _cli(_solve_args(tmp_path / "killed.db", tmp_path / "killed"), env, start_new_session=True)
    wait_for_tasks(tmp_path / "killed", kill_after)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    (killed_dir,) = (tmp_path / "killed").iterdir()
    assert not (killed_dir / "summary.json").exists() and task_lines(killed_dir) < len(TASK_IDS)

    # no --db and no model flags: the run directory says which memory and models it used
    resumed = _cli(["solve", "--resume", str(killed_dir), "-q"], env, cwd=tmp_path)
    out, err = resumed.communicate(timeout=180)
    assert resumed.returncode == 0, err
    clean_summary = json.loads((clean_dir / "summary.json").read_text())
    resumed_summary = json.loads((killed_dir / "summary.json").read_text())
    assert {k: resumed_summary[k] for k in COMPARED} == {k: clean_summary[k] for k in COMPARED}
    solved = [json.loads(line)["task_id"] for line in (killed_dir / "events.jsonl").read_text().splitlines()
              if '"type":"task"' in line]
    assert sorted(solved) == sorted(TASK_IDS)                     # every task solved exactly once
    clean_memory, killed_memory = Memory(str(tmp_path / "clean.db")), Memory(str(tmp_path / "killed.db"))
    assert len(killed_memory.history()) == len(clean_memory.history())   # no concept written twice


def test_cheatsheet_mode_rewrites_the_sheet_and_shows_it_next_time(tmp_path, fake_model, fake_llm):
    script_run(fake_model)
    fake_model.on("cheatsheet", lambda m: "<cheatsheet>\n- check for a fixed colour table first\n</cheatsheet>")
    runner, summary, memory = run(tmp_path, fake_llm, task_ids=TASK_IDS[:2], selection="cheatsheet",
                                  continual=True, k=1, retries=0)
    assert summary["writes"] == 2 and summary["write_failures"] == 0
    assert "fixed colour table" in memory.get("cheatsheet", format="sheet").description
    first, second = fake_model.calls_for("solve")
    assert "fixed colour table" not in first.prompt and "fixed colour table" in second.prompt


def test_failed_model_calls_are_counted_and_the_run_goes_on(tmp_path, fake_model, fake_llm):
    from arcmemo.llm.client import LLMError

    script_run(fake_model)
    fake_model.queue("solve", LLMError("401 invalid key"))
    _, summary, _ = run(tmp_path, fake_llm, task_ids=TASK_IDS[:2], selection="none", retries=0)
    assert summary["tasks"] == 2 and summary["usage"]["errors"] == 1
    assert summary["per_task"][TASK_IDS[0]]["oracle2"] == 0 and summary["per_task"][TASK_IDS[1]]["oracle2"] == 1


def test_a_later_pass_asks_the_model_afresh(tmp_path, fake_model, fake_llm):
    script_run(fake_model)
    ids = TASK_IDS[:1]
    bad = "```python\ndef transform(grid):\n    return [[0]]\n```"
    good = f"```python\n{seed_code(ids[0])}```"
    fake_model.queue("solve", bad, good)    # pass 1 gets the bad program, pass 2 (a new sample) the good one
    runner, summary, _ = run(tmp_path, fake_llm, task_ids=ids, selection="none", retries=0, passes=2)
    assert [p["oracle2"] for p in summary["passes"]] == [0.0, 100.0]
    assert [c.sample for c in fake_model.calls_for("solve")] == [0, 1]


def test_resume_refuses_a_different_memory(tmp_path, fake_model, fake_llm):
    from arcmemo.run.records.rundir import RunDir, RunDirError
    from arcmemo.run.session import resume_memory_url

    script_run(fake_model)
    runner, _, _ = run(tmp_path, fake_llm, task_ids=TASK_IDS[:1], selection="none", retries=0)
    recorded = runner.rundir.config()["memory_url"]
    assert recorded == str(tmp_path / "memory.db")
    rundir = RunDir(runner.rundir.path)
    assert resume_memory_url(recorded, None, rundir) == recorded
    assert resume_memory_url(recorded, str(tmp_path / "memory.db"), rundir) == str(tmp_path / "memory.db")
    with pytest.raises(RunDirError, match="resume it with the same memory"):
        resume_memory_url(recorded, str(tmp_path / "other.db"), rundir)
    with pytest.raises(RunDirError, match="pass the same --db"):
        resume_memory_url("postgresql://u:***@h/db", None, rundir)


def test_budget_also_bounds_the_write_back(tmp_path, fake_model, fake_llm, isolated_home):
    (isolated_home / "models.yaml").write_text("prices:\n  fake: {input: 10000, output: 10000}\n")
    from arcmemo.llm.catalog import load_catalog

    fake_llm.catalog = load_catalog()
    script_run(fake_model)
    first = run(tmp_path / "a", fake_llm, task_ids=TASK_IDS[:1], retries=0)[1]["usage"]["cost_usd"]
    runner, summary, _ = run(tmp_path / "b", fake_llm, task_ids=TASK_IDS[1:6], retries=0, continual=True, k=10,
                             budget_usd=first * 3.5)
    kinds = [e["type"] for e in runner.rundir.events()]
    assert summary["stopped"] == "budget" and "write_skipped" in kinds
    assert summary["usage"]["cost_usd"] <= first * 3.5


def test_a_write_whose_event_was_lost_is_recovered_from_the_store(tmp_path, fake_model, fake_llm):
    from arcmemo.run.loop import resume_runner

    script_run(fake_model)
    runner, summary, memory = run(tmp_path, fake_llm, task_ids=TASK_IDS[:2], continual=True, k=2, retries=0)
    revisions = memory.revision()
    events = runner.rundir.path / "events.jsonl"
    # as if killed right after the store committed the writes but before their events were appended
    kept = [line for line in events.read_text().splitlines() if '"type":"task"' in line]
    events.write_text("\n".join(kept) + "\n")
    (runner.rundir.path / "summary.json").unlink()
    resumed = resume_runner(runner.rundir, memory=memory, make_llm=lambda run_id: fake_llm,
                            sandbox=get_sandbox(), solver=load_solver("program-synthesis")).run()
    assert memory.revision() == revisions                        # nothing written twice
    assert resumed["concepts_added"] == summary["concepts_added"] == [LEARNED]
    assert resumed["concepts_extended"] == summary["concepts_extended"]
    assert all(e.get("recovered") for e in runner.rundir.events() if e["type"] == "write")


def test_solver_notes_and_errors_reach_the_event_log(tmp_path, fake_model, fake_llm):
    from arcmemo.llm.client import Usage
    from arcmemo.solverkit import SolveResult, Trace

    class NotingSolver:
        name = "noting"

        def solve(self, task, hint, ctx):
            return SolveResult(attempts=[], predictions=[[] for _ in task.test_inputs],
                               trace=Trace(notes=["view object[mono,none] dropped"]), usage=Usage(),
                               error="no agent fits")

    class BrokenSolver:
        name = "broken"

        def solve(self, task, hint, ctx):
            raise RuntimeError("plugin bug")

    for solver, expected in ((NotingSolver(), ["view object[mono,none] dropped", "no agent fits"]),
                             (BrokenSolver(), [])):
        config = RunConfig(source="training", task_ids=TASK_IDS[:1], selection="none")
        runner = new_runner(config, memory=Memory(str(tmp_path / f"{solver.name}.db")),
                            make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(), solver=solver,
                            runs_root=str(tmp_path / "runs"))
        summary = runner.run()
        (event,) = task_events(runner).values()
        assert summary["tasks"] == 1 and event["notes"] == expected
        if solver.name == "broken":
            assert event["error"] == "solver raised RuntimeError: plugin bug"


@pytest.mark.parametrize("flag, minimum", [("--token-budget", 500), ("--hint-budget", 200)])
def test_solve_rejects_a_budget_too_small_before_opening_anything(tmp_path, flag, minimum):
    from click.testing import CliRunner

    from arcmemo.cli import cli

    db = tmp_path / "memory.db"
    result = CliRunner().invoke(cli, ["solve", "--tasks", TASK_IDS[0], flag, "100", "--db", str(db),
                                      "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code != 0
    assert f"{flag} must be at least {minimum}" in result.output
    assert not db.exists() and not (tmp_path / "runs").exists()   # failed before the session opened


def test_token_budget_reaches_the_selection_prompt(tmp_path, fake_model, fake_llm):
    from arcmemo.llm.counting import ESTIMATE
    from benchmarks.synthetic import synthetic_concepts

    memory = Memory(str(tmp_path / "memory.db"))
    with memory.transaction():
        for concept in synthetic_concepts(300):
            memory.merge(concept, source="import", actor="test")
    script_run(fake_model)
    run(tmp_path, fake_llm, memory=memory, task_ids=TASK_IDS[:1], retries=0, token_budget=1500)
    # the answer names nothing in memory, so the model is asked again: both prompts keep the budget
    first, again = fake_model.calls_for("select_ps")
    assert 1000 < ESTIMATE.messages(first.messages) <= 1500     # 300 concepts would need ~30k
    assert 1000 < ESTIMATE.messages(again.messages) <= 1500


def test_a_run_records_the_budgets_it_used(tmp_path, fake_model, fake_llm, monkeypatch):
    script_run(fake_model)
    monkeypatch.setenv("ARCMEMO_ABSTRACTION_MEMORY_TOKENS", "1200")
    runner, _, _ = run(tmp_path, fake_llm, task_ids=TASK_IDS[:1], retries=0, hint_budget=700)
    config = json.loads((runner.rundir.path / "config.json").read_text())
    assert (config["settings"]["token_budget"], config["settings"]["hint_budget"]) == (6000, 700)
    assert config["abstraction_memory_tokens"] == 1200
    assert config["fewshot_examples"] == str(HERE.parent / "seeds")     # the checkout's, when run from one


@pytest.mark.parametrize("name, value", [("ABSTRACTION_MEMORY_TOKENS", "lots"), ("SEEDS_DIR", "/no/such/seeds")])
def test_a_bad_write_setting_fails_the_run_at_its_start(tmp_path, fake_model, fake_llm, monkeypatch, name, value):
    from arcmemo.core.settings import ConfigError

    monkeypatch.setenv("ARCMEMO_" + name, value)
    with pytest.raises(ConfigError, match=name.lower()):
        run(tmp_path, fake_llm, task_ids=TASK_IDS[:1], retries=0, continual=True)
    assert fake_model.calls == []


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_names_the_resume_command_and_resume_finishes(tmp_path):
    env = {**os.environ, "FAKE_DELAY": "0.5", "ARCMEMO_HOME": str(tmp_path / "home")}
    proc = _cli(_solve_args(tmp_path / "m.db", tmp_path / "runs"), env, start_new_session=True, cwd=tmp_path,
                preexec_fn=sigint_as_in_a_terminal)
    wait_for_tasks(tmp_path / "runs", 2)
    os.killpg(proc.pid, signal.SIGINT)           # what Ctrl-C in a terminal does: the whole process group
    out, err = proc.communicate(timeout=60)
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert f"interrupted: run {run_dir.name} is recorded in" in err
    command = err.strip().splitlines()[-1].strip()
    assert command.startswith("arcmemo solve --resume ") and run_dir.name in command
    assert json.loads((run_dir / "status.json").read_text())["status"] == "interrupted"
    assert not (run_dir / "summary.json").exists() and task_lines(run_dir) < len(TASK_IDS)

    resumed = _cli(command.split()[1:] + ["-q"], env, cwd=tmp_path)      # exactly the command it printed
    out, err = resumed.communicate(timeout=180)
    assert resumed.returncode == 0, err
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["tasks"] == len(TASK_IDS) and summary["oracle2"] == 100.0
    solved = [json.loads(line)["task_id"] for line in (run_dir / "events.jsonl").read_text().splitlines()
              if '"type":"task"' in line]
    assert sorted(solved) == sorted(TASK_IDS)                   # every task solved exactly once
    assert json.loads((run_dir / "status.json").read_text())["status"] == "finished"


@pytest.mark.slow
def test_sigterm_stops_a_run_as_ctrl_c_does(tmp_path):
    """What a batch scheduler's time limit or `kill PID` sends: the run is recorded as interrupted
    and the resume command printed, not killed half-way."""
    env = {**os.environ, "FAKE_DELAY": "0.5", "ARCMEMO_HOME": str(tmp_path / "home")}
    proc = _cli(_solve_args(tmp_path / "m.db", tmp_path / "runs"), env, cwd=tmp_path)
    wait_for_tasks(tmp_path / "runs", 2)
    proc.send_signal(signal.SIGTERM)                 # the process alone, as `kill PID` does
    _out, err = proc.communicate(timeout=60)
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and f"interrupted: run {run_dir.name} is recorded in" in err
    assert err.strip().splitlines()[-1].strip().startswith("arcmemo solve --resume ")
    assert json.loads((run_dir / "status.json").read_text())["status"] == "interrupted"
    assert not (run_dir / "summary.json").exists()


@pytest.mark.slow
def test_two_solves_at_once_on_one_sqlite_memory_both_finish(tmp_path):
    """Two processes start together on one memory file, both writing it (--continual), and a third
    only reading it: none dies of a locked database, and nothing is lost."""
    db = tmp_path / "memory.db"
    empty_memory(db)                               # the reader needs one to exist (a read-only solve)
    env = {**os.environ, "FAKE_DELAY": "0.05", "ARCMEMO_HOME": str(tmp_path / "home")}
    read_only = [a for a in _solve_args(db, tmp_path / "runs") if a not in ("--continual",)]
    procs = [_cli(_solve_args(db, tmp_path / "runs"), env), _cli(_solve_args(db, tmp_path / "runs"), env),
             _cli(read_only, env)]
    results = [p.communicate(timeout=300) for p in procs]
    for proc, (_out, err) in zip(procs, results):
        assert proc.returncode == 0, err
        assert "database is locked" not in err and "Traceback" not in err
    runs = sorted((tmp_path / "runs").iterdir())
    assert len(runs) == 3 and all(json.loads((r / "summary.json").read_text())["tasks"] == len(TASK_IDS) for r in runs)
    memory = Memory(str(db))
    writers = {r.run_id for r in memory.history()}
    continual = {r.name for r in runs if json.loads((r / "config.json").read_text())["settings"]["continual"]}
    assert writers <= continual and len(continual) == 2
    assert len(memory.list("ps")) == 1                       # one concept, merged by both: not written twice
