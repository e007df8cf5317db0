"""The one model client: roles, retries, bounded concurrency, caching and usage accounting.

`LLM` owns an asyncio event loop in a background thread. `achat` runs there under a
semaphore of `concurrency`; `chat` and `run(coro)` block the calling thread until the
result is ready, so synchronous code can still fan out samples in parallel:

    async def samples():
        return await asyncio.gather(*(llm.achat(msgs, role="solver", step="solve", sample=i)
                                      for i in range(4)))
    completions = llm.run(samples())

Model names resolve through models.yaml aliases. Registered test doubles come first,
then `local`/`local-small` (the embedded server, local.py), then any OpenAI-compatible
endpoint. Every call is logged in the call log (log.py) and served from it when the same
request, step and sample index were answered before (unless cache=False). Vary `sample`
to get independent answers to one prompt.

Retries: 429, 408/409, 5xx, timeouts, dropped connections and malformed bodies are retried
up to `max_attempts` in all, after `backoff_base_s * 2**(i-1)` seconds (capped at
`backoff_max_s`, jittered to 50-100%) or exactly the server's Retry-After when it sends
one (a Retry-After above `max_retry_after_s` fails the call at once). Other HTTP errors
(400, 401, 403, 404, ...) raise LLMError at once with the server's message.

Usage counts every call; tokens and cost count only calls that reached a model (cache
hits cost 0 and are counted in `cache_hits`). A Completion served from the cache still
carries the token counts of the original answer.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import random
import threading
import time
import weakref
from collections.abc import Awaitable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

from arcmemo.core.settings import ConfigError, as_number, load_config_file, setting
from arcmemo.llm.backend import Backend, CallRequest, LLMError, Reply, TransientError, registered_model
from arcmemo.llm.catalog import ROLES, Catalog, load_catalog
from arcmemo.llm.log import CallLog, cache_key

T = TypeVar("T")

LOCAL_MODELS = ("local", "local-small")
PARAMS = ("temperature", "top_p", "max_tokens", "max_completion_tokens", "reasoning_effort",
          "seed", "n", "stop", "response_format", "extra_body")

__all__ = ["LLM", "LLMSettings", "Completion", "Usage", "LLMError", "ROLES"]


@dataclass
class Usage:
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0
    errors: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(*(a + b for a, b in zip(astuple_(self), astuple_(other))))

    def __radd__(self, other: Any) -> Usage:
        if other == 0:              # sum(usages) starts from 0
            return self
        return self.__add__(other)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["cost_usd"] = round(self.cost_usd, 6)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Usage:
        """Inverse of to_dict (unknown keys ignored, missing ones 0): for records read back."""
        data = data or {}
        return cls(**{f.name: data.get(f.name, 0) or 0 for f in fields(cls)})

    @classmethod
    def of(cls, completion: Completion) -> Usage:
        """The usage one completion adds (cache hits: a counted call, no tokens, no cost)."""
        if completion.cached:
            return cls(calls=1, cache_hits=1)
        return cls(calls=1, prompt_tokens=completion.prompt_tokens,
                   completion_tokens=completion.completion_tokens,
                   reasoning_tokens=completion.reasoning_tokens, cost_usd=completion.cost_usd)


def astuple_(usage: Usage) -> tuple:
    return tuple(getattr(usage, f.name) for f in fields(usage))


@dataclass
class Completion:
    text: str
    reasoning: str | None
    model: str
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    cost_usd: float
    cached: bool
    latency_s: float
    call_id: int
    choices: tuple[str, ...] = ()   # every choice when n > 1 (choices[0] == text)

    @property
    def usage(self) -> Usage:
        return Usage.of(self)


def _as_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"setting {name}: expected true/false, got {value!r}")


@dataclass
class LLMSettings:
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    solver_model: str = "local"
    aux_model: str = "local"
    select_model: str = "local"
    concurrency: int = 8
    cache: bool = True
    timeout_s: float = 600.0         # per HTTP request
    max_attempts: int = 6            # per call, first try included
    backoff_base_s: float = 1.0      # delay before retry i is base * 2**(i-1), jittered, capped
    backoff_max_s: float = 60.0
    max_retry_after_s: float = 300.0  # a longer Retry-After fails the call instead of stalling
    log_path: str | None = None      # None: $ARCMEMO_LOG_DB or $ARCMEMO_HOME/calls.db

    @classmethod
    def resolve(cls, base_url=None, api_key=None, solver_model=None, aux_model=None,
                select_model=None, concurrency=None, cache=None, **more) -> LLMSettings:
        """Each setting: flag (argument) > env var > config.yaml > default.

        Endpoint: OPENAI_BASE_URL / OPENAI_API_KEY (also ARCMEMO_BASE_URL, config `base_url`).
        Models: ARCMEMO_<ROLE>_MODEL / config `<role>_model`; the default is `local` unless
        an endpoint is configured, then the role's default in models.yaml.
        `more` takes the other fields (timeout_s, max_attempts, backoff_base_s, ...).
        """
        config = load_config_file()
        base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or os.environ.get("ARCMEMO_BASE_URL")
                    or config.get("base_url") or None)
        api_key = api_key or os.environ.get("OPENAI_API_KEY") or config.get("api_key") or None
        catalog = load_catalog()
        flags = {"solver": solver_model, "aux": aux_model, "select": select_model}
        models = {}
        for role in ROLES:
            default = catalog.defaults.get(role, "local") if (base_url or api_key) else "local"
            models[role] = str(setting(f"{role}_model", flags[role], default, config=config))
        values = dict(
            concurrency=as_number(setting("concurrency", concurrency, 8, config=config),
                                  "concurrency", int, 1),
            cache=_as_bool(setting("cache", cache, True, config=config), "cache"),
        )
        for name, kind, minimum in (("timeout_s", float, 0.001), ("max_attempts", int, 1),
                                    ("backoff_base_s", float, 0.0), ("backoff_max_s", float, 0.0),
                                    ("max_retry_after_s", float, 0.0)):
            value = setting(name, more.pop(name, None), None, config=config)
            if value is not None:
                values[name] = as_number(value, name, kind, minimum)
        log_path = more.pop("log_path", None)
        if more:
            raise TypeError(f"LLMSettings.resolve: unknown settings {sorted(more)}")
        return cls(base_url=base_url, api_key=api_key, solver_model=models["solver"],
                   aux_model=models["aux"], select_model=models["select"], log_path=log_path,
                   **values)

    def model(self, role: str) -> str:
        if role not in ROLES:
            raise ValueError(f"unknown model role {role!r}; roles are {', '.join(ROLES)}")
        return getattr(self, f"{role}_model")

    def to_dict(self) -> dict[str, Any]:
        """For run configs: everything but the API key."""
        data = asdict(self)
        data["api_key"] = "set" if self.api_key else None
        return data


class _Route:
    """Where calls for one configured model name go."""

    def __init__(self, model: str, backend: Backend | None, factory=None):
        self.model = model
        self.backend = backend
        self.factory = factory      # async () -> Backend, built lazily on the loop
        self.lock = asyncio.Lock()

    async def get(self) -> Backend:
        if self.backend is None:
            async with self.lock:
                if self.backend is None:
                    self.backend = await self.factory()
        return self.backend


class LLM:
    def __init__(self, settings: LLMSettings | None = None, run_id: str | None = None):
        self.settings = settings or LLMSettings.resolve()
        self.run_id = run_id
        self.catalog: Catalog = load_catalog()
        self._usage = Usage()
        self._usage_lock = threading.Lock()
        self._routes: dict[str, _Route] = {}
        self._openai_backends: dict[tuple, Backend] = {}
        self._backend_semaphores: dict[int, asyncio.Semaphore] = {}
        self._closed = False
        for role in ROLES:          # fail early on a bad model name, not mid-run
            self._route(self.settings.model(role))
        self._log = CallLog(self.settings.log_path)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="arcmemo-llm",
                                        daemon=True)
        self._thread.start()
        self._semaphore = asyncio.Semaphore(self.settings.concurrency)
        _live.add(self)

    # -- public API --------------------------------------------------------------------
    def model_for(self, role: str) -> str:
        """The model name requested for `role` (aliases resolved)."""
        return self._route(self.settings.model(role)).model

    @property
    def call_log(self) -> CallLog:
        """The log this client records every call in (the run layer reads it back)."""
        return self._log

    def context_window(self, role: str) -> int | None:
        """Tokens of context the model for `role` has, when known (the embedded models'
        `local_n_ctx`); None for an endpoint's model."""
        if self.model_for(role) not in LOCAL_MODELS:
            return None
        from arcmemo.llm.local import server_settings

        return server_settings()["n_ctx"]

    async def achat(self, messages: list[dict[str, Any]], *, role: str, step: str, sample: int = 0,
                    task_id: str | None = None, cache: bool | None = None, **params: Any) -> Completion:
        """One chat completion. Raises LLMError on a permanent error or after all retries."""
        if self._closed:
            raise LLMError("this LLM client is closed")
        coro = self._achat(messages, role=role, step=step, sample=sample, task_id=task_id,
                           cache=cache, params=params)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            return await coro
        # Awaited from another event loop: run on ours, await the result there.
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def chat(self, messages: list[dict[str, Any]], *, role: str, step: str, sample: int = 0,
             task_id: str | None = None, cache: bool | None = None, **params: Any) -> Completion:
        """Blocking `achat`."""
        return self.run(self._achat(messages, role=role, step=step, sample=sample, task_id=task_id,
                                    cache=cache, params=params))

    def run(self, coro: Awaitable[T]) -> T:
        """Run a coroutine on the LLM's event loop and wait for its result."""
        if self._closed:
            if asyncio.iscoroutine(coro):
                coro.close()
            raise LLMError("this LLM client is closed")
        if threading.current_thread() is self._thread:
            if asyncio.iscoroutine(coro):
                coro.close()
            raise RuntimeError("LLM.run() called from the LLM's own event loop; await the coroutine instead")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def usage(self) -> Usage:
        with self._usage_lock:
            return Usage(*astuple_(self._usage))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._loop.is_running():
            async def shutdown():
                # calls still in flight are cancelled: their waiters get CancelledError, not a hang
                others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
                for task in others:
                    task.cancel()
                await asyncio.gather(*others, return_exceptions=True)
                for backend in self._openai_backends.values():
                    aclose = getattr(backend, "aclose", None)
                    if aclose is not None:
                        try:
                            await aclose()
                        except Exception:  # closing sockets must not fail a run
                            pass
            try:
                asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(timeout=5)
            except Exception:
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
        if not self._loop.is_running():
            self._loop.close()
        self._log.close()
        _live.discard(self)

    def __enter__(self) -> LLM:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- routing -----------------------------------------------------------------------
    def _route(self, name: str) -> _Route:
        route = self._routes.get(name)
        if route is not None:
            return route
        backend = registered_model(name)
        if backend is not None:
            route = _Route(name, backend)
        else:
            target = self.catalog.resolve(name)
            backend = registered_model(target.model)
            if backend is not None:
                route = _Route(target.model, backend)
            elif target.model in LOCAL_MODELS:
                route = _Route(target.model, None, lambda m=target.model: self._local_backend(m))
            else:
                base_url = target.base_url or self.settings.base_url
                if not base_url and not self.settings.api_key:
                    raise LLMError(
                        f"model {name!r} needs an endpoint: set OPENAI_API_KEY (and OPENAI_BASE_URL "
                        "for a non-OpenAI server) or --base-url; or use the offline model 'local'")
                route = _Route(target.model, None,
                               lambda u=base_url: self._openai_backend(u, self.settings.api_key))
        self._routes[name] = route
        return route

    async def _openai_backend(self, base_url: str | None, api_key: str | None,
                              endpoint: str | None = None, timeout_s: float | None = None) -> Backend:
        from arcmemo.llm.openai_backend import OpenAIBackend

        key = (base_url, endpoint)
        if key not in self._openai_backends:
            self._openai_backends[key] = OpenAIBackend(base_url, api_key,
                                                       timeout_s=timeout_s or self.settings.timeout_s,
                                                       endpoint=endpoint)
        return self._openai_backends[key]

    async def _local_backend(self, model: str) -> Backend:
        from arcmemo.llm import local

        try:
            server = await asyncio.to_thread(local.ensure_server, model)
        except local.LocalModelError as exc:
            raise LLMError(str(exc), model=model) from None
        # A CPU model is slow: requests beyond its slots would only queue inside llama.cpp and
        # time out there, so they wait here instead, and each one gets a long timeout.
        backend = await self._openai_backend(server.base_url, "local", endpoint=server.identity,
                                             timeout_s=max(self.settings.timeout_s, 3600.0))
        backend.max_concurrency = server.slots
        return backend

    # -- one call ----------------------------------------------------------------------
    async def _achat(self, messages, *, role, step, sample, task_id, cache, params) -> Completion:
        if role not in ROLES:
            raise ValueError(f"unknown model role {role!r}; roles are {', '.join(ROLES)}")
        if not isinstance(step, str) or not step:
            raise ValueError("achat: step must name the prompt step (e.g. 'solve')")
        _check_messages(messages)
        unknown = set(params) - set(PARAMS)
        if unknown:
            raise TypeError(f"achat: unknown parameter(s) {sorted(unknown)}; known: {', '.join(PARAMS)}")
        params = {k: v for k, v in params.items() if v is not None}
        route = self._route(self.settings.model(role))
        if route.model in LOCAL_MODELS and not {"max_tokens", "max_completion_tokens"} & set(params):
            from arcmemo.llm.local import completion_limit

            params["max_tokens"] = completion_limit()
        try:
            backend = await route.get()
        except LLMError as exc:
            self._count(Usage(calls=1, errors=1))
            exc.model, exc.step = exc.model or route.model, step
            raise
        request = {"model": route.model, "endpoint": backend.endpoint, "messages": messages,
                   "params": params}
        # The step joins the key: two steps never share an answer even if their prompts match.
        key = cache_key({**request, "step": step}, sample)
        common = dict(run_id=self.run_id, task_id=task_id, role=role, step=step, sample=sample,
                      model=route.model, endpoint=backend.endpoint, key=key, request=request)
        use_cache = self.settings.cache if cache is None else cache
        if use_cache:
            hit = self._log.lookup(key)
            if hit is not None:
                call_id = self._log.record(**common, response_text=hit.response_text,
                                           reasoning=hit.reasoning, choices=hit.choices,
                                           prompt_tokens=hit.prompt_tokens,
                                           completion_tokens=hit.completion_tokens,
                                           reasoning_tokens=hit.reasoning_tokens, cached=True,
                                           attempts=0)
                self._count(Usage(calls=1, cache_hits=1))
                return Completion(hit.response_text or "", hit.reasoning, route.model, hit.prompt_tokens,
                                  hit.completion_tokens, hit.reasoning_tokens, 0.0, True, 0.0,
                                  call_id, tuple(hit.choices))
        call = CallRequest(model=route.model, messages=messages, params=params, role=role, step=step,
                           sample=sample, task_id=task_id)
        started = time.monotonic()
        try:
            reply, attempts = await self._with_retries(backend, call)
        except LLMError as exc:
            self._log.record(**common, latency_s=time.monotonic() - started, attempts=exc.attempts,
                             error=str(exc))
            self._count(Usage(calls=1, errors=1))
            raise
        latency = time.monotonic() - started
        cost = self.catalog.cost(route.model, reply.prompt_tokens, reply.completion_tokens,
                                 reply.cached_prompt_tokens)
        choices = reply.choices or [reply.text]
        call_id = self._log.record(**common, response_text=reply.text, reasoning=reply.reasoning,
                                   choices=choices, prompt_tokens=reply.prompt_tokens,
                                   completion_tokens=reply.completion_tokens,
                                   reasoning_tokens=reply.reasoning_tokens, latency_s=latency,
                                   cost_usd=cost, attempts=attempts)
        completion = Completion(reply.text, reply.reasoning, route.model, reply.prompt_tokens,
                                reply.completion_tokens, reply.reasoning_tokens, cost, False, latency,
                                call_id, tuple(choices))
        self._count(Usage.of(completion))
        return completion

    async def _with_retries(self, backend: Backend, call: CallRequest) -> tuple[Reply, int]:
        s = self.settings
        last = None
        for attempt in range(1, s.max_attempts + 1):
            try:
                async with self._semaphore, self._backend_semaphore(backend):
                    reply = await backend.complete(call)
                if not isinstance(reply, Reply):
                    raise TransientError(f"backend for {call.model!r} returned {type(reply).__name__}, "
                                         "not a Reply")
                return reply, attempt
            except LLMError as exc:
                exc.model, exc.step, exc.attempts = exc.model or call.model, call.step, attempt
                raise
            except TransientError as exc:
                last = exc
                if attempt == s.max_attempts:
                    break
                if exc.retry_after is not None:
                    if exc.retry_after > s.max_retry_after_s:
                        raise LLMError(f"{exc} (Retry-After {exc.retry_after:.0f}s exceeds the "
                                       f"{s.max_retry_after_s:.0f}s limit)", status=exc.status,
                                       transient=True, model=call.model, step=call.step,
                                       attempts=attempt) from None
                    delay = exc.retry_after
                else:
                    delay = min(s.backoff_max_s, s.backoff_base_s * 2 ** (attempt - 1))
                    delay *= random.uniform(0.5, 1.0)       # jitter: spread synchronized retries
                await asyncio.sleep(delay)
        raise LLMError(f"{last} (gave up after {s.max_attempts} attempts)", status=last.status,
                       transient=True, model=call.model, step=call.step, attempts=s.max_attempts)

    def _backend_semaphore(self, backend: Backend) -> asyncio.Semaphore | contextlib.AbstractAsyncContextManager:
        """A backend's own bound (`max_concurrency`), if it has one."""
        limit = getattr(backend, "max_concurrency", None)
        if not limit:
            return contextlib.nullcontext()
        key = id(backend)
        if key not in self._backend_semaphores:
            self._backend_semaphores[key] = asyncio.Semaphore(int(limit))
        return self._backend_semaphores[key]

    def _count(self, usage: Usage) -> None:
        with self._usage_lock:
            self._usage = self._usage + usage


def _check_messages(messages: Any) -> None:
    if not isinstance(messages, list) or not messages:
        raise TypeError("achat: messages must be a non-empty list of {'role', 'content'} dicts")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or "role" not in message or "content" not in message:
            raise TypeError(f"achat: messages[{i}] must be a dict with 'role' and 'content'")


_live: weakref.WeakSet[LLM] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for llm in list(_live):
        try:
            llm.close()
        except Exception:  # best effort at interpreter exit
            pass
