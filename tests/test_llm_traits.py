"""Model traits from models.yaml and the request each model gets: reasoning models get
max_completion_tokens and reasoning_effort (never max_tokens), others max_tokens and a
clear error for reasoning_effort; vision models get image parts intact; per-role
temperature. End to end against the loopback stub: what the server received."""

from __future__ import annotations

import base64
import json

import pytest
from llm_stub import StubServer

from arcmemo.core.settings import ConfigError
from arcmemo.llm import LLMError, ModelTraits, UnsupportedParameter
from arcmemo.llm.catalog import load_catalog
from arcmemo.llm.client import LLM, LLMSettings

MSG = [{"role": "user", "content": "2+2?"}]
# a 1x1 PNG, as the openai client sends images: a base64 data URL in an image_url part
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a7e5a5d60000000049454e44ae426082")).decode()
IMAGE_MSG = [{"role": "user", "content": [
    {"type": "text", "text": "Describe the puzzle."},
    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "high"}}]}]


@pytest.fixture
def stub():
    with StubServer() as server:
        yield server


def make_llm(base_url, **roles) -> LLM:
    values = dict(base_url=base_url, api_key="sk-test", solver_model="o4-mini", aux_model="gpt-4.1",
                  select_model="o3-mini", timeout_s=5.0, backoff_base_s=0.001)
    values.update(roles)
    return LLM(LLMSettings(**values))


@pytest.mark.parametrize("model, context, vision, reasoning", [
    ("o4-mini", 200_000, True, True), ("o3", 200_000, True, True), ("o3-mini", 200_000, False, True),
    ("gpt-4.1", 1_047_576, True, False), ("gpt-4.1-mini", 1_047_576, True, False),
    ("gpt-4.1-nano", 1_047_576, True, False), ("gpt-4o", 128_000, True, False),
    ("gpt-4o-mini", 128_000, True, False), ("gpt-5", 400_000, True, True), ("gpt-5-mini", 400_000, True, True),
    ("gpt-5-nano", 400_000, True, True), ("gpt-5-chat-latest", 128_000, True, False),
    ("o4-mini-2025-04-16", 200_000, True, True),          # a dated snapshot: its family's traits
    ("qwen2.5-coder:7b", 32_768, False, False),           # not listed: the stated default ("*")
])
def test_packaged_traits(model, context, vision, reasoning):
    traits = load_catalog().traits(model)
    assert (traits.context, traits.vision, traits.reasoning) == (context, vision, reasoning)


def test_user_models_yaml_adds_and_overrides_field_by_field(isolated_home):
    (isolated_home / "models.yaml").write_text(
        "traits:\n  o4-mini: {context: 100000}\n  my-vllm-model: {context: 65536, reasoning: true}\n"
        "  '*': {context: 16384}\n")
    catalog = load_catalog()
    assert catalog.traits("o4-mini") == ModelTraits(100_000, True, True, "o200k_base")
    assert catalog.traits("my-vllm-model") == ModelTraits(65_536, False, True, None)
    assert catalog.traits("unknown").context == 16_384


@pytest.mark.parametrize("entry, says", [
    ("{context: big}", "context must be a whole number"),
    ("{context: 100}", r"context must be .*\(at least 256\), got 100"),
    ("{vision: maybe}", "vision must be true or false"),
    ("{reasoning: 1}", "reasoning must be true or false"),
    ("{colour: red}", "unknown field"),
    ("[1, 2]", "expected a mapping"),
])
def test_bad_trait_entries_are_clear_errors(isolated_home, entry, says):
    (isolated_home / "models.yaml").write_text(f"traits:\n  mine: {entry}\n")
    with pytest.raises(ConfigError, match=f"models.yaml: traits for 'mine': {says}"):
        load_catalog()


def test_llm_answers_traits_and_context_per_role(stub, monkeypatch):
    with make_llm(stub.base_url, select_model="local-small") as llm:
        assert llm.traits("solver").reasoning and llm.context_window("solver") == 200_000
        assert llm.context_window("aux") == 1_047_576 and not llm.traits("aux").reasoning
        assert llm.context_window("select") == 8192                   # the embedded server's local_n_ctx
    with make_llm(stub.base_url, select_model="local-small", local_n_ctx=4096) as llm:
        assert llm.context_window("select") == 4096 and not llm.traits("select").vision


def test_reasoning_model_gets_max_completion_tokens_and_effort(stub):
    with make_llm(stub.base_url) as llm:
        llm.chat(MSG, role="solver", step="solve", max_tokens=32000, reasoning_effort="medium")
    sent = stub.requests[0]
    assert sent["model"] == "o4-mini"
    assert sent["max_completion_tokens"] == 32000 and sent["reasoning_effort"] == "medium"
    assert "max_tokens" not in sent


def test_other_models_get_max_tokens_and_refuse_reasoning_effort_before_any_call(stub):
    with make_llm(stub.base_url) as llm:
        llm.chat(MSG, role="aux", step="pseudocode", max_completion_tokens=500)
        with pytest.raises(UnsupportedParameter, match="'gpt-4.1' does not take reasoning_effort"):
            llm.chat(MSG, role="aux", step="pseudocode", reasoning_effort="high", sample=1)
        with pytest.raises(UnsupportedParameter, match="does not take reasoning_effort"):
            llm.check_params("aux", reasoning_effort="low")               # the start-up check
        assert llm.check_params("solver", max_tokens=10) == {"max_completion_tokens": 10}
    assert len(stub.requests) == 1
    assert stub.requests[0]["max_tokens"] == 500 and "max_completion_tokens" not in stub.requests[0]


def test_unknown_reasoning_effort_value_is_refused(stub):
    with make_llm(stub.base_url) as llm:
        with pytest.raises(UnsupportedParameter, match="'extreme' is not one of"):
            llm.check_params("solver", reasoning_effort="extreme")


def test_role_temperature_applies_when_a_call_sets_none(stub):
    with make_llm(stub.base_url, aux_temperature=0.3) as llm:
        llm.chat(MSG, role="aux", step="pseudocode")
        llm.chat(MSG, role="aux", step="pseudocode", temperature=0.9, sample=1)
        llm.chat(MSG, role="solver", step="solve")
    assert [r.get("temperature") for r in stub.requests] == [0.3, 0.9, None]


def test_role_temperatures_resolve_and_validate(isolated_home, monkeypatch):
    (isolated_home / "config.yaml").write_text("aux_temperature: 0.3\n")
    monkeypatch.setenv("ARCMEMO_SELECT_TEMPERATURE", "0")
    s = LLMSettings.resolve(solver_temperature=1.0)
    assert (s.solver_temperature, s.aux_temperature, s.select_temperature) == (1.0, 0.3, 0.0)
    with pytest.raises(ConfigError, match=r"setting solver_temperature \(from flag --solver-temperature\): "
                                          "expected a number >= 0 and <= 2, got 3"):
        LLMSettings.resolve(solver_temperature=3)
    monkeypatch.setenv("ARCMEMO_AUX_TEMPERATURE", "warm")
    with pytest.raises(ConfigError, match=r"setting aux_temperature \(from env ARCMEMO_AUX_TEMPERATURE\): expected a "
                                          "number"):
        LLMSettings.resolve()


def test_vision_request_reaches_the_endpoint_intact_and_is_cached_and_logged(stub):
    with make_llm(stub.base_url) as llm:
        first = llm.chat(IMAGE_MSG, role="aux", step="caption", task_id="t1")
        again = llm.chat(IMAGE_MSG, role="aux", step="caption", task_id="t1")
        assert not first.cached and again.cached
        logged = llm._log.get(first.call_id).request["messages"]
    assert len(stub.requests) == 1
    assert stub.requests[0]["messages"] == IMAGE_MSG
    assert logged == IMAGE_MSG
    assert json.loads(json.dumps(stub.requests[0]))["messages"][0]["content"][1]["image_url"]["url"].endswith(PNG)


def test_image_parts_to_a_model_without_vision_fail_before_any_call(stub):
    with make_llm(stub.base_url) as llm:
        with pytest.raises(UnsupportedParameter, match="'o3-mini' does not take images"):
            llm.chat(IMAGE_MSG, role="select", step="caption")
    assert stub.requests == []


@pytest.mark.parametrize("content, says", [
    ([{"text": "no type"}], r"must be a dict with a 'type'"),
    ([{"type": "text"}], "text part without 'text'"),
    ([{"type": "image_url", "image_url": "not a dict"}], "image part without image_url.url"),
    (42, "must be text or a list of parts"),
])
def test_malformed_list_content_is_a_programming_error(fake_llm, content, says):
    with pytest.raises(TypeError, match=says):
        fake_llm.chat([{"role": "user", "content": content}], role="solver", step="solve")


def test_a_double_that_declares_traits_is_treated_by_them(isolated_home):
    from arcmemo.llm.backend import register_model, unregister_model
    from arcmemo.llm.fake import FakeModel

    double = FakeModel("thinker", traits=ModelTraits(context=50_000, vision=False, reasoning=True))
    double.on("*", lambda messages: "ok")
    register_model("thinker", double)
    try:
        with LLM(LLMSettings(solver_model="thinker", aux_model="thinker", select_model="thinker")) as llm:
            assert llm.context_window("solver") == 50_000
            llm.chat(MSG, role="solver", step="solve", max_tokens=64)
            with pytest.raises(UnsupportedParameter):
                llm.chat(IMAGE_MSG, role="solver", step="caption")
        assert double.calls[0].params == {"max_completion_tokens": 64}
    finally:
        unregister_model("thinker")


def test_a_prompt_longer_than_the_context_is_refused_before_it_is_sent(stub, isolated_home):
    (isolated_home / "models.yaml").write_text(
        "traits:\n  small-model: {context: 1000, tokenizer: o200k_base}\n"
        "  unknown-tokens: {context: 1000}\n")
    grid = "\n".join(" ".join("7" for _ in range(30)) for _ in range(30))        # 900 cells
    long = [{"role": "user", "content": grid + "\n" + grid}]
    with make_llm(stub.base_url, solver_model="small-model", aux_model="unknown-tokens") as llm:
        with pytest.raises(LLMError, match=r"the prompt takes \d,\d{3} tokens, more than the 1,000-token context "
                                           r"of small-model: not sent"):
            llm.chat(long, role="solver", step="solve")
        assert llm.chat([{"role": "user", "content": grid[:200]}], role="solver", step="solve").text  # fits
        with pytest.raises(LLMError, match=r"the prompt takes \d+ tokens and the answer may take 900, more than"):
            llm.chat([{"role": "user", "content": grid[:200]}], role="solver", step="solve", max_tokens=900)
        # counted only by an estimate (which counts more than a tokenizer): sent, the server decides
        assert llm.chat(long, role="aux", step="pseudocode").text
    assert len(stub.requests) == 2
