"""Retrying one model call through transient faults, within a total time budget (tenacity).

A backend raises `TransientError` for a fault worth retrying (429, 408/409, 5xx, timeouts,
dropped connections, malformed bodies). The call is tried again after exactly the server's
Retry-After when it sends one, else after `backoff_base_s * 2**(i-1)` seconds (capped at
`backoff_max_s`, jittered to 50-100% so synchronized callers spread out), until it
succeeds, `max_attempts` are used, or the next try would start after `budget_s` (each
attempt is also cut off at the budget, so a hanging endpoint costs at most the budget).
Then the call fails with `EndpointUnavailable`. A Retry-After above `max_retry_after_s`
fails it at once. Anything else a backend raises (LLMError, EndpointFatal) is not retried.
The caller holds its concurrency slot through the waits: a rate-limited endpoint gets
fewer requests at once, not more.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, stop_before_delay
from tenacity.wait import wait_base

from arcmemo.llm.errors import EndpointUnavailable, LLMError, TransientError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int
    budget_s: float
    timeout_s: float            # one attempt (cut to what is left of the budget)
    backoff_base_s: float
    backoff_max_s: float
    max_retry_after_s: float


class _ServerOrBackoff(wait_base):
    """The server's Retry-After when it sent one, else jittered exponential backoff."""

    def __init__(self, policy: RetryPolicy):
        self.policy = policy

    def __call__(self, retry_state) -> float:
        exc = retry_state.outcome.exception()
        if getattr(exc, "retry_after", None) is not None:
            return exc.retry_after
        delay = min(self.policy.backoff_max_s, self.policy.backoff_base_s * 2 ** (retry_state.attempt_number - 1))
        return delay * random.uniform(0.5, 1.0)


async def with_retries(attempt: Callable[[float], Awaitable[T]], policy: RetryPolicy, *,
                       model: str, step: str) -> tuple[T, int]:
    """(result, attempts used) of `attempt(timeout_s)`, retried as the module docstring says."""
    started = time.monotonic()
    tries = 0
    cause: TransientError | None = None     # the last fault that was the endpoint's, not the budget's

    def retryable(exc: BaseException) -> bool:
        return isinstance(exc, TransientError) and (exc.retry_after is None
                                                    or exc.retry_after <= policy.max_retry_after_s)

    retrying = AsyncRetrying(retry=retry_if_exception(retryable),
                             stop=stop_after_attempt(policy.max_attempts) | stop_before_delay(policy.budget_s),
                             wait=_ServerOrBackoff(policy), sleep=asyncio.sleep, reraise=True)
    try:
        async for try_ in retrying:
            with try_:
                tries += 1
                left = policy.budget_s - (time.monotonic() - started)
                limit = max(0.001, min(policy.timeout_s, left))
                try:
                    result = await asyncio.wait_for(attempt(limit), limit)
                except asyncio.TimeoutError:
                    if limit < policy.timeout_s:    # cut short by the budget, not the endpoint's fault
                        raise TransientError(f"no answer within the {limit:.1f}s left of the budget") from None
                    cause = TransientError(f"no answer within {limit:.1f}s")
                    raise cause from None
                except TransientError as exc:
                    cause = exc
                    raise
        return result, tries
    except LLMError as exc:             # not retried: say how many tries it took
        exc.attempts = tries
        raise
    except TransientError as exc:
        raise _exhausted(cause or exc, tries, time.monotonic() - started, policy, model, step) from None


def _exhausted(exc: TransientError, tries: int, elapsed: float, policy: RetryPolicy, model: str,
               step: str) -> EndpointUnavailable:
    if exc.retry_after is not None and exc.retry_after > policy.max_retry_after_s:
        why = f"Retry-After {exc.retry_after:.0f}s exceeds the {policy.max_retry_after_s:.0f}s limit"
    elif tries >= policy.max_attempts:
        why = f"gave up after {tries} attempts"
    else:
        why = (f"gave up after {tries} attempts in {elapsed:.1f}s: the call's time budget is "
               f"{policy.budget_s:g}s")
    return EndpointUnavailable(f"{exc} ({why})", status=exc.status, model=model, step=step, attempts=tries)


__all__ = ["RetryPolicy", "with_retries"]
