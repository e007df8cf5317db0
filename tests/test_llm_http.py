"""The real endpoint client path (openai_backend.py, over the `openai` package) against a
stub OpenAI-compatible server on 127.0.0.1: retries (429 + Retry-After, 5xx, timeouts,
malformed and slow bodies, dropped connections), permanent errors, parameter pass-through,
token and cost accounting, the cache, cancellation, proxies; a solve through the package."""

from __future__ import annotations

import asyncio
import base64
import socket
import time

import pytest
from llm_stub import StubServer, completion_body, stub_llm

from arcmemo.llm.client import LLMError
from arcmemo.llm.errors import EndpointFatal, EndpointUnavailable

MSG = [{"role": "user", "content": "2+2?"}]


make_llm = stub_llm


@pytest.fixture
def stub():
    with StubServer() as server:
        yield server


@pytest.fixture
def priced(isolated_home):
    (isolated_home / "models.yaml").write_text(
        "aliases:\n  stubby: stub-model\nprices:\n  stub-model: {input: 1.0, output: 2.0}\n"
        "traits:\n  stub-model: {reasoning: true}\n")     # takes reasoning_effort


def test_success_reads_text_reasoning_tokens_and_cost(stub, priced):
    stub.script({"body": completion_body("4", prompt_tokens=100, completion_tokens=50,
                                         reasoning_tokens=30, reasoning="think")})
    with make_llm(stub.base_url, solver_model="stubby") as llm:
        c = llm.chat(MSG, role="solver", step="solve", temperature=0.2, max_completion_tokens=500,
                     reasoning_effort="low", seed=7, max_tokens=None)
        assert (c.text, c.reasoning, c.model) == ("4", "think", "stub-model")
        assert (c.prompt_tokens, c.completion_tokens, c.reasoning_tokens) == (100, 50, 30)
        assert c.cost_usd == pytest.approx((100 * 1.0 + 50 * 2.0) / 1e6)
        assert llm.usage().cost_usd == pytest.approx(c.cost_usd)
        record = llm._log.get(c.call_id)
        assert record.response_text == "4" and record.reasoning == "think"
        assert record.request["messages"] == MSG and record.attempts == 1
    sent = stub.requests[0]
    assert sent["model"] == "stub-model"
    assert {k: sent[k] for k in ("temperature", "max_completion_tokens", "reasoning_effort", "seed")} == {
        "temperature": 0.2, "max_completion_tokens": 500, "reasoning_effort": "low", "seed": 7}
    assert "max_tokens" not in sent


def test_the_providers_cached_prompt_tokens_are_priced_as_cached(stub, isolated_home):
    (isolated_home / "models.yaml").write_text(
        "prices:\n  stub-model: {input: 1.0, output: 2.0, cached_input: 0.25}\n")
    body = completion_body("4", prompt_tokens=1000, completion_tokens=10)
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": 800}
    stub.script({"body": body})
    with make_llm(stub.base_url) as llm:
        c = llm.chat(MSG, role="solver", step="solve")
    assert c.cost_usd == pytest.approx((200 * 1.0 + 800 * 0.25 + 10 * 2.0) / 1e6)


def test_429_with_retry_after_is_honoured_then_succeeds(stub):
    stub.script(stub.error(429, "slow down", headers={"Retry-After": "0.4"}))
    with make_llm(stub.base_url) as llm:
        c = llm.chat(MSG, role="solver", step="solve")
        assert c.text == "echo: 2+2?"
        assert llm._log.get(c.call_id).attempts == 2
    assert len(stub.requests) == 2
    assert stub.request_times[1] - stub.request_times[0] >= 0.39


def test_5xx_are_retried_until_success(stub):
    stub.script(stub.error(500, "oops"), stub.error(503, "busy"))
    with make_llm(stub.base_url) as llm:
        c = llm.chat(MSG, role="solver", step="solve")
        assert c.text == "echo: 2+2?" and llm._log.get(c.call_id).attempts == 3


def test_persistent_5xx_gives_up_after_bounded_attempts(stub):
    stub.script(*[stub.error(500, "still broken")] * 10)
    with make_llm(stub.base_url, max_attempts=3) as llm:
        with pytest.raises(LLMError, match="still broken.*gave up after 3 attempts") as info:
            llm.chat(MSG, role="solver", step="solve")
        assert info.value.transient and info.value.status == 500 and info.value.step == "solve"
        assert llm.usage().errors == 1
        assert "still broken" in llm._log.list()[0].error
    assert len(stub.requests) == 3


def test_timeout_is_retried(stub):
    stub.script({"delay": 1.5})
    with make_llm(stub.base_url, timeout_s=0.3) as llm:
        started = time.monotonic()
        c = llm.chat(MSG, role="solver", step="solve")
        assert c.text == "echo: 2+2?" and llm._log.get(c.call_id).attempts == 2
        assert time.monotonic() - started < 1.4


def test_malformed_body_is_retried_then_fails_clearly(stub):
    stub.script({"raw": "this is not json"}, {"body": {"unexpected": True}})
    with make_llm(stub.base_url) as llm:
        assert llm.chat(MSG, role="solver", step="solve").text == "echo: 2+2?"
    assert len(stub.requests) == 3
    stub.script(*[{"raw": "{broken"}] * 3)
    with make_llm(stub.base_url, max_attempts=3) as llm:
        with pytest.raises(LLMError, match="malformed response"):
            llm.chat(MSG, role="solver", step="solve", sample=1)


def test_401_fails_at_once_with_server_message(stub):
    stub.script(stub.error(401, "Incorrect API key provided"))
    with make_llm(stub.base_url) as llm:
        with pytest.raises(LLMError, match="HTTP 401.*Incorrect API key provided") as info:
            llm.chat(MSG, role="solver", step="solve")
        assert info.value.status == 401 and not info.value.transient and info.value.attempts == 1
    assert len(stub.requests) == 1


@pytest.mark.parametrize("status", [400, 403, 404])
def test_other_permanent_errors_fail_at_once(stub, status):
    stub.script(stub.error(status, "The model `nope` does not exist"))
    with make_llm(stub.base_url) as llm:
        with pytest.raises(LLMError, match="does not exist"):
            llm.chat(MSG, role="solver", step="solve")
    assert len(stub.requests) == 1


def test_dropped_connection_is_retried_then_reported():
    with socket.socket() as sock:           # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with make_llm(f"http://127.0.0.1:{port}/v1", max_attempts=2) as llm:
        with pytest.raises(LLMError, match="connection.*failed.*gave up after 2 attempts"):
            llm.chat(MSG, role="solver", step="solve")


def test_too_long_retry_after_fails_instead_of_stalling(stub):
    stub.script(stub.error(429, "quota", headers={"Retry-After": "3600"}))
    with make_llm(stub.base_url, max_retry_after_s=5) as llm:
        with pytest.raises(LLMError, match="Retry-After 3600s exceeds"):
            llm.chat(MSG, role="solver", step="solve")


def test_cache_serves_repeats_and_keeps_samples_independent(stub, priced):
    with make_llm(stub.base_url) as llm:
        first = llm.chat(MSG, role="solver", step="solve")
        repeat = llm.chat(MSG, role="solver", step="solve")
        sample1 = llm.chat(MSG, role="solver", step="solve", sample=1)
        hotter = llm.chat(MSG, role="solver", step="solve", temperature=1.0)
        assert len(stub.requests) == 3
        assert repeat.cached and repeat.text == first.text and repeat.cost_usd == 0
        assert not sample1.cached and not hotter.cached
        usage = llm.usage()
        assert (usage.calls, usage.cache_hits) == (4, 1)
        assert usage.cost_usd == pytest.approx(3 * first.cost_usd)
    with make_llm(stub.base_url) as rerun:        # a re-run costs nothing for what was asked
        assert rerun.chat(MSG, role="solver", step="solve", sample=1).cached
        assert rerun.usage().cost_usd == 0
    with make_llm(stub.base_url, cache=False) as nocache:
        assert not nocache.chat(MSG, role="solver", step="solve").cached
    assert len(stub.requests) == 4


def test_cache_key_includes_the_endpoint():
    with StubServer() as a, StubServer() as b:
        with make_llm(a.base_url) as llm_a, make_llm(b.base_url) as llm_b:
            llm_a.chat(MSG, role="solver", step="solve")
            assert not llm_b.chat(MSG, role="solver", step="solve").cached
        assert len(a.requests) == len(b.requests) == 1


def test_n_choices_are_returned(stub):
    with make_llm(stub.base_url) as llm:
        c = llm.chat(MSG, role="solver", step="solve", n=3)
        assert c.choices == ("echo: 2+2?", "echo: 2+2?#1", "echo: 2+2?#2") and c.text == c.choices[0]
        assert llm.chat(MSG, role="solver", step="solve", n=3).choices == c.choices   # cached
    assert stub.requests[0]["n"] == 3 and len(stub.requests) == 1


def test_concurrency_is_bounded(stub):
    stub.delay_s = 0.1
    with make_llm(stub.base_url, concurrency=3) as llm:
        async def many():
            return await asyncio.gather(*(llm.achat(MSG, role="solver", step="solve", sample=i)
                                          for i in range(12)))
        results = llm.run(many())
    assert len(results) == 12 and stub.max_in_flight == 3


def test_one_failure_does_not_sink_the_others(stub):
    stub.script(stub.error(401, "bad key"))
    with make_llm(stub.base_url, concurrency=1) as llm:
        async def many():
            return await asyncio.gather(*(llm.achat(MSG, role="solver", step="solve", sample=i)
                                          for i in range(3)), return_exceptions=True)
        results = llm.run(many())
    assert sum(isinstance(r, LLMError) for r in results) == 1
    assert sum(not isinstance(r, Exception) for r in results) == 2


def test_html_error_page_with_200_is_malformed(stub):
    stub.script({"raw": "<html>gateway</html>", "content_type": "text/html"})
    with make_llm(stub.base_url) as llm:
        c = llm.chat(MSG, role="solver", step="solve")
        assert c.text == "echo: 2+2?" and llm._log.get(c.call_id).attempts == 2


def _backend(base_url: str, timeout_s: float = 2.0):
    from arcmemo.llm.openai_backend import OpenAIBackend

    return OpenAIBackend(base_url, "sk-test", timeout_s=timeout_s)


def _request(**params):
    from arcmemo.llm.backend import CallRequest

    return CallRequest(model="stub-model", messages=MSG, params=params, role="solver", step="solve")


def test_a_cancelled_call_hangs_up_its_connection_at_once(stub):
    """The client's time limit cancels the call: its connection is closed, not left waiting
    for the endpoint's answer (a hung server would otherwise hold it for the whole timeout)."""
    stub.script({"delay": 5})
    backend = _backend(stub.base_url, timeout_s=30)

    async def call():
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(backend.complete(_request()), 0.3)
        for _ in range(50):           # while the loop still runs: the hang-up is the cancel's, not the loop's end
            if stub.hung_up:
                break
            await asyncio.sleep(0.02)
        hung_up = stub.hung_up
        await backend.aclose()
        return hung_up

    started = time.monotonic()
    assert asyncio.run(call()) == 1
    assert time.monotonic() - started < 2


def test_extra_body_goes_to_the_top_of_the_request(stub):
    reply = asyncio.run(_backend(stub.base_url).complete(_request(temperature=0.1, extra_body={"top_k": 20})))
    assert reply.text == "echo: 2+2?"
    assert stub.requests[0]["top_k"] == 20 and stub.requests[0]["temperature"] == 0.1
    assert "extra_body" not in stub.requests[0]


def test_a_proxy_from_the_environment_carries_the_request(stub, monkeypatch):
    """HTTP_PROXY names the stub; the endpoint's host does not resolve, so only the proxy can answer.
    A plain proxy is sent the whole URL, and the credentials in the proxy's URL."""
    monkeypatch.setenv("HTTP_PROXY", stub.base_url.rsplit("/v1", 1)[0].replace("://", "://me:s%40fe@"))
    monkeypatch.setenv("NO_PROXY", "")
    for name in ("http_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    reply = asyncio.run(_backend("http://no-such-host.invalid/v1").complete(_request()))
    assert reply.text == "echo: 2+2?" and stub.requests[0]["model"] == "stub-model"
    target, headers = stub.request_lines[0]
    assert target == "http://no-such-host.invalid/v1/chat/completions"
    assert headers["proxy-authorization"] == "Basic " + base64.b64encode(b"me:s@fe").decode()
    assert headers["authorization"] == "Bearer sk-test"


def _error(status: int, message: str, headers: dict | None = None) -> dict:
    return {"status": status, "body": {"error": {"message": message, "type": "stub_error"}}, "headers": headers or {}}


# What the loopback server answers first, and what arcmemo makes of it through the package:
# fatal for the run (one request), or transient: retried by arcmemo's policy until the answer.
LOOPBACK = {
    "401": (_error(401, "Incorrect API key provided"), EndpointFatal),
    "404": (_error(404, "The model `stub-model` does not exist"), EndpointFatal),
    "429 with retry-after": (_error(429, "slow down", {"Retry-After": "0.3"}), "retried"),
    "429 without retry-after": (_error(429, "slow down"), "retried"),
    "500": (_error(500, "internal error"), "retried"),
    "502": (_error(502, "bad gateway"), "retried"),
    "503": (_error(503, "overloaded"), "retried"),
    "malformed JSON": ({"raw": '{"choices": [{"message": '}, "retried"),
    "slow body": ({"trickle": 0.02}, "answered"),               # whole within the attempt's time limit
    "slow body past the time limit": ({"trickle": 0.25}, "retried"),   # each piece in time, the whole not
    "timeout": ({"delay": 3}, "retried"),
}


@pytest.mark.parametrize("case", list(LOOPBACK))
def test_loopback_answers_are_sorted_and_retried_by_arcmemo_through_the_package(stub, case):
    """Every request goes out through the openai package (its user agent), the package retries
    nothing itself, and arcmemo's sorting decides: a fatal error stops at one request; a
    transient one is retried once by arcmemo's policy, after the server's Retry-After when it
    sends one, and within the attempt's time limit (1 s) however slowly the body arrives."""
    import openai

    action, outcome = LOOPBACK[case]
    stub.script(action)
    with make_llm(stub.base_url, timeout_s=1.0) as llm:
        if outcome is EndpointFatal:
            with pytest.raises(EndpointFatal, match=f"HTTP {case}.*{action['body']['error']['message'][:10]}"):
                llm.chat(MSG, role="solver", step="solve")
            assert llm._log.list()[0].error_kind == "fatal"
        else:
            c = llm.chat(MSG, role="solver", step="solve")
            assert c.text == "echo: 2+2?"
            assert llm._log.get(c.call_id).attempts == len(stub.requests)
    expected = {EndpointFatal: 1, "answered": 1, "retried": 2}[outcome]
    assert len(stub.requests) == expected
    assert {headers["user-agent"] for _, headers in stub.request_lines} == {f"AsyncOpenAI/Python {openai.__version__}"}
    if case == "429 with retry-after":
        assert stub.request_times[1] - stub.request_times[0] >= 0.29


@pytest.mark.parametrize("case", [name for name, (_, outcome) in LOOPBACK.items() if outcome == "retried"])
def test_the_package_retries_nothing_itself(stub, case):
    """One attempt allowed: a transient fault ends the call after exactly one request, as
    EndpointUnavailable (the package would otherwise retry 429s, 5xx and timeouts twice on
    its own, unseen by arcmemo's budget and call log)."""
    stub.script(*[LOOPBACK[case][0]] * 3)
    with make_llm(stub.base_url, timeout_s=1.0, max_attempts=1) as llm:
        with pytest.raises(EndpointUnavailable, match="gave up after 1 attempts"):
            llm.chat(MSG, role="solver", step="solve")
    assert len(stub.requests) == 1


def test_a_solve_against_a_loopback_server_goes_through_the_package(tmp_path, monkeypatch):
    """`arcmemo solve` end to end: its requests are the openai package's."""
    import openai
    from click.testing import CliRunner

    from arcmemo.cli import cli

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    program = "```python\ndef transform(grid):\n    return grid\n```"
    with StubServer(answer=lambda body: program) as server:
        result = CliRunner().invoke(cli, ["solve", "--tasks", "007bbfb7", "--selection", "none", "--retries", "0",
                                          "-q", "--db", str(tmp_path / "m.db"), "--run-dir", str(tmp_path / "runs"),
                                          "--base-url", server.base_url, "--solver-model", "stub-model",
                                          "--aux-model", "stub-model", "--select-model", "stub-model"])
        assert result.exit_code == 0, result.output
        assert server.requests and server.requests[0]["model"] == "stub-model"
        for target, headers in server.request_lines:
            assert target == "/v1/chat/completions"
            assert headers["user-agent"] == f"AsyncOpenAI/Python {openai.__version__}"
            assert headers["x-stainless-package-version"] == openai.__version__
