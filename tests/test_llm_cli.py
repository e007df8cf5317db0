"""`arcmemo calls list|show|usage` and `arcmemo models list` over a real call log."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.llm.backend import Reply, TransientError
from arcmemo.llm.client import LLM, LLMError, LLMSettings

MSG = [{"role": "user", "content": "describe the grid"}]


@pytest.fixture
def logged(fake_model, isolated_home):
    """A log with two runs: real calls, a cache hit and a failure."""
    (isolated_home / "models.yaml").write_text("prices:\n  fake: {input: 1000, output: 2000}\n")
    settings = LLMSettings(solver_model="fake", aux_model="fake", select_model="fake",
                           backoff_base_s=0.001, max_attempts=2)
    fake_model.queue("caption", "a caption")
    fake_model.queue("solve", "def transform(g): return g", "second answer")
    with LLM(settings, run_id="run-a") as llm:
        llm.chat(MSG, role="aux", step="caption", task_id="t1")
        llm.chat(MSG, role="solver", step="solve", task_id="t1")
        llm.chat(MSG, role="solver", step="solve", task_id="t1")            # cache hit
        fake_model.queue("select_ps", TransientError("HTTP 503"), TransientError("HTTP 503"))
        with pytest.raises(LLMError):
            llm.chat(MSG, role="select", step="select_ps", task_id="t2")
    with LLM(settings, run_id="run-b") as llm:
        llm.chat(MSG, role="solver", step="solve", task_id="t3", sample=1)
    return isolated_home


def run(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result


def test_calls_list_filters_and_json(logged):
    result = run("calls", "list", "--run", "run-a")
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 5 and "cached" in result.output and "ERROR: HTTP 503" in result.output
    data = json.loads(run("calls", "list", "--json", "--errors").output)
    assert [d["step"] for d in data] == ["select_ps"] and data[0]["attempts"] == 2
    assert data[0]["error_kind"] == "unavailable" and "[endpoint unavailable]" in result.output
    data = json.loads(run("calls", "list", "--json", "--task", "t3").output)
    assert [(d["run_id"], d["sample"]) for d in data] == [("run-b", 1)]


def test_calls_show_prints_request_and_answer(logged):
    data = json.loads(run("calls", "list", "--json", "--step", "caption").output)
    result = run("calls", "show", str(data[0]["id"]))
    assert result.exit_code == 0
    assert "describe the grid" in result.output and "a caption" in result.output
    full = json.loads(run("calls", "show", str(data[0]["id"]), "--json").output)
    assert full["request"]["messages"] == MSG and full["response_text"] == "a caption"
    missing = run("calls", "show", "9999")
    assert missing.exit_code == 1 and "no call with id 9999" in missing.output


def test_usage_per_run_counts_cache_hits_at_zero_cost(logged):
    rows = json.loads(run("calls", "usage", "--run", "run-a", "--by", "step", "--json").output)
    by_step = {r["step"]: r for r in rows}
    assert by_step["solve"]["calls"] == 2 and by_step["solve"]["cache_hits"] == 1
    assert by_step["select_ps"]["errors"] == 1
    solve_cost = by_step["solve"]["cost_usd"]
    assert solve_cost > 0
    # the cache hit adds no tokens and no cost: one real solve call's worth
    total = json.loads(run("calls", "usage", "--run", "run-a", "--by", "", "--json").output)[0]
    assert total["calls"] == 4 and total["cache_hits"] == 1
    assert total["cost_usd"] == pytest.approx(by_step["caption"]["cost_usd"] + solve_cost)
    text = run("calls", "usage", "--run", "run-a").output
    assert "fake" in text and "cost $" in text
    assert "unknown" not in run("calls", "usage", "--by", "role").output
    bad = run("calls", "usage", "--by", "colour")
    assert bad.exit_code == 1 and "cannot group by" in bad.output


def test_every_calls_view_says_which_answers_were_cut_at_the_token_limit(fake_model, isolated_home):
    settings = LLMSettings(solver_model="fake", aux_model="fake", select_model="fake")
    fake_model.queue("solve", Reply("```python\ndef transform(g):\n    return", finish_reason="length"), "whole")
    with LLM(settings, run_id="run-c") as llm:
        cut = llm.chat(MSG, role="solver", step="solve", max_tokens=8)
        llm.chat(MSG, role="solver", step="solve", sample=1, max_tokens=8)
    listed = run("calls", "list").output.splitlines()
    assert [line.endswith("ok, cut") for line in listed[1:3]] == [False, True] and listed[3].startswith("cut: ")
    assert json.loads(run("calls", "list", "--json").output)[1]["finish_reason"] == "length"
    shown = run("calls", "show", str(cut.call_id)).output
    assert "finish length (cut at the token limit: the answer is unfinished)" in shown
    assert json.loads(run("calls", "usage", "--json").output)[0]["cut"] == 1
    usage = run("calls", "usage").output.splitlines()
    assert usage[0].split()[4] == "cut" and usage[1].split()[4] == "1" and usage[-1].startswith("cut: the answer")


def test_calls_on_an_empty_home():
    assert run("calls", "list").output.strip() == "no calls logged yet"
    assert json.loads(run("calls", "usage", "--json").output) == []


def test_models_list_shows_roles_aliases_prices(monkeypatch):
    result = run("models", "list")
    assert result.exit_code == 0
    assert "solver  local" in result.output and "qwen-coder-1.5b" in result.output
    assert "o4-mini" in result.output and "local-small" in result.output
    assert "context 8,192, text only; tokens counted by estimate" in result.output
    assert "o4-mini            context 200,000, vision, reasoning" in result.output
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    data = json.loads(run("models", "list", "--json", "--solver-model", "mini").output)
    solver = data["roles"][0]
    assert (solver["name"], solver["model"]) == ("mini", "gpt-4.1-mini")
    assert solver["endpoint"] == "https://api.openai.com/v1" and "0.4" in solver["price"]
    assert solver["traits"] == {"context": 1_047_576, "vision": True, "reasoning": False,
                                "tokenizer": "o200k_base"}
    assert data["traits"]["local"]["context"] == 8192 and data["traits"]["o4-mini"]["reasoning"]
    assert "sk-test" not in json.dumps(data)
