"""The one model client: a call's path from the caller to a backend and back.

    with LLM(LLMSettings.resolve()) as llm:
        completion = llm.chat(messages, role="solver", step="solve", task_id=task.id)

`LLM` owns an event loop in a background thread (loop.py): `achat` runs there under a
semaphore of `concurrency`; `chat` and `run(coro)` block the calling thread, so
synchronous code can still fan out samples in parallel:

    async def samples():
        return await asyncio.gather(*(llm.achat(msgs, role="solver", step="solve", sample=i)
                                      for i in range(4)))
    completions = llm.run(samples())

One call: the role's model is routed (routing.py); messages and parameters are checked
and put in the form the model takes (params.py, from its models.yaml traits); the call
log (log.py) answers it when the same request, step, sample index and draw were answered
before (unless cache=False; vary `sample` for independent answers, `draw` for a repeat of a
whole run: run/repeats.py); otherwise the backend
is asked, transient faults retried within the call's time budget (retry.py); the call is
logged and its usage counted (usage.py).

Endpoint trouble (errors.py): an `EndpointFatal` (401, 403, 404, unknown model, ...) makes
every later call raise it at once, without network (`LLM.fatal`); an `EndpointUnavailable`
means transient faults outlasted the budget. Solvers swallow LLMError in their retry
loops, so the run layer sees each task's calls through a meter that keeps the first of
either (run/stages/metered.py).
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import time
import weakref
from collections.abc import Awaitable
from dataclasses import replace
from typing import Any, TypeVar

from arcmemo.core.estimate import estimate_tokens
from arcmemo.core.text import utf8_safe
from arcmemo.llm.backend import Backend, CallRequest, Reply
from arcmemo.llm.catalog import ROLES, Catalog, ModelTraits, load_catalog
from arcmemo.llm.errors import EndpointFatal, EndpointUnavailable, LLMError, TransientError
from arcmemo.llm.log import CallLog, cache_key
from arcmemo.llm.loop import LoopThread
from arcmemo.llm.params import PARAMS, check_messages, message_text, model_params
from arcmemo.llm.retry import RetryPolicy, with_retries
from arcmemo.llm.routing import LOCAL_MODELS, Router
from arcmemo.llm.settings import LLMSettings
from arcmemo.llm.usage import Completion, Usage, UsageCounter

T = TypeVar("T")
# A prompt whose estimate (an overcount for the tokenizers measured) times this fits in the
# context is sent without counting its tokens exactly.
CHECK_MARGIN = 1.25

__all__ = ["LLM", "LLMSettings", "Completion", "Usage", "LLMError", "EndpointFatal",
           "EndpointUnavailable", "ROLES", "LOCAL_MODELS", "PARAMS"]


class LLM:
    def __init__(self, settings: LLMSettings | None = None, run_id: str | None = None):
        self.settings = settings or LLMSettings.resolve()
        self.run_id = run_id
        self.catalog: Catalog = load_catalog()
        self.router = Router(self.settings, self.catalog)
        for role in ROLES:          # fail early on a bad model name, not mid-run
            self.router.route(self.settings.model(role))
        self._usage = UsageCounter()
        self._fatal: EndpointFatal | None = None
        self._fatal_lock = threading.Lock()
        self._closed = False
        self._log = CallLog(self.settings.log_path)
        self._thread = LoopThread()
        self._loop = self._thread.loop
        self._semaphore = asyncio.Semaphore(self.settings.concurrency)
        _live.add(self)

    # -- what the models are -----------------------------------------------------------
    def model_for(self, role: str) -> str:
        """The model name requested for `role` (aliases resolved)."""
        return self.router.route(self.settings.model(role)).model

    def traits(self, role: str) -> ModelTraits:
        """What the model for `role` takes: context, vision, reasoning, tokenizer (models.yaml)."""
        return self.router.traits(self.settings.model(role))

    @property
    def call_log(self) -> CallLog:
        """The log this client records every call in (the run layer reads it back)."""
        return self._log

    def context_window(self, role: str) -> int | None:
        """Tokens of context the model for `role` has (None only for a test double that
        declares none)."""
        return self.traits(role).context

    def count_tokens(self, text: str, role: str) -> int:
        """Tokens `text` takes for the model of `role` (its tokenizer when it can be had, else
        a digit-aware estimate: tokens.py)."""
        from arcmemo.llm.tokens import count_tokens

        return count_tokens(text, self.model_for(role), traits=self.traits(role))

    def check_params(self, role: str, **params: Any) -> dict[str, Any]:
        """The parameters as they would be sent to the model of `role`; UnsupportedParameter
        (before any call) when it does not take one of them. For start-up checks."""
        return model_params(params, self.traits(role), model=self.model_for(role),
                            defaults=self.settings.call_defaults(role))

    # -- calls -------------------------------------------------------------------------
    async def achat(self, messages: list[dict[str, Any]], *, role: str, step: str, sample: int = 0,
                    task_id: str | None = None, cache: bool | None = None, draw: int = 0,
                    **params: Any) -> Completion:
        """One chat completion. Raises LLMError (EndpointFatal, EndpointUnavailable: errors.py).
        `draw` (a run's repeat, 0: the first) joins the cache key, so a repeat asks afresh."""
        if self._closed:
            raise LLMError("this LLM client is closed")
        return await self._thread.submit(self._achat(messages, role=role, step=step, sample=sample,
                                                   task_id=task_id, cache=cache, draw=draw, params=params))

    def chat(self, messages: list[dict[str, Any]], *, role: str, step: str, sample: int = 0,
             task_id: str | None = None, cache: bool | None = None, draw: int = 0, **params: Any) -> Completion:
        """Blocking `achat`."""
        return self.run(self._achat(messages, role=role, step=step, sample=sample, task_id=task_id,
                                    cache=cache, draw=draw, params=params))

    def run(self, coro: Awaitable[T]) -> T:
        """Run a coroutine on the LLM's event loop and wait for its result."""
        if self._closed:
            if hasattr(coro, "close"):
                coro.close()
            raise LLMError("this LLM client is closed")
        return self._thread.run(coro)

    # -- accounts and the fatal fault --------------------------------------------------
    def usage(self) -> Usage:
        return self._usage.total()

    @property
    def fatal(self) -> EndpointFatal | None:
        """The EndpointFatal that stopped this client, if one happened: every call raises it."""
        return self._fatal

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._thread.close(self.router.aclose)
        self._log.close()
        _live.discard(self)

    def __enter__(self) -> LLM:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- one call ----------------------------------------------------------------------
    async def _achat(self, messages, *, role, step, sample, task_id, cache, draw, params) -> Completion:
        if role not in ROLES:
            raise ValueError(f"unknown model role {role!r}; roles are {', '.join(ROLES)}")
        if not isinstance(step, str) or not step:
            raise ValueError("achat: step must name the prompt step (e.g. 'solve')")
        try:
            if self._fatal is not None:
                raise self._fatal.again(step=step)
            return await self._call(messages, role=role, step=step, sample=sample, task_id=task_id,
                                    cache=cache, draw=draw, params=params)
        except EndpointFatal as exc:
            with self._fatal_lock:
                if self._fatal is None:
                    self._fatal = exc
            raise

    async def _call(self, messages, *, role, step, sample, task_id, cache, draw, params) -> Completion:
        name = self.settings.model(role)
        route = self.router.route(name)
        traits = self.router.traits(name)
        messages = check_messages(messages, traits, model=route.model)
        params = model_params(params, traits, model=route.model, defaults=self.settings.call_defaults(role))
        if route.model in LOCAL_MODELS and not {"max_tokens", "max_completion_tokens"} & set(params):
            params["max_tokens"] = self.settings.local_max_tokens
        try:
            backend = await route.get()
        except LLMError as exc:
            self._usage.add(Usage(calls=1, errors=1))
            exc.model, exc.step = exc.model or route.model, step
            raise
        request = {"model": route.model, "endpoint": backend.endpoint, "messages": messages,
                   "params": params, **({"draw": int(draw)} if draw else {})}   # draw 0: keyed as always
        # The step joins the key: two steps never share an answer even if their prompts match.
        key = cache_key({**request, "step": step}, sample)
        common = dict(run_id=self.run_id, task_id=task_id, role=role, step=step, sample=sample,
                      model=route.model, endpoint=backend.endpoint, key=key, request=request)
        if self.settings.cache if cache is None else cache:
            hit = self._log.lookup(key)
            if hit is not None:
                return self._cached(hit, common, route.model)
        await self._check_fits(messages, params, traits, route.model, step)
        call = CallRequest(model=route.model, messages=messages, params=params, role=role, step=step,
                           sample=sample, task_id=task_id)
        started = time.monotonic()
        try:
            async with self._semaphore, self.router.limit(backend):
                reply, attempts = await with_retries(lambda limit: _attempt(backend, call, limit),
                                                     self._policy(backend), model=route.model, step=step)
        except LLMError as exc:
            exc.model, exc.step = exc.model or route.model, step
            self._log.record(**common, latency_s=time.monotonic() - started, attempts=exc.attempts,
                             error=str(exc), error_kind=_kind(exc))
            self._usage.add(Usage(calls=1, errors=1))
            raise
        latency = time.monotonic() - started
        cost = self.catalog.cost(route.model, reply.prompt_tokens, reply.completion_tokens,
                                 reply.cached_prompt_tokens)
        text = utf8_safe(reply.text)
        reasoning = None if reply.reasoning is None else utf8_safe(reply.reasoning)
        choices = [utf8_safe(c) for c in reply.choices] or [text]
        call_id = self._log.record(**common, response_text=text, reasoning=reasoning, choices=choices,
                                   prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                                   reasoning_tokens=reply.reasoning_tokens, latency_s=latency,
                                   cost_usd=cost, attempts=attempts, finish_reason=reply.finish_reason)
        completion = Completion(text, reasoning, route.model, reply.prompt_tokens, reply.completion_tokens,
                                reply.reasoning_tokens, cost, False, latency, call_id, tuple(choices),
                                reply.finish_reason)
        self._usage.add(Usage.of(completion))
        return completion

    async def _check_fits(self, messages: list[dict[str, Any]], params: dict[str, Any], traits: ModelTraits,
                          model: str, step: str) -> None:
        """LLMError, before anything is sent, when the prompt and the room asked for the answer
        (max_tokens) are more than the model's context: OpenAI refuses such a request, and
        llama.cpp reads the prompt for minutes, then runs out of room mid-answer. Counted with
        the model's tokenizer, and only when the estimate (which counts more than any tokenizer
        does) says it might not fit, so a request well inside costs nothing."""
        if not traits.context:
            return
        answer = int(params.get("max_tokens") or params.get("max_completion_tokens") or 0)
        text = message_text(messages)
        if estimate_tokens(text) * CHECK_MARGIN + answer <= traits.context:
            return
        from arcmemo.llm.tokens import count_tokens, tokenizer_for

        if not tokenizer_for(model, traits).exact:
            return                        # an estimate may count more than the model would: let it try
        tokens = await asyncio.to_thread(count_tokens, text, model, traits=traits)
        if tokens + answer > traits.context:
            self._usage.add(Usage(calls=1, errors=1))
            room = f" and the answer may take {answer:,}" if answer else ""
            raise LLMError(f"the prompt takes {tokens:,} tokens{room}, more than the {traits.context:,}-token "
                           f"context of {model}: not sent", model=model, step=step)

    def _cached(self, hit, common: dict[str, Any], model: str) -> Completion:
        call_id = self._log.record(**common, response_text=hit.response_text, reasoning=hit.reasoning,
                                   choices=hit.choices, prompt_tokens=hit.prompt_tokens,
                                   completion_tokens=hit.completion_tokens,
                                   reasoning_tokens=hit.reasoning_tokens, cached=True, attempts=0,
                                   finish_reason=hit.finish_reason)
        self._usage.add(Usage(calls=1, cache_hits=1))
        return Completion(hit.response_text or "", hit.reasoning, model, hit.prompt_tokens,
                          hit.completion_tokens, hit.reasoning_tokens, 0.0, True, 0.0, call_id,
                          tuple(hit.choices), hit.finish_reason)

    def _policy(self, backend: Backend) -> RetryPolicy:
        s = self.settings
        timeout = float(getattr(backend, "timeout_s", None) or s.timeout_s)
        budget = float(getattr(backend, "call_budget_s", None) or s.call_budget_s)
        return RetryPolicy(max_attempts=s.max_attempts, budget_s=budget,
                           timeout_s=timeout, backoff_base_s=s.backoff_base_s,
                           backoff_max_s=s.backoff_max_s, max_retry_after_s=s.max_retry_after_s)


async def _attempt(backend: Backend, call: CallRequest, timeout_s: float) -> Reply:
    reply = await backend.complete(replace(call, timeout_s=timeout_s))
    if not isinstance(reply, Reply):
        raise TransientError(f"backend for {call.model!r} returned {type(reply).__name__}, not a Reply")
    return reply


def _kind(exc: LLMError) -> str:
    if isinstance(exc, EndpointFatal):
        return "fatal"
    return "unavailable" if isinstance(exc, EndpointUnavailable) else "error"


_live: weakref.WeakSet[LLM] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for llm in list(_live):
        try:
            llm.close()
        except Exception:  # best effort at interpreter exit
            pass
