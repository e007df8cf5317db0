"""What a model backend is: the request it gets, the reply it gives, the errors it raises,
and the registry of named test doubles.

A backend answers one chat request; the client (client.py) does roles, retries,
concurrency, caching and accounting around it. A backend raises `TransientError` for
faults worth retrying (429, 5xx, timeouts, dropped connections, malformed bodies) and
`LLMError` for permanent ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


class LLMError(RuntimeError):
    """A model call failed for good: a permanent error, or a transient one after all retries.

    Callers catch it and record the failure; it never means the run should stop.
    """

    def __init__(self, message: str, *, status: int | None = None, transient: bool = False,
                 model: str | None = None, step: str | None = None, attempts: int = 0):
        super().__init__(message)
        self.status = status
        self.transient = transient
        self.model = model
        self.step = step
        self.attempts = attempts


class TransientError(Exception):
    """A fault worth retrying; `retry_after` (seconds) is the server's Retry-After, if any."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


@dataclass
class CallRequest:
    model: str                      # the model name to request (aliases resolved)
    messages: list[dict[str, Any]]
    params: dict[str, Any]          # only the parameters actually set
    role: str
    step: str
    sample: int = 0
    task_id: str | None = None


@dataclass
class Reply:
    text: str
    reasoning: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_prompt_tokens: int = 0   # the provider's own prompt cache (cheaper input)
    choices: list[str] = field(default_factory=list)  # all choices when n > 1


@runtime_checkable
class Backend(Protocol):
    endpoint: str                   # identity of the endpoint: part of the cache key

    async def complete(self, request: CallRequest) -> Reply: ...


_REGISTRY: dict[str, Backend] = {}


def register_model(name: str, backend: Backend) -> None:
    """Make `name` a model served by `backend` (test doubles; replaces any earlier one)."""
    if not hasattr(backend, "complete"):
        raise TypeError(f"register_model({name!r}): backend has no complete() method")
    _REGISTRY[name] = backend


def unregister_model(name: str) -> None:
    _REGISTRY.pop(name, None)


def registered_model(name: str) -> Backend | None:
    return _REGISTRY.get(name)


def registered_models() -> dict[str, Backend]:
    return dict(_REGISTRY)
