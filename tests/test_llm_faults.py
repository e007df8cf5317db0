"""Endpoint faults against the loopback stub: what stops a run (EndpointFatal), what is
retried within the call's time budget and then given up (EndpointUnavailable), and what
a task's meter (run/stages/metered.py) remembers of them for the run layer."""

from __future__ import annotations

import time

import pytest
from llm_stub import StubServer, stub_llm

from arcmemo.llm import EndpointFatal, EndpointUnavailable, LLMError
from arcmemo.llm.backend import TransientError
from arcmemo.llm.client import LLM, LLMSettings
from arcmemo.run.stages.metered import MeteredLLM

MSG = [{"role": "user", "content": "2+2?"}]


def make_llm(base_url, **over):
    return stub_llm(base_url, **{"call_budget_s": 5.0, "max_attempts": 6, "backoff_base_s": 0.01,
                                 "backoff_max_s": 0.05, **over})


@pytest.fixture
def stub():
    with StubServer() as server:
        yield server


@pytest.mark.parametrize("status, message", [
    (401, "Incorrect API key provided"),
    (403, "Project does not have access to model"),
    (404, "The model `stub-model` does not exist or you do not have access to it."),
])
def test_auth_and_not_found_stop_the_run_at_once(stub, status, message):
    stub.script(stub.error(status, message))
    with make_llm(stub.base_url) as llm:
        with pytest.raises(EndpointFatal, match=f"HTTP {status}.*{message[:20]}") as info:
            llm.chat(MSG, role="solver", step="solve", task_id="t1")
        assert info.value.status == status and info.value.attempts == 1
        assert llm.fatal is info.value
        # every later call raises at once, without network, for any role, task or cached answer
        started = time.monotonic()
        for role, task in (("solver", "t2"), ("aux", "t3"), ("select", None)):
            with pytest.raises(EndpointFatal, match=message[:20]):
                llm.chat([{"role": "user", "content": role}], role=role, step="x", task_id=task)
        assert time.monotonic() - started < 1.0
        assert [r.error_kind for r in llm._log.list()] == ["fatal"]
    assert len(stub.requests) == 1


@pytest.mark.parametrize("status, code, message", [
    (429, "insufficient_quota", "You exceeded your current quota"),
    (400, "model_not_found", "The model does not exist"),
    (400, "unsupported_value", "Unsupported value: 'temperature' does not support 0.3 with this model."),
])
def test_error_codes_that_no_retry_can_fix_are_fatal(stub, status, code, message):
    stub.script({"status": status, "body": {"error": {"message": message, "code": code}}})
    with make_llm(stub.base_url) as llm:
        with pytest.raises(EndpointFatal, match=message[:20]):
            llm.chat(MSG, role="solver", step="solve")
    assert len(stub.requests) == 1


@pytest.mark.parametrize("status, message, code", [
    (400, "maximum context length exceeded", "context_length_exceeded"),
    (500, "Context size has been exceeded.", 500),        # llama.cpp, out of room mid-answer
])
def test_a_request_too_long_for_the_context_fails_only_its_call_untried_again(stub, status, message, code):
    stub.script({"status": status, "body": {"error": {"message": message, "code": code}}})
    with make_llm(stub.base_url) as llm:
        with pytest.raises(LLMError, match="(?i)context") as info:
            llm.chat(MSG, role="solver", step="solve", task_id="t1")
        assert type(info.value) is LLMError and llm.fatal is None
        assert llm.chat(MSG, role="solver", step="solve", sample=1).text == "echo: 2+2?"
    assert len(stub.requests) == 2


def test_429_with_retry_after_waits_exactly_then_succeeds(stub):
    stub.script(stub.error(429, "slow down", headers={"Retry-After": "0.3"}))
    with make_llm(stub.base_url) as llm:
        c = llm.chat(MSG, role="solver", step="solve", task_id="t1")
        assert c.text == "echo: 2+2?" and llm.fatal is None
    assert stub.request_times[1] - stub.request_times[0] >= 0.29


@pytest.mark.parametrize("action", [
    {"status": 500, "body": {"error": {"message": "internal"}}},
    {"status": 503, "body": {"error": {"message": "overloaded"}}},
    {"drop": True},
    {"raw": "<html>bad gateway</html>", "content_type": "text/html"},
])
def test_transient_faults_are_retried_then_succeed(stub, action):
    stub.script(action, action)
    with make_llm(stub.base_url) as llm:
        c = llm.chat(MSG, role="solver", step="solve")
        assert c.text == "echo: 2+2?" and llm._log.get(c.call_id).attempts == 3
    assert len(stub.requests) == 3


@pytest.mark.parametrize("action, says", [
    ({"status": 500, "body": {"error": {"message": "internal"}}}, "HTTP 500"),
    ({"status": 503, "body": {"error": {"message": "overloaded"}}}, "HTTP 503"),
    ({"drop": True}, "connection"),
    ({"raw": "not json at all"}, "malformed response"),
])
def test_an_outage_ends_in_endpoint_unavailable_within_the_budget(stub, action, says):
    stub.script(*[action] * 200)
    with make_llm(stub.base_url, max_attempts=100, call_budget_s=0.6) as llm:
        started = time.monotonic()
        with pytest.raises(EndpointUnavailable, match=f"{says}.*gave up after .* attempts in .*budget is 0.6s"):
            llm.chat(MSG, role="solver", step="solve", task_id="t1")
        assert time.monotonic() - started < 0.6 + 1.0      # the budget, plus a loaded machine's slack
        assert llm.fatal is None
        # not fatal: the next call goes out to the endpoint again
        stub._script.clear()
        assert llm.chat(MSG, role="solver", step="solve", task_id="t2").text == "echo: 2+2?"
        assert [r.error_kind for r in llm._log.list()] == [None, "unavailable"]


def test_a_hanging_endpoint_costs_at_most_the_call_budget(stub):
    stub.script(*[{"delay": 5}] * 5)
    with make_llm(stub.base_url, timeout_s=10, call_budget_s=0.8) as llm:
        started = time.monotonic()
        with pytest.raises(EndpointUnavailable, match="budget is 0.8s"):
            llm.chat(MSG, role="solver", step="solve")
        assert time.monotonic() - started < 0.8 + 1.0      # not the 5 s the endpoint would hang


def test_a_tasks_meter_keeps_its_own_endpoint_fault(fake_model):
    """What the run layer reads to record a task as lost: the first EndpointUnavailable of its
    own calls; an ordinary failed call is no fault, and another task's meter has none."""
    fake_model.queue("solve", *[TransientError("HTTP 503")] * 3)
    settings = LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", backoff_base_s=0,
                           max_attempts=3)
    with LLM(settings) as llm:
        lost, other = MeteredLLM(llm), MeteredLLM(llm)
        with pytest.raises(EndpointUnavailable):
            lost.chat(MSG, role="solver", step="solve", task_id="a")
        assert isinstance(lost.fault, EndpointUnavailable) and lost.fatal is None and other.fault is None
        fake_model.queue("solve", LLMError("a bad request"))
        with pytest.raises(LLMError):
            other.chat(MSG, role="solver", step="solve", task_id="b", sample=1)
        assert other.fault is None and other.usage.errors == 1 and lost.usage.errors == 1
        fake_model.queue("solve", "fine")
        assert other.chat(MSG, role="solver", step="solve", task_id="b", sample=2).text == "fine"


def test_fatal_from_a_backend_is_remembered(fake_model, fake_llm):
    fake_model.queue("solve", EndpointFatal("HTTP 401 from fake: bad key", status=401))
    with pytest.raises(EndpointFatal):
        fake_llm.chat(MSG, role="solver", step="solve", task_id="t")
    fake_model.queue("solve", "never asked")
    with pytest.raises(EndpointFatal, match="bad key"):
        fake_llm.chat(MSG, role="solver", step="solve", task_id="u", sample=1)
    assert fake_model.pending("solve") == 1


def test_missing_endpoint_is_fatal_before_any_call():
    with pytest.raises(EndpointFatal, match="needs an endpoint"):
        LLM(LLMSettings(solver_model="gpt-4.1", aux_model="local", select_model="local"))
