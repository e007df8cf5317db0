"""The paper's model parameters from the command line to the endpoint: `--reasoning-effort` and
`--max-tokens` for the solver, `--<role>-temperature/-max-tokens/-reasoning-effort` for the
other roles, each sent in the form its model takes (checked in the requests the loopback stub
received), and refused before a run directory exists when a model does not take them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from llm_stub import StubServer
from runner_support import TASK_IDS, empty_memory

from arcmemo.cli import cli
from arcmemo.core.settings import ConfigError
from arcmemo.llm.client import LLM, LLMSettings

MSG = [{"role": "user", "content": "2+2?"}]


@pytest.fixture
def stub():
    with StubServer() as server:
        yield server


def solve(tmp_path, base_url, *args):
    return CliRunner().invoke(cli, ["solve", "--tasks", TASK_IDS[0], "--retries", "0", "-q",
                                    "--base-url", base_url, "--db", empty_memory(tmp_path / "memory.db"),
                                    "--run-dir", str(tmp_path / "runs"), *args])


def test_solve_sends_a_reasoning_model_max_completion_tokens_and_effort(tmp_path, stub, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    result = solve(tmp_path, stub.base_url, "--selection", "none", "--solver-model", "o4-mini",
                   "--reasoning-effort", "medium", "--max-tokens", "32000")
    assert result.exit_code == 0, result.output
    (sent,) = stub.requests
    assert sent["model"] == "o4-mini"
    assert sent["max_completion_tokens"] == 32000 and sent["reasoning_effort"] == "medium"
    assert "max_tokens" not in sent
    (run,) = (tmp_path / "runs").iterdir()
    config = json.loads((run / "config.json").read_text())
    assert config["settings"]["reasoning_effort"] == "medium" and config["settings"]["max_tokens"] == 32000


def test_role_flags_reach_the_select_models_calls(tmp_path, stub, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    from arcmemo.memory.store import Memory

    with Memory(str(tmp_path / "memory.db")) as memory:
        memory.merge({"format": "ps", "name": "recolour", "kind": "routine", "description": "map colours"},
                     source="import", actor="test")
    result = solve(tmp_path, stub.base_url, "--selection", "ps", "--solver-model", "gpt-4.1",
                   "--select-model", "o3-mini", "--select-reasoning-effort", "high",
                   "--select-max-tokens", "4000", "--max-tokens", "900")
    assert result.exit_code == 0, result.output
    select = [r for r in stub.requests if r["model"] == "o3-mini"]
    solver = [r for r in stub.requests if r["model"] == "gpt-4.1"]
    assert select and solver
    assert all(r["reasoning_effort"] == "high" and r["max_completion_tokens"] == 4000 and "max_tokens" not in r
               for r in select)
    assert all(r["max_tokens"] == 900 and "reasoning_effort" not in r for r in solver)
    (run,) = (tmp_path / "runs").iterdir()
    recorded = json.loads((run / "config.json").read_text())["call_defaults"]
    assert recorded["select"] == {"max_tokens": 4000, "reasoning_effort": "high"}


@pytest.mark.parametrize("args, says", [
    (["--solver-model", "gpt-4.1", "--reasoning-effort", "medium"],
     "model 'gpt-4.1' does not take reasoning_effort"),
    (["--solver-model", "o4-mini", "--select-model", "gpt-4.1-mini", "--select-reasoning-effort", "low"],
     "model 'gpt-4.1-mini' does not take reasoning_effort"),
])
def test_reasoning_effort_for_a_model_that_does_not_take_it_fails_before_the_run(tmp_path, stub, monkeypatch,
                                                                                  args, says):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    result = solve(tmp_path, stub.base_url, "--selection", "ps", *args)
    assert result.exit_code == 1
    assert says in result.output and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists() and stub.requests == []


def test_an_effort_for_a_role_the_run_does_not_call_is_not_an_error(tmp_path, stub, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    result = solve(tmp_path, stub.base_url, "--selection", "none", "--solver-model", "gpt-4.1",
                   "--select-model", "gpt-4.1", "--select-reasoning-effort", "low")
    assert result.exit_code == 0, result.output


def test_role_defaults_apply_when_a_call_sets_none(stub):
    settings = LLMSettings(base_url=stub.base_url, api_key="sk-test", solver_model="o4-mini", aux_model="gpt-4.1",
                           select_model="o4-mini", aux_temperature=0.3, aux_max_tokens=1000,
                           select_max_tokens=2000, select_reasoning_effort="medium", timeout_s=5.0)
    with LLM(settings) as llm:
        llm.chat(MSG, role="aux", step="pseudocode")
        llm.chat(MSG, role="aux", step="pseudocode", max_completion_tokens=50, sample=1)
        llm.chat(MSG, role="select", step="select_ps")
        llm.chat(MSG, role="select", step="select_ps", reasoning_effort="low", max_tokens=10, sample=1)
    aux, aux_own, select, select_own = stub.requests
    assert (aux["temperature"], aux["max_tokens"]) == (0.3, 1000) and "reasoning_effort" not in aux
    assert aux_own["max_tokens"] == 50 and "max_completion_tokens" not in aux_own   # the call's own wins
    assert (select["max_completion_tokens"], select["reasoning_effort"]) == (2000, "medium")
    assert "max_tokens" not in select
    assert (select_own["max_completion_tokens"], select_own["reasoning_effort"]) == (10, "low")


def test_role_settings_resolve_from_env_and_config_and_are_checked(isolated_home, monkeypatch):
    (isolated_home / "config.yaml").write_text("aux_max_tokens: 1000\nselect_reasoning_effort: medium\n")
    monkeypatch.setenv("ARCMEMO_SOLVER_MAX_TOKENS", "32000")
    settings = LLMSettings.resolve()
    assert settings.call_defaults("aux") == {"max_tokens": 1000}
    assert settings.call_defaults("select") == {"reasoning_effort": "medium"}
    assert settings.call_defaults("solver") == {"max_tokens": 32000}
    monkeypatch.setenv("ARCMEMO_AUX_REASONING_EFFORT", "extreme")
    with pytest.raises(ConfigError, match=r"setting aux_reasoning_effort \(from env ARCMEMO_AUX_REASONING_EFFORT\): "
                       "expected one of minimal, low, medium"):
        LLMSettings.resolve()
    monkeypatch.delenv("ARCMEMO_AUX_REASONING_EFFORT")
    monkeypatch.setenv("ARCMEMO_SELECT_MAX_TOKENS", "0")
    with pytest.raises(ConfigError, match="setting select_max_tokens .*: expected an integer >= 1"):
        LLMSettings.resolve()


def test_models_list_shows_each_roles_call_defaults(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ARCMEMO_AUX_TEMPERATURE", "0.3")
    monkeypatch.setenv("ARCMEMO_AUX_MAX_TOKENS", "1000")
    monkeypatch.setenv("ARCMEMO_SELECT_REASONING_EFFORT", "medium")
    result = CliRunner().invoke(cli, ["models", "list", "--aux-model", "gpt-4.1", "--select-model", "o4-mini"])
    assert result.exit_code == 0, result.output
    assert "; temperature 0.3; max tokens 1000" in result.output
    assert "; reasoning effort medium" in result.output


def test_a_resumed_run_keeps_the_call_defaults_it_recorded(monkeypatch):
    from arcmemo.run.session import resolve_models

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    recorded = {"models_requested": {"solver": "o4-mini", "aux": "gpt-4.1", "select": "o4-mini"},
                "call_defaults": {"solver": {}, "aux": {"temperature": 0.3, "max_tokens": 1000},
                                  "select": {"reasoning_effort": "medium"}}}
    settings = resolve_models({}, recorded)
    assert settings.call_defaults("aux") == {"temperature": 0.3, "max_tokens": 1000}
    assert settings.call_defaults("select") == {"reasoning_effort": "medium"}
    again = resolve_models({"aux_max_tokens": 500}, recorded)          # a flag given on resume wins
    assert again.call_defaults("aux") == {"temperature": 0.3, "max_tokens": 500}
