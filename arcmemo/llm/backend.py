"""What a model backend is: the request it gets, the reply it gives, the errors it raises,
and the registry of named test doubles.

A backend answers one chat request; the client (client.py) does roles, retries,
concurrency, caching and accounting around it. A backend raises `TransientError` for
faults worth retrying (429, 5xx, timeouts, dropped connections, malformed bodies),
`EndpointFatal` when the endpoint cannot serve the run at all (401, 403, 404, no quota)
and `LLMError` for other permanent failures of one call (errors.py).

A backend may declare `traits` (catalog.ModelTraits), which then win over models.yaml for
the name it is registered under (test doubles declare theirs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from arcmemo.llm.errors import EndpointFatal, LLMError, TransientError


@dataclass
class CallRequest:
    model: str                      # the model name to request (aliases resolved)
    messages: list[dict[str, Any]]
    params: dict[str, Any]          # only the parameters actually set
    role: str
    step: str
    sample: int = 0
    task_id: str | None = None
    timeout_s: float | None = None  # this attempt's time limit (the client enforces it too)


@dataclass
class Reply:
    text: str
    reasoning: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_prompt_tokens: int = 0   # the provider's own prompt cache (cheaper input)
    choices: list[str] = field(default_factory=list)  # all choices when n > 1
    finish_reason: str | None = None  # why the (first) answer ended: "stop", "length" (cut), ... (None: unsaid)


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


__all__ = ["Backend", "CallRequest", "Reply", "register_model", "unregister_model", "registered_model",
           "registered_models", "LLMError", "EndpointFatal", "TransientError"]
