"""The scripted fake model and the client around it: queues, handlers, history, cache, usage."""

from __future__ import annotations

import asyncio

import pytest

from arcmemo.llm.backend import TransientError
from arcmemo.llm.client import LLM, LLMError, LLMSettings, Usage
from arcmemo.llm.fake import FakeModel

MSG = [{"role": "user", "content": "hello"}]


def test_queue_is_fifo_per_step_and_history_recorded(fake_model, fake_llm):
    fake_model.queue("solve", "first", "second")
    fake_model.queue("caption", "a caption")
    assert fake_llm.chat(MSG, role="solver", step="solve").text == "first"
    assert fake_llm.chat(MSG, role="aux", step="caption").text == "a caption"
    assert fake_llm.chat(MSG, role="solver", step="solve", sample=1).text == "second"
    assert [(c.step, c.role, c.reply, c.sample) for c in fake_model.calls] == [
        ("solve", "solver", "first", 0), ("caption", "aux", "a caption", 0), ("solve", "solver", "second", 1)]
    assert fake_model.calls[0].messages == MSG
    assert fake_model.pending() == 0


def test_handler_computes_replies_after_queue_is_empty(fake_model, fake_llm):
    fake_model.queue("select_ps", "queued")
    fake_model.on("select_ps", lambda messages: "computed:" + messages[-1]["content"])
    assert fake_llm.chat(MSG, role="select", step="select_ps").text == "queued"
    assert fake_llm.chat(MSG, role="select", step="select_ps", sample=1).text == "computed:hello"


def test_wildcard_handler_answers_any_step(fake_model, fake_llm):
    fake_model.on("*", lambda messages: "any")
    assert fake_llm.chat(MSG, role="aux", step="pseudocode").text == "any"


def test_unscripted_step_raises_llm_error_and_is_logged(fake_model, fake_llm):
    with pytest.raises(LLMError, match="nothing scripted for step 'oe_lessons'"):
        fake_llm.chat(MSG, role="aux", step="oe_lessons")
    assert fake_llm.usage().errors == 1
    assert fake_llm._log.list()[0].error.startswith("fake model: nothing scripted")


def test_scripted_exception_is_raised(fake_model, fake_llm):
    fake_model.queue("solve", LLMError("boom"))
    with pytest.raises(LLMError, match="boom"):
        fake_llm.chat(MSG, role="solver", step="solve")


def test_transient_error_is_retried(fake_model, fake_llm):
    fake_model.queue("solve", TransientError("HTTP 429"), "ok")
    completion = fake_llm.chat(MSG, role="solver", step="solve")
    assert completion.text == "ok"
    assert fake_llm._log.get(completion.call_id).attempts == 2


def test_repeat_request_is_cached_but_other_sample_is_not(fake_model, fake_llm):
    fake_model.queue("solve", "one", "two")
    first = fake_llm.chat(MSG, role="solver", step="solve")
    again = fake_llm.chat(MSG, role="solver", step="solve")
    other = fake_llm.chat(MSG, role="solver", step="solve", sample=1)
    assert (first.text, again.text, other.text) == ("one", "one", "two")
    assert (first.cached, again.cached, other.cached) == (False, True, False)
    assert again.cost_usd == 0.0
    usage = fake_llm.usage()
    assert (usage.calls, usage.cache_hits) == (3, 1)
    assert usage.prompt_tokens == first.prompt_tokens + other.prompt_tokens
    assert len(fake_model.calls) == 2


def test_no_cache_per_call_bypasses_reads(fake_model, fake_llm):
    fake_model.queue("solve", "one", "two")
    assert fake_llm.chat(MSG, role="solver", step="solve").text == "one"
    assert fake_llm.chat(MSG, role="solver", step="solve", cache=False).text == "two"


def test_parallel_samples_through_run(fake_model, fake_llm):
    fake_model.on("solve", lambda messages: "x")

    async def samples():
        return await asyncio.gather(*(fake_llm.achat(MSG, role="solver", step="solve", sample=i)
                                      for i in range(6)))

    results = fake_llm.run(samples())
    assert [c.cached for c in results] == [False] * 6
    assert sorted(c.sample for c in fake_model.calls) == list(range(6))


def test_achat_awaited_from_another_loop(fake_model, fake_llm):
    fake_model.queue("solve", "from elsewhere")
    result = asyncio.run(fake_llm.achat(MSG, role="solver", step="solve"))
    assert result.text == "from elsewhere"


def test_none_params_are_dropped_and_unknown_params_rejected(fake_model, fake_llm):
    fake_model.queue("solve", "ok")
    fake_llm.chat(MSG, role="solver", step="solve", temperature=None, max_tokens=100)
    assert fake_model.calls[0].params == {"max_tokens": 100}
    with pytest.raises(TypeError, match="unknown parameter"):
        fake_llm.chat(MSG, role="solver", step="solve", temprature=0.5)


def test_bad_role_and_messages_are_programming_errors(fake_llm):
    with pytest.raises(ValueError, match="unknown model role"):
        fake_llm.chat(MSG, role="writer", step="solve")
    with pytest.raises(TypeError, match="messages"):
        fake_llm.chat("hello", role="solver", step="solve")


def test_usage_adds():
    total = sum([Usage(calls=1, prompt_tokens=3, cost_usd=0.5), Usage(calls=2, cache_hits=1)])
    assert total == Usage(calls=3, cache_hits=1, prompt_tokens=3, cost_usd=0.5)


def test_fake_is_not_a_product_default():
    settings = LLMSettings.resolve()
    assert "fake" not in (settings.solver_model, settings.aux_model, settings.select_model)


def test_run_from_closed_client_fails(fake_model):
    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake"))
    llm.close()
    with pytest.raises(LLMError, match="closed"):
        llm.chat(MSG, role="solver", step="solve")


def test_fake_model_object_can_be_used_standalone():
    fake = FakeModel().queue("solve", "r")
    assert fake.pending("solve") == 1


WRITER = """
import sys
from arcmemo.llm.log import CallLog
log = CallLog(sys.argv[1])
for i in range(40):
    log.record(run_id=sys.argv[2], task_id=None, role="solver", step="solve", sample=i, model="m",
               endpoint="e", key=f"{sys.argv[2]}-{i}", request={"i": i}, response_text="r")
"""


def test_log_is_safe_with_concurrent_writer_processes(tmp_path):
    import subprocess
    import sys

    from arcmemo.llm.log import CallLog

    path = tmp_path / "calls.db"
    CallLog(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"w{n}"]) for n in range(4)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    with CallLog(path) as log:
        rows = log.usage(group_by=("run_id",))
    assert {r["run_id"]: r["calls"] for r in rows} == {f"w{n}": 40 for n in range(4)}


def test_close_cancels_calls_in_flight_instead_of_hanging(fake_model):
    import concurrent.futures

    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake"))
    in_flight = asyncio.run_coroutine_threadsafe(asyncio.sleep(3600), llm._loop)  # a call that never ends
    llm.close()
    with pytest.raises(concurrent.futures.CancelledError):
        in_flight.result(timeout=5)


def test_usage_round_trips_through_dict():
    usage = Usage(calls=3, cache_hits=1, prompt_tokens=10, completion_tokens=4, cost_usd=0.25, errors=1)
    assert Usage.from_dict(usage.to_dict()) == usage
    assert Usage.from_dict(None) == Usage() and Usage.from_dict({"calls": 2, "extra": 1}).calls == 2


class _CountingBackend:
    """A backend that records how many calls it serves at once."""

    endpoint = "counting://"

    def __init__(self, max_concurrency=None):
        self.max_concurrency = max_concurrency
        self.active = self.peak = 0

    async def complete(self, request):
        from arcmemo.llm.backend import Reply

        self.active += 1
        self.peak = max(self.peak, self.active)
        await asyncio.sleep(0.02)
        self.active -= 1
        return Reply(text="ok", prompt_tokens=1, completion_tokens=1)


@pytest.mark.parametrize("backend_limit, expected_peak", [(None, 5), (2, 2)])
def test_concurrency_bound_and_backend_limit(backend_limit, expected_peak):
    from arcmemo.llm.backend import register_model, unregister_model

    backend = _CountingBackend(backend_limit)
    register_model("counting", backend)
    try:
        settings = LLMSettings(solver_model="counting", aux_model="counting", select_model="counting",
                               concurrency=5)
        with LLM(settings) as llm:
            async def many():
                return await asyncio.gather(*(llm.achat(MSG, role="solver", step="solve", sample=i)
                                              for i in range(20)))
            assert len(llm.run(many())) == 20
        assert backend.peak == expected_peak
    finally:
        unregister_model("counting")


def test_backoff_grows_exponentially_with_jitter(fake_model):
    import time

    fake_model.queue("solve", TransientError("a"), TransientError("b"), TransientError("c"), "ok")
    settings = LLMSettings(solver_model="fake", aux_model="fake", select_model="fake",
                           backoff_base_s=0.05, backoff_max_s=1.0, max_attempts=4)
    with LLM(settings) as llm:
        started = time.monotonic()
        assert llm.chat(MSG, role="solver", step="solve").text == "ok"
        waited = time.monotonic() - started
    # delays 0.05, 0.1, 0.2, each jittered to 50-100%
    assert 0.5 * 0.35 <= waited < 0.35 + 0.25


def test_attempts_are_bounded(fake_model):
    fake_model.queue("solve", *[TransientError("HTTP 503")] * 10)
    settings = LLMSettings(solver_model="fake", aux_model="fake", select_model="fake",
                           backoff_base_s=0.0, max_attempts=3)
    with LLM(settings) as llm:
        with pytest.raises(LLMError, match="gave up after 3 attempts") as info:
            llm.chat(MSG, role="solver", step="solve")
    assert info.value.transient and len(fake_model.calls) == 3
