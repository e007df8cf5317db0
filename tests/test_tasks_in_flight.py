"""Several tasks in flight at once (`solve --tasks-in-flight N`) give the run a sequential run
gives: the same run directory byte for byte (timestamps and durations dropped), the same
memory written in the same revision order. The scripted fake model answers by prompt, so
any difference comes from the loop, not from the model."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from runner_support import TASK_IDS, script_run, task_lines, wait_for_tasks

from arcmemo.llm.client import LLM, LLMSettings
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig
from arcmemo.run.executors.local import InProcess
from arcmemo.run.loop import Runner, new_runner
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver

# what differs between two identical runs: when things happened and how long they took (and the files
# each run of a test has of its own: memory, call log)
VOLATILE = {"time", "started_at", "updated_at", "created_at", "wall_time_s", "latency_s", "memory_url", "log_path",
            "start_timestamp", "end_timestamp", "started", "ended"}


def _drop_volatile(value):
    if isinstance(value, dict):
        return {k: _drop_volatile(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_drop_volatile(v) for v in value]
    return value


def run_directory_contents(path: Path) -> dict[str, object]:
    """Every file of a run directory, JSON parsed and volatile fields dropped, lines kept in order."""
    contents = {}
    for file in sorted(path.rglob("*")):
        if file.is_dir() or file.name in ("run.lock", "status.json"):
            continue
        text = file.read_text(encoding="utf-8")
        if file.suffix == ".jsonl":
            contents[str(file.relative_to(path))] = [_drop_volatile(json.loads(line)) for line in text.splitlines()]
        else:
            contents[str(file.relative_to(path))] = _drop_volatile(json.loads(text))
    return contents


def memory_contents(memory: Memory) -> list[tuple]:
    return [(r.id, r.concept_id, r.format, r.name, r.op, r.actor, r.run_id, r.task_id,
             json.dumps(_drop_volatile(r.snapshot), sort_keys=True)) for r in memory.history(format=None)]


def solve(root: Path, slots, *, budget_usd=None, **settings):
    """One run with its own memory, call log and run directory (same run id, so files compare);
    `slots`: tasks in flight in this process, or an executor."""
    root.mkdir(parents=True, exist_ok=True)
    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", concurrency=8,
                          backoff_base_s=0.001, backoff_max_s=0.01, max_attempts=3, log_path=str(root / "calls.db")))
    memory = Memory(str(root / "memory.db"))
    config = RunConfig(source="training", task_ids=TASK_IDS, budget_usd=budget_usd, **settings)
    runner = new_runner(config, memory=memory, make_llm=lambda _: llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(root / "runs"), run_id="same-run",
                        executor=InProcess(slots) if isinstance(slots, int) else slots)
    try:
        return runner, runner.run(), memory
    finally:
        llm.close()


@pytest.fixture
def most_at_once(monkeypatch):
    """How many tasks were inside `Runner._solve` at once, at most (the first task runs alone until
    the endpoint has answered a call: `Runner._slots_open`)."""
    seen = {"now": 0, "most": 0}
    lock = threading.Lock()
    inner = Runner._solve

    def counted(self, task, p):
        with lock:
            seen["now"] += 1
            seen["most"] = max(seen["most"], seen["now"])
        try:
            return inner(self, task, p)
        finally:
            time.sleep(0.3)      # long enough that the block's other tasks start meanwhile
            with lock:
                seen["now"] -= 1

    monkeypatch.setattr(Runner, "_solve", counted)
    return seen


def test_eight_in_flight_write_what_one_at_a_time_writes(tmp_path, fake_model, most_at_once):
    # blocks of 3; one task never passes its train pairs, so pass 2 re-solves it with a memory grown since;
    # each task in two threads of its own (the paper's protocol), at once inside the task
    script_run(fake_model, unsolved={TASK_IDS[4]})
    settings = dict(continual=True, k=3, passes=2, attempts=2, retries=1, threads=2)
    one, one_summary, one_memory = solve(tmp_path / "one", 1, **settings)
    assert most_at_once["most"] == 1
    most_at_once["most"] = 0
    eight, eight_summary, eight_memory = solve(tmp_path / "eight", 8, **settings)
    assert most_at_once["most"] == 3                     # a whole block in flight, never more

    assert one_summary["oracle2"] == eight_summary["oracle2"] == 83.33 and one_summary["writes"] == 5
    assert run_directory_contents(eight.rundir.path) == run_directory_contents(one.rundir.path)
    assert memory_contents(eight_memory) == memory_contents(one_memory) != []
    # the run directory does not merely agree with itself: its events are in task order
    solved = [e["task_id"] for e in eight.rundir.events() if e["type"] == "task"]
    assert solved == TASK_IDS + [TASK_IDS[4]]


def test_without_continual_every_task_reads_the_same_memory(tmp_path, fake_model, most_at_once):
    script_run(fake_model)
    one = solve(tmp_path / "one", 1, retries=0)[0]
    eight = solve(tmp_path / "eight", 8, retries=0)[0]
    assert most_at_once["most"] == len(TASK_IDS)          # one block: all of them at once
    assert run_directory_contents(eight.rundir.path) == run_directory_contents(one.rundir.path)


def test_budget_counts_the_tasks_in_flight(tmp_path, fake_model, isolated_home):
    (isolated_home / "models.yaml").write_text("prices:\n  fake: {input: 10000, output: 10000}\n")
    script_run(fake_model)
    first = solve(tmp_path / "first", 1, retries=0, limit=1)[1]["usage"]["cost_usd"]
    _, summary, _ = solve(tmp_path / "eight", 8, retries=0, k=2, continual=True, budget_usd=first * 2.5)
    assert summary["stopped"] == "budget"
    # the first block runs before any cost is known; after it, each start counts those in flight
    assert 2 <= summary["tasks"] < len(TASK_IDS) and summary["usage"]["cost_usd"] <= first * 3.5


def test_tasks_in_flight_zero_is_refused_before_anything_exists(tmp_path):
    from arcmemo.cli import cli

    result = CliRunner().invoke(cli, ["solve", "--tasks-in-flight", "0", "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2 and "--tasks-in-flight must be at least 1, got 0" in result.output
    assert not (tmp_path / "runs").exists()


def test_the_clients_concurrency_bounds_the_calls_of_all_tasks_together(tmp_path):
    from llm_stub import StubServer, stub_llm

    with StubServer(delay_s=0.2) as stub:
        llm = stub_llm(stub.base_url, concurrency=2, log_path=str(tmp_path / "calls.db"))
        config = RunConfig(source="training", task_ids=TASK_IDS, selection="none", retries=0)
        runner = new_runner(config, memory=Memory(str(tmp_path / "memory.db")), make_llm=lambda _: llm,
                            sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                            runs_root=str(tmp_path / "runs"), executor=InProcess(6))
        try:
            summary = runner.run()
        finally:
            llm.close()
    assert summary["tasks"] == len(TASK_IDS) and len(stub.requests) == len(TASK_IDS)
    assert stub.max_in_flight == 2


def test_a_second_run_in_flight_is_answered_from_the_call_cache(tmp_path, fake_model):
    script_run(fake_model)
    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake",
                          log_path=str(tmp_path / "calls.db")))
    summaries = []
    for name in ("first", "second"):
        config = RunConfig(source="training", task_ids=TASK_IDS, retries=0)
        runner = new_runner(config, memory=Memory(str(tmp_path / "memory.db")), make_llm=lambda _: llm,
                            sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                            runs_root=str(tmp_path / name), executor=InProcess(8))
        calls = len(fake_model.calls)
        summaries.append(runner.run())
    llm.close()
    assert len(fake_model.calls) == calls                  # the second run asked the model nothing
    first, second = summaries
    assert second["usage"]["cache_hits"] == second["usage"]["calls"] == first["usage"]["calls"] > 0
    assert second["per_task"] == first["per_task"]


def test_plain_progress_names_each_task_in_flight():
    import io

    from arcmemo.run.progress.reporter import PlainReporter, TaskProgress

    out = io.StringIO()
    reporter = PlainReporter(out)
    reporter.begin(3, "tasks")
    reporter.item("a")
    reporter.item("b")
    TaskProgress(reporter, "a").step("selecting")       # a step of the first, after the second started
    TaskProgress(reporter, "b").step("attempt 1 of 1")
    reporter.item_done("solved", item="a", elapsed=61)
    reporter.item_done(None, item="c")                  # done in an earlier session: counted, no line
    reporter.item_done("not solved", item="b", elapsed=2)
    assert out.getvalue().splitlines() == ["[tasks 1/3] a: selecting", "[tasks 2/3] b: attempt 1 of 1",
                                           "[tasks 1/3] a solved (1:01)", "[tasks 2/3] b not solved (0:02)"]


def test_live_progress_shows_a_row_per_task_in_flight():
    import io

    from rich.console import Console

    from arcmemo.run.progress.live import LiveReporter

    out = io.StringIO()
    reporter = LiveReporter(Console(file=out, force_terminal=True, width=120))
    reporter.begin(2, "tasks")
    reporter.item("task-a")
    reporter.item("task-b")
    reporter.step("attempt 2 of 2", item="task-a")
    assert [t.description for t in reporter.progress.tasks] == ["tasks", "task-a", "task-b"]
    assert reporter.progress.tasks[1].fields["step"] == "attempt 2 of 2"
    reporter.item_done("solved", item="task-b", elapsed=3)
    assert [t.description for t in reporter.progress.tasks] == ["tasks", "task-a"]
    assert reporter.progress.tasks[0].completed == 1
    reporter.close()
    assert "task-b solved (0:03)" in out.getvalue()


@pytest.mark.slow
def test_resume_after_kill_with_tasks_in_flight_solves_each_task_once(tmp_path):
    import os

    from test_runner import _cli, _solve_args

    env = {**os.environ, "FAKE_DELAY": "0.3", "ARCMEMO_HOME": str(tmp_path / "home")}
    args = [a if a != "2" else "3" for a in _solve_args(tmp_path / "m.db", tmp_path / "runs")]   # -k 3
    run_dir = kill_once_a_task_is_committed(_cli([*args, "--tasks-in-flight", "3"], env, start_new_session=True),
                                            tmp_path / "runs")
    resumed = _cli(["solve", "--resume", str(run_dir), "-q", "--tasks-in-flight", "3"], env, cwd=tmp_path)
    _, err = resumed.communicate(timeout=180)
    assert resumed.returncode == 0, err
    solved = [json.loads(line)["task_id"] for line in (run_dir / "events.jsonl").read_text().splitlines()
              if '"type":"task"' in line]
    assert solved == TASK_IDS                                # each once, in task order
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["oracle2"] == 100.0 and summary["writes"] == len(TASK_IDS)


def kill_once_a_task_is_committed(proc, runs: Path) -> Path:
    """SIGKILL the process group of a `solve` once its run has committed a task (with others in
    flight); the run's directory, checked to hold some but not all tasks."""
    import os
    import signal

    wait_for_tasks(runs, 1, poll_s=0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    (run_dir,) = runs.iterdir()
    assert 1 <= task_lines(run_dir) < len(TASK_IDS)
    return run_dir


def test_a_remote_workers_calls_land_in_the_drivers_call_log(tmp_path, fake_model):
    """What a Ray worker on another machine does (ray_executor.TaskWorker with ship_calls), run here:
    it logs to its own call log and ships the task's rows; the driver appends them to its own."""
    from arcmemo.run.executors.on_ray import TaskWorker, WorkerSpec, _log_shipped_calls

    script_run(fake_model)
    config = RunConfig(source="training", task_ids=TASK_IDS[:1], retries=0)
    worker_models = LLMSettings(solver_model="fake", aux_model="fake", select_model="fake",
                                log_path=str(tmp_path / "worker-calls.db"))
    from arcmemo.core.settings import Settings
    from arcmemo.core.tasks import load_tasks

    taskset = load_tasks("training", ids=TASK_IDS[:1])
    worker = TaskWorker(WorkerSpec(config=config, run_path=str(tmp_path / "runs" / "the-run"),
                                   memory_url=str(tmp_path / "memory.db"), models=worker_models,
                                   settings=Settings.load(), ship_calls=True))
    result = worker.solve(taskset.tasks[0], taskset.answers[TASK_IDS[0]], 1)
    assert result.outcome.passed_train and [c["step"] for c in result.calls] == ["solve"]   # memory is empty
    driver = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake",
                             log_path=str(tmp_path / "driver-calls.db")))
    try:
        _log_shipped_calls(driver, result.calls)
        logged = driver.call_log.list(run_id="the-run", limit=None)
        shipped = worker.runner.llm.call_log.list(run_id="the-run", limit=None)
        fields = ("task_id", "role", "step", "sample", "model", "cache_key", "response_text", "prompt_tokens")
        assert sorted(tuple(getattr(c, f) for f in fields) for c in logged) == \
            sorted(tuple(getattr(c, f) for f in fields) for c in shipped)
        # the driver's cache now answers the same request
        assert driver.call_log.lookup(shipped[0].cache_key) is not None
    finally:
        driver.close()
        worker.runner.llm.close()
