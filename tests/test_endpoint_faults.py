"""Endpoint faults in the solve loop: a fatal one stops the run at once (exit 1, the resume
command named); a task whose calls found the endpoint unavailable is not attempted (not
failed), the summary and exit code say so, and --resume (also at a new endpoint) sends
the requests the outage lost."""

from __future__ import annotations

import json
import os

from click.testing import CliRunner
from llm_stub import StubServer
from runner_support import TASK_IDS, script_run

from arcmemo.cli import cli
from arcmemo.llm import EndpointFatal, EndpointUnavailable
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner, resume_runner
from arcmemo.run.records.rundir import RunDir
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver

STUB = ["--solver-model", "stub-model", "--aux-model", "stub-model", "--select-model", "stub-model"]


def start(tmp_path, llm, **settings):
    config = RunConfig(source="training", task_ids=TASK_IDS[:2], selection="none", retries=0, **settings)
    return new_runner(config, memory=Memory(str(tmp_path / "memory.db")), make_llm=lambda run_id: llm,
                      sandbox=get_sandbox(), solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))


def test_a_task_lost_to_an_outage_is_not_attempted_and_resume_solves_it(tmp_path, fake_model, fake_llm):
    script_run(fake_model)
    fake_model.queue("solve", EndpointUnavailable("HTTP 503: upstream unavailable (gave up after 6 attempts)"))
    runner = start(tmp_path, fake_llm)
    summary = runner.run()
    assert summary["tasks_lost"] == [TASK_IDS[0]] and summary["tasks"] == 1
    assert summary["solved"] == [TASK_IDS[1]] and summary["usage"]["errors"] == 1
    (lost,) = [e for e in runner.rundir.events() if e["type"] == "task_lost"]
    assert lost["task_id"] == TASK_IDS[0] and "HTTP 503" in lost["error"]
    assert not (runner.rundir.submissions / f"{TASK_IDS[0]}.json").exists()   # not scored as a failure

    calls = len(fake_model.calls_for("solve"))
    resumed = resume_runner(runner.rundir, memory=runner.memory, make_llm=lambda run_id: fake_llm,
                            sandbox=get_sandbox(), solver=load_solver("program-synthesis")).run()
    assert len(fake_model.calls_for("solve")) == calls + 1                 # only the lost task is asked again
    assert resumed["tasks_lost"] == [] and resumed["tasks"] == 2 and resumed["oracle2"] == 100.0


def test_a_fatal_endpoint_error_stops_the_run_at_once(tmp_path, fake_model, fake_llm):
    script_run(fake_model)
    fake_model.queue("solve", EndpointFatal("HTTP 401: Incorrect API key provided"))
    runner = start(tmp_path, fake_llm)
    try:
        runner.run()
    except EndpointFatal as exc:
        assert "401" in str(exc)
    else:
        raise AssertionError("the run went on after a fatal endpoint error")
    kinds = [e["type"] for e in runner.rundir.events()]
    assert "endpoint_fatal" in kinds and "task" not in kinds and len(fake_model.calls_for("solve")) == 1


def test_a_lost_memory_write_is_retried_on_resume(tmp_path, fake_model, fake_llm):
    script_run(fake_model)
    fake_model.queue("pseudocode", EndpointUnavailable("HTTP 502: bad gateway (gave up)"))
    config = RunConfig(source="training", task_ids=TASK_IDS[:1], selection="ps", retries=0, continual=True, k=1)
    memory = Memory(str(tmp_path / "memory.db"))
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
    summary = runner.run()
    assert summary["writes_lost"] == [TASK_IDS[0]] and summary["writes"] == 0 and memory.list("ps") == []
    resumed = resume_runner(runner.rundir, memory=memory, make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(),
                            solver=load_solver("program-synthesis")).run()
    assert resumed["writes_lost"] == [] and resumed["writes"] == 1 and len(memory.list("ps")) == 1


def cli_env(monkeypatch):
    for name, value in (("OPENAI_API_KEY", "sk-test"), ("ARCMEMO_MAX_ATTEMPTS", "2"), ("ARCMEMO_CALL_BUDGET_S", "5"),
                        ("ARCMEMO_BACKOFF_BASE_S", "0.001"), ("ARCMEMO_BACKOFF_MAX_S", "0.01")):
        monkeypatch.setenv(name, value)


def test_resume_after_an_outage_sends_the_lost_requests_to_the_new_endpoint(tmp_path, monkeypatch):
    cli_env(monkeypatch)
    runs = tmp_path / "runs"
    args = ["solve", "--tasks", ",".join(TASK_IDS[:2]), "--selection", "none", "--retries", "0",
            "--db", str(tmp_path / "m.db"), "--run-dir", str(runs), *STUB]
    with StubServer() as down:
        down.script(*[down.error(503, "upstream unavailable")] * 20)
        result = CliRunner().invoke(cli, args + ["--base-url", down.base_url])
    assert result.exit_code == 3, result.output
    (run,) = runs.iterdir()
    assert "2 tasks not attempted because the endpoint failed" in result.output
    assert f"arcmemo solve --resume {run}" in result.output
    summary = json.loads((run / "summary.json").read_text())
    assert summary["tasks_lost"] == sorted(TASK_IDS[:2]) and summary["tasks"] == 0
    assert RunDir(run).status()["status"] == "finished"

    with StubServer() as up:                      # the endpoint is back, somewhere else
        monkeypatch.setenv("OPENAI_BASE_URL", up.base_url)
        resumed = CliRunner().invoke(cli, ["solve", "--resume", str(run), "-q"])
        assert resumed.exit_code == 0, resumed.output
        assert len(up.requests) == 2                                    # one solve request per lost task
    summary = json.loads((run / "summary.json").read_text())
    assert summary["tasks_lost"] == [] and summary["tasks"] == 2
    changed = [e for e in RunDir(run).events() if e["type"] == "endpoint_changed"]
    assert changed and changed[0]["base_url"] == up.base_url and changed[0]["previous"] == down.base_url


def test_a_rejected_key_stops_the_cli_run_with_one_request_and_the_resume_command(tmp_path, monkeypatch):
    cli_env(monkeypatch)
    with StubServer() as stub:
        stub.script(stub.error(401, "Incorrect API key provided"))
        result = CliRunner().invoke(cli, ["solve", "--tasks", ",".join(TASK_IDS[:3]), "--selection", "none",
                                          "--db", str(tmp_path / "m.db"), "--run-dir", str(tmp_path / "runs"),
                                          "--base-url", stub.base_url, *STUB])
        assert len(stub.requests) == 1
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "401" in result.output and "Incorrect API key" in result.output
    (run,) = (tmp_path / "runs").iterdir()
    assert f"arcmemo solve --resume {run}" in result.output and RunDir(run).status()["status"] == "failed"
    assert os.environ["OPENAI_API_KEY"] not in result.output
