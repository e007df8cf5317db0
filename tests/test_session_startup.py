"""A solve's start-up (run/session.py): the sandbox's first worker and the endpoint client's
library start on background threads while the tasks load, and the run waits for them only
where it uses them (timing: benchmarks/startup.py; these tests time nothing)."""

from __future__ import annotations

import sys
import threading

from runner_support import TASK_IDS, script_run

from arcmemo.core.settings import Settings
from arcmemo.run import session as session_module
from arcmemo.run.config import RunConfig
from arcmemo.run.session import RunSession, resolve_models
from arcmemo.run.warmup import ENDPOINT_CLIENT
from arcmemo.sandbox import pool


def test_the_sandbox_starts_while_the_tasks_load(tmp_path, fake_model, monkeypatch):
    if pool._shared is not None:
        pool._shared.close()             # a fresh pool: its first worker not started yet
    seen = {}
    load = session_module.load_run_tasks

    def loading(config):
        """Loading the tasks: the worker the session started meanwhile comes up (it would not
        start before the run's config asks for its isolation report if nothing warmed it)."""
        started = threading.Event()
        for _ in range(600):
            if pool._shared is not None and pool._shared.isolation:
                started.set()
                break
            started.wait(0.05)
        seen["worker up while tasks load"] = started.is_set()
        seen["threads"] = {t.name for t in threading.enumerate()}
        return load(config)

    monkeypatch.setattr(session_module, "load_run_tasks", loading)
    script_run(fake_model)
    session = RunSession(Settings.load(db=str(tmp_path / "m.db"), runs_dir=str(tmp_path / "runs")))
    try:
        runner = session.new_solve(RunConfig(source="training", task_ids=TASK_IDS[:1], selection="none", retries=0),
                                   resolve_models({"solver_model": "fake", "aux_model": "fake",
                                                   "select_model": "fake"}))
        assert runner.rundir.config()["sandbox_isolation"]["level"] == pool._shared.isolation["level"]
        assert session.run(runner)["tasks"] == 1
    finally:
        session.close()
    assert seen["worker up while tasks load"], seen
    assert ENDPOINT_CLIENT in sys.modules            # imported on its own thread meanwhile


def test_a_worker_that_cannot_start_is_reported_where_the_run_uses_the_sandbox(tmp_path, fake_model,
                                                                                monkeypatch):
    """The warm-up swallows the failure; the run's own first use says what went wrong."""
    if pool._shared is not None:
        pool._shared.close()

    def cannot(*args, **kwargs):
        raise pool.SandboxError("no worker today")

    monkeypatch.setattr(pool, "_Worker", cannot)
    session = RunSession(Settings.load(db=str(tmp_path / "m.db"), runs_dir=str(tmp_path / "runs")))
    try:
        try:
            session.new_solve(RunConfig(source="training", task_ids=TASK_IDS[:1], selection="none", retries=0),
                              resolve_models({"solver_model": "fake", "aux_model": "fake", "select_model": "fake"}))
        except pool.SandboxError as exc:
            assert "no worker today" in str(exc)
        else:
            raise AssertionError("the run went on without a sandbox")
    finally:
        session.close()
        pool._shared.close()


def test_the_solve_command_starts_them_before_it_imports_the_run_layer(tmp_path):
    """The run layer's imports (the store, the selection and abstraction steps) take about half
    a second: the worker starts up meanwhile, not after."""
    import json
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    script = """
import builtins, json, sys, threading
from arcmemo.llm.backend import register_model
from arcmemo.llm.fake import FakeModel
from runner_support import script_run
register_model("fake", script_run(FakeModel("fake")))
seen = {}
real_import = builtins.__import__
def watch(name, *args, **kwargs):
    if name == "arcmemo.run.config" and "runner" not in seen:
        seen["runner"] = sorted(t.name for t in threading.enumerate())
    return real_import(name, *args, **kwargs)
builtins.__import__ = watch
from arcmemo.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(seen))
"""
    args = ["solve", "--tasks", TASK_IDS[0], "--selection", "none", "--retries", "0", "-q", "--db",
            str(tmp_path / "m.db"), "--run-dir", str(tmp_path / "runs"), "--solver-model", "fake"]
    env = {**os.environ, "ARCMEMO_HOME": str(tmp_path / "home"),
           "PYTHONPATH": os.pathsep.join(str(root / p) for p in ("", "solvers", "tests"))}
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    threads = json.loads(done.stdout.splitlines()[-1])["runner"]
    assert {"sandbox-warm-up", "client-warm-up"} & set(threads), threads
