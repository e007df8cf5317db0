"""Role resolution (flag > env > config > default), aliases, prices, models.yaml overrides."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from arcmemo.core.settings import ConfigError
from arcmemo.llm.catalog import PACKAGED_JSON, load_catalog
from arcmemo.llm.client import LLM, LLMError, LLMSettings

ROOT = Path(__file__).resolve().parents[1]


def test_the_packaged_catalog_is_read_from_a_current_json_copy_of_models_yaml():
    spec = importlib.util.spec_from_file_location("generate_models_json", ROOT / "scripts" / "generate_models_json.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert PACKAGED_JSON.read_text(encoding="utf-8") == generator.render(), \
        "arcmemo/data/models.json is stale: run `python scripts/generate_models_json.py`"
    assert load_catalog().sources == ["arcmemo/data/models.yaml"]


def test_default_is_the_offline_model_when_no_endpoint():
    s = LLMSettings.resolve()
    assert (s.solver_model, s.aux_model, s.select_model) == ("local", "local", "local")
    assert s.base_url is None and s.concurrency == 8 and s.cache is True


def test_configured_endpoint_selects_models_yaml_defaults(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    s = LLMSettings.resolve()
    defaults = load_catalog().defaults
    assert (s.solver_model, s.aux_model, s.select_model) == (
        defaults["solver"], defaults["aux"], defaults["select"])
    assert "local" not in defaults.values()
    assert "sk-x" not in repr(s) and s.to_dict()["api_key"] == "set"


def test_base_url_from_env(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    s = LLMSettings.resolve()
    assert s.base_url == "http://127.0.0.1:9/v1" and s.solver_model == load_catalog().defaults["solver"]
    assert LLMSettings.resolve(base_url="http://other/v1").base_url == "http://other/v1"


def test_precedence_flag_env_config_default(isolated_home, monkeypatch):
    (isolated_home / "config.yaml").write_text("solver_model: from-config\naux_model: aux-config\n"
                                              "concurrency: 3\ncache: false\n")
    monkeypatch.setenv("ARCMEMO_SOLVER_MODEL", "from-env")
    s = LLMSettings.resolve()
    assert (s.solver_model, s.aux_model, s.select_model) == ("from-env", "aux-config", "local")
    assert s.concurrency == 3 and s.cache is False
    s = LLMSettings.resolve(solver_model="from-flag", concurrency=5, cache=True)
    assert (s.solver_model, s.concurrency, s.cache) == ("from-flag", 5, True)


def test_bad_settings_are_clear_errors(isolated_home):
    with pytest.raises(ConfigError, match=r"setting concurrency \(from flag --concurrency\): expected an integer >= 1"):
        LLMSettings.resolve(concurrency=0)
    with pytest.raises(ConfigError, match="setting cache .*: expected true or false"):
        LLMSettings.resolve(cache="maybe")
    with pytest.raises(TypeError, match="unknown settings"):
        LLMSettings.resolve(colour="red")


def test_aliases_and_prices_with_user_overrides(isolated_home):
    (isolated_home / "models.yaml").write_text(
        "defaults: {aux: cheap}\n"
        "aliases:\n  cheap: gpt-4.1-nano\n  mine: {model: my-model, base_url: 'http://127.0.0.1:9/v1'}\n"
        "prices:\n  gpt-4.1-nano: {input: 1, output: 1}\n  my-model: {input: 0.5, output: 1.5}\n")
    catalog = load_catalog()
    assert catalog.resolve("cheap").model == "gpt-4.1-nano"
    assert catalog.resolve("mine").base_url == "http://127.0.0.1:9/v1"
    assert catalog.resolve("mini").model == "gpt-4.1-mini"          # packaged alias still there
    assert catalog.price("gpt-4.1-nano").input == 1                # user price wins
    assert catalog.cost("my-model", 1_000_000, 2_000_000) == pytest.approx(0.5 + 3.0)
    assert catalog.price("gpt-4.1-mini-2025-04-14") == catalog.price("gpt-4.1-mini")  # dated snapshot
    assert catalog.price("unknown-model") is None and catalog.cost("unknown-model", 10, 10) == 0.0
    assert catalog.defaults["aux"] == "cheap"


def test_cached_input_price(isolated_home):
    catalog = load_catalog()
    price = catalog.price("gpt-4.1")
    assert catalog.cost("gpt-4.1", 1000, 0, cached_prompt_tokens=400) == pytest.approx(
        (600 * price.input + 400 * price.cached_input) / 1e6)


def test_alias_cycle_and_bad_file_are_reported(isolated_home):
    (isolated_home / "models.yaml").write_text("aliases: {a: b, b: a}\n")
    with pytest.raises(ConfigError, match="alias cycle"):
        load_catalog().resolve("a")
    (isolated_home / "models.yaml").write_text("prices: {x: {input: cheap}}\n")
    with pytest.raises(ConfigError, match=r"models.yaml: price for 'x'"):
        load_catalog()
    (isolated_home / "models.yaml").write_text("modles: {}\n")
    with pytest.raises(ConfigError, match="unknown section"):
        load_catalog()


def test_llm_resolves_alias_for_role(fake_model, isolated_home):
    (isolated_home / "models.yaml").write_text("aliases: {tester: fake}\n")
    with LLM(LLMSettings(solver_model="tester", aux_model="fake", select_model="fake")) as llm:
        assert llm.model_for("solver") == "fake"
        fake_model.queue("solve", "via alias")
        assert llm.chat([{"role": "user", "content": "x"}], role="solver", step="solve").text == "via alias"


def test_remote_model_without_endpoint_fails_early_and_clearly():
    with pytest.raises(LLMError, match="needs an endpoint.*OPENAI_API_KEY"):
        LLM(LLMSettings(solver_model="gpt-4.1", aux_model="local", select_model="local"))


def test_model_for_rejects_unknown_role(fake_llm):
    assert fake_llm.model_for("select") == "fake"
    with pytest.raises(ValueError, match="unknown model role"):
        fake_llm.model_for("judge")


def test_embedded_model_calls_get_a_completion_limit_unless_they_set_one(isolated_home, monkeypatch):
    """local_max_tokens, resolved with the other model settings when the client is made."""
    from arcmemo.llm.backend import register_model, unregister_model
    from arcmemo.llm.fake import FakeModel

    local = FakeModel("local").queue("solve", "a", "b", "c")      # stands in for the embedded server
    register_model("local", local)
    try:
        msg = [{"role": "user", "content": "hi"}]
        with LLM(LLMSettings(solver_model="local", aux_model="local", select_model="local", cache=False)) as llm:
            llm.chat(msg, role="solver", step="solve")
            llm.chat(msg, role="solver", step="solve", max_tokens=300)
        monkeypatch.setenv("ARCMEMO_LOCAL_MAX_TOKENS", "512")
        with LLM(LLMSettings.resolve(cache=False)) as llm:
            llm.chat(msg, role="solver", step="solve")
        assert [c.params.get("max_tokens") for c in local.calls] == [2048, 300, 512]
        monkeypatch.setenv("ARCMEMO_LOCAL_MAX_TOKENS", "many")
        with pytest.raises(ConfigError, match="local_max_tokens"):
            LLMSettings.resolve()
    finally:
        unregister_model("local")


def test_endpoint_model_calls_are_left_without_a_limit(fake_model, fake_llm):
    fake_model.queue("solve", "a")
    fake_llm.chat([{"role": "user", "content": "hi"}], role="solver", step="solve")
    assert "max_tokens" not in (fake_model.calls[0].params or {})


@pytest.mark.parametrize("name, value, says", [
    ("LOCAL_N_CTX", "big", r"setting local_n_ctx \(from env ARCMEMO_LOCAL_N_CTX\): expected an integer >= 256, "
                           "got 'big'"),
    ("LOCAL_THREADS", "0", "setting local_threads .*: expected an integer >= 1"),
    ("LOCAL_SLOTS", "two", "setting local_slots .*: expected an integer >= 1"),
    ("LOCAL_MAX_TOKENS", "4", "setting local_max_tokens .*: expected an integer >= 16"),
])
def test_bad_embedded_model_settings_fail_at_start_up(monkeypatch, name, value, says):
    monkeypatch.setenv("ARCMEMO_" + name, value)
    with pytest.raises(ConfigError, match=says):
        LLMSettings.resolve()


def test_call_budget_and_timeouts_resolve(isolated_home, monkeypatch):
    s = LLMSettings.resolve()
    assert (s.timeout_s, s.call_budget_s) == (300.0, 600.0)        # a hang costs minutes, not an hour
    monkeypatch.setenv("ARCMEMO_CALL_BUDGET_S", "90")
    assert LLMSettings.resolve(timeout_s=30).call_budget_s == 90.0
    monkeypatch.setenv("ARCMEMO_CALL_BUDGET_S", "0")
    with pytest.raises(ConfigError, match="setting call_budget_s .*: expected a number >= 0.001"):
        LLMSettings.resolve()
