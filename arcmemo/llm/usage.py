"""What a call returns (`Completion`) and what calls cost (`Usage`, `UsageCounter`).

Usage counts every call; tokens and cost count only calls that reached a model (cache
hits cost 0 and are counted in `cache_hits`). A Completion served from the cache still
carries the token counts and the finish reason of the original answer: `cut` says the
answer ended at the completion token limit (finish reason "length"), not where the model
stopped.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, fields
from typing import Any


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
    finish_reason: str | None = None  # as the endpoint said it: "stop", "length", ... (None: it did not say)

    @property
    def usage(self) -> Usage:
        return Usage.of(self)

    @property
    def cut(self) -> bool:
        """The answer ended at the token limit (max_tokens), not where the model stopped."""
        return is_cut(self.finish_reason)


CUT_REASON = "length"   # the finish reason of an answer cut at the token limit (OpenAI, vLLM, llama.cpp)


def is_cut(finish_reason: str | None) -> bool:
    return finish_reason == CUT_REASON


class UsageCounter:
    """Running totals shared by the calls of one client (thread-safe)."""

    def __init__(self) -> None:
        self._total = Usage()
        self._lock = threading.Lock()

    def add(self, usage: Usage) -> None:
        with self._lock:
            self._total = self._total + usage

    def total(self) -> Usage:
        with self._lock:
            return Usage(*astuple_(self._total))


__all__ = ["Usage", "Completion", "UsageCounter", "CUT_REASON", "is_cut"]
