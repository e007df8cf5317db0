"""The Ray executor on a local Ray instance: the same run directory and memory as a sequential
run, a worker killed mid-run costs no task, a Ray run killed mid-run resumes. Slow (Ray starts
in seconds and its workers import arcmemo), bounded to a few tasks."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from runner_support import TASK_IDS, script_run
from test_tasks_in_flight import kill_once_a_task_is_committed, memory_contents, run_directory_contents, solve

ray = pytest.importorskip("ray")

from arcmemo.run.executors.on_ray import RayExecutor  # noqa: E402

pytestmark = pytest.mark.slow
HERE = Path(__file__).resolve().parent
UNSOLVED = TASK_IDS[4]


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray instance for the module; its workers register the scripted fake model."""
    env = {"PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
           "RAY_FAKE_UNSOLVED": UNSOLVED, "FAKE_DELAY": "0.4"}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": env, "worker_process_setup_hook": "runner_support.register_scripted_fake"})
    yield
    ray.shutdown()


def test_a_ray_run_writes_what_a_sequential_run_writes(tmp_path, fake_model, local_ray):
    script_run(fake_model, unsolved={UNSOLVED})
    settings = dict(continual=True, k=3, passes=2, attempts=2, retries=1)
    one, one_summary, one_memory = solve(tmp_path / "one", 1, **settings)
    executor = RayExecutor(4, memory_url=str(tmp_path / "ray" / "memory.db"))
    on_ray, ray_summary, ray_memory = solve(tmp_path / "ray", executor, **settings)
    assert ray_summary["oracle2"] == one_summary["oracle2"] == 83.33
    assert run_directory_contents(on_ray.rundir.path) == run_directory_contents(one.rundir.path)
    assert memory_contents(ray_memory) == memory_contents(one_memory) != []


def test_a_worker_killed_mid_run_costs_no_task(tmp_path, fake_model, local_ray):
    script_run(fake_model, unsolved={UNSOLVED})
    executor = RayExecutor(4, memory_url=str(tmp_path / "memory.db"), workers=2)
    killed = []

    def kill_a_worker():      # while it solves a task: the worker process is killed (and restarts)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not executor.actors:
            time.sleep(0.01)
        actor = executor.actors[-1]
        before = ray.get(actor.pid.remote())
        while time.monotonic() < deadline and not executor.load[-1]:
            time.sleep(0.01)
        time.sleep(0.2)
        ray.kill(actor, no_restart=False)
        killed.append((before, ray.get(actor.pid.remote())))

    threading.Thread(target=kill_a_worker, daemon=True).start()
    runner, summary, _ = solve(tmp_path, executor, retries=0)
    [(before, after)] = killed
    assert before != after                   # it died under a task and came back as a new process
    # its task was retried on the restarted worker: every task solved once, in order, none lost
    solved = [e["task_id"] for e in runner.rundir.events() if e["type"] == "task"]
    assert solved == TASK_IDS and summary["tasks_lost"] == [] and summary["oracle2"] == 83.33


def test_a_ray_run_whose_driver_is_killed_resumes(tmp_path):
    import json

    from test_runner import _cli, _solve_args

    env = {**os.environ, "FAKE_DELAY": "0.3", "FAKE_RAY": "1", "ARCMEMO_HOME": str(tmp_path / "home")}
    args = [*_solve_args(tmp_path / "m.db", tmp_path / "runs"), "--executor", "ray", "--tasks-in-flight", "2"]
    # the driver and the Ray instance it started, killed together
    run_dir = kill_once_a_task_is_committed(_cli(args, env, start_new_session=True), tmp_path / "runs")
    resumed = _cli(["solve", "--resume", str(run_dir), "-q", "--executor", "ray"], env, cwd=tmp_path,
                   start_new_session=True)
    _, err = resumed.communicate(timeout=240)
    assert resumed.returncode == 0, err
    solved = [json.loads(line)["task_id"] for line in (run_dir / "events.jsonl").read_text().splitlines()
              if '"type":"task"' in line]
    assert solved == TASK_IDS                                # each once, in task order
    assert json.loads((run_dir / "summary.json").read_text())["oracle2"] == 100.0


def test_ray_workers_render_the_drivers_templates_and_grid_text(tmp_path, fake_model, local_ray):
    import json
    import sqlite3

    from arcmemo.run.prompting import PromptSetup

    script_run(fake_model)
    prompts = tmp_path / "prompts"
    (prompts / "program-synthesis").mkdir(parents=True)
    (prompts / "program-synthesis" / "solve.txt").write_text("REWORDED: the grids.\n$puzzle\n$hint_section\n")
    executor = RayExecutor(2, memory_url=str(tmp_path / "ray" / "memory.db"))
    with PromptSetup(prompts, "numpy"):
        _, summary, _ = solve(tmp_path / "ray", executor, selection="none", retries=0, prompts_dir=str(prompts),
                              grid_text="numpy")
    with sqlite3.connect(tmp_path / "ray" / "calls.db") as log:
        requests = [json.loads(r) for (r,) in log.execute("SELECT request_json FROM calls WHERE step = 'solve'")]
    users = [r["messages"][1]["content"] for r in requests]
    assert len(users) == len(TASK_IDS) and fake_model.calls_for("solve") == []        # all made on the workers
    assert all(u.startswith("REWORDED: the grids.\nExample 1 input") and "[[" in u for u in users)
    assert summary["oracle2"] > 0
