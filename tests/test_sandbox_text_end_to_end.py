"""A program's error text carrying a lone surrogate, end to end (issue 26, item 5), against the
loopback stub endpoint: the sandbox hands the text on sanitised, the retry prompt carries it,
the task is recorded as failed by its program (not lost to the endpoint) and the run exits 0.
And should a caller still send text that cannot be encoded, the call fails at once, as the
caller's bug, instead of being retried as a malformed answer and blamed on the endpoint."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from llm_stub import StubServer, stub_llm

from arcmemo.cli import cli
from arcmemo.llm.client import LLMError
from arcmemo.run.records.rundir import RunDir

TASK = "0d3d703e"
PROGRAM = "```python\ndef transform(grid):\n    raise ValueError('bad ' + chr(0xDCFF) + chr(27) + '[31m end')\n```"


def test_a_surrogate_in_a_programs_error_is_feedback_not_a_lost_task(tmp_path, monkeypatch):
    for name, value in (("OPENAI_API_KEY", "sk-test"), ("ARCMEMO_MAX_ATTEMPTS", "2"),
                        ("ARCMEMO_CALL_BUDGET_S", "5"), ("ARCMEMO_BACKOFF_BASE_S", "0.001")):
        monkeypatch.setenv(name, value)
    runs = tmp_path / "runs"
    with StubServer(answer=lambda body: PROGRAM) as stub:
        result = CliRunner().invoke(cli, [
            "solve", "--tasks", TASK, "--selection", "none", "--retries", "1", "--db", str(tmp_path / "m.db"),
            "--run-dir", str(runs), "--base-url", stub.base_url, "--solver-model", "stub-model",
            "--aux-model", "stub-model", "--select-model", "stub-model"])
    assert result.exit_code == 0, result.output
    assert len(stub.requests) == 2                   # the first answer and its retry, nothing retried
    retry = json.dumps(stub.requests[1]["messages"], ensure_ascii=False)
    assert "ValueError: bad \ufffd[31m end" in retry and "\\udcff" not in retry.lower()
    (run,) = runs.iterdir()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["tasks_lost"] == [] and summary["tasks"] == 1 and summary["solved"] == []
    (task,) = [e for e in RunDir(run).events() if e["type"] == "task"]
    assert task["task_id"] == TASK and task["error"] == "exception" and not task["passed_train"]


def test_a_request_that_cannot_be_encoded_fails_at_once_as_the_callers_bug():
    with StubServer() as stub, stub_llm(stub.base_url) as llm:
        with pytest.raises(LLMError, match="cannot be encoded as UTF-8.*the caller's bug"):
            llm.chat([{"role": "user", "content": "feedback: bad \udcff"}], role="solver", step="solve")
        assert stub.requests == []                     # never sent, so never retried
        assert llm.chat([{"role": "user", "content": "2+2?"}], role="solver", step="solve").text == "echo: 2+2?"
