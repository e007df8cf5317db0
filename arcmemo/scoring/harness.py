"""An attempt's metadata in the shape of the ARC Prize benchmarking harness.

The harness (arcprize/arc-agi-benchmarking, `schemas.py`) validates every attempt of a
submission file as `{"answer": grid, "metadata": AttemptMetadata}`, where
AttemptMetadata requires `model`, `provider`, `start_timestamp` and `end_timestamp`
(ISO datetimes; its scorer subtracts them, so both carry a time zone here: UTC),
`choices` (`[{index, message: {role, content}}]`), `kwargs` (the request parameters),
`usage` (`prompt_tokens`, `completion_tokens`, `total_tokens` and
`completion_tokens_details` with `reasoning_tokens`, `accepted_prediction_tokens`,
`rejected_prediction_tokens`) and `cost` (`prompt_cost`, `completion_cost`,
`total_cost`; `reasoning_cost` optional), and takes optional `task_id`, `pair_index`
(its scorer compares it with the number of test inputs, so it is always an int here) and
`test_id`. Other keys are ignored by the harness; arcmemo adds its own. A missing
attempt is `null` (the harness's `attempts: List[Optional[Attempt]]`; its own runner
saves unanswered slots that way).

Usage and cost are those of a thread — one sample and its retries — plus its share of
the calls the threads shared (memory selection), as the call log recorded them: a
response served from the cache carries the original answer's token counts and costs 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

REQUIRED = ("model", "provider", "start_timestamp", "end_timestamp", "choices", "kwargs", "usage", "cost")


@dataclass(frozen=True)
class CallUse:
    """One model call as an attempt's metadata counts it (from the call log)."""

    model: str
    provider: str
    started: float                  # epoch seconds
    ended: float
    params: Mapping[str, Any] = field(default_factory=dict)
    content: str = ""               # the assistant's answer
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    prompt_cost: float = 0.0
    completion_cost: float = 0.0


@dataclass(frozen=True)
class Share:
    """Which of `of` threads this is, for splitting the calls the threads shared."""

    index: int = 0
    of: int = 1


def _split(total: int, share: Share) -> int:
    """Thread `index`'s part of an integer total, so that the parts add up to it exactly."""
    base, rest = divmod(total, share.of)
    return base + (1 if share.index < rest else 0)


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat()


def attempt_metadata(*, task_id: str, pair_index: int, answer: CallUse | None, thread: Sequence[CallUse],
                     shared: Sequence[CallUse] = (), share: Share = Share(), fallback: CallUse,
                     extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Harness metadata of one attempt.

    `answer` is the call whose answer became the attempt; `thread` every call of its
    thread; `shared` the calls all `share.of` threads shared. `fallback` gives model,
    provider and times when there is no call at all (e.g. the solver failed before asking).
    """
    usage = {name: sum(getattr(c, name) for c in thread) + sum(_split(getattr(c, name), share) for c in shared)
             for name in ("prompt_tokens", "completion_tokens", "reasoning_tokens")}
    cost = {name: sum(getattr(c, name) for c in thread) + sum(getattr(c, name) for c in shared) / share.of
            for name in ("prompt_cost", "completion_cost")}
    source = answer or (thread[-1] if thread else fallback)
    calls = list(thread) + list(shared)
    started = min((c.started for c in calls), default=fallback.started)
    ended = max((c.ended for c in (thread or calls)), default=fallback.ended)
    metadata = {
        "model": source.model,
        "provider": source.provider,
        "start_timestamp": iso(started),
        "end_timestamp": iso(max(ended, started)),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.content}}] if answer else [],
        "kwargs": dict(answer.params) if answer else {},
        "usage": {
            "prompt_tokens": usage["prompt_tokens"],
            "completion_tokens": usage["completion_tokens"],
            "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"],
            "completion_tokens_details": {"reasoning_tokens": usage["reasoning_tokens"],
                                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        },
        "cost": {"prompt_cost": cost["prompt_cost"], "completion_cost": cost["completion_cost"],
                 "total_cost": cost["prompt_cost"] + cost["completion_cost"]},
        "task_id": task_id,
        "pair_index": int(pair_index),
    }
    for key, value in (extra or {}).items():
        metadata.setdefault(key, value)
    return metadata


def missing_keys(metadata: Mapping[str, Any]) -> list[str]:
    """The harness's required keys `metadata` lacks."""
    return [key for key in REQUIRED if key not in metadata]
