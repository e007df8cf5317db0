"""Harness metadata for a task's submitted attempts, read back from the call log.

Each submitted grid is traced to the best-ranked attempt that produced it (the rule of
arcmemo.core.choice) and so to its thread: the solver calls with that attempt's sample
index. The attempt's metadata then counts that thread's calls (first answer and every
retry) and an equal share of the task's other calls (memory selection), each as the call
log recorded it; its `choices` hold the answer that became the grid and its `kwargs` the
parameters of that request (arcmemo.scoring.harness has the shape).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from arcmemo.core.choice import rank
from arcmemo.core.tasks import as_grid
from arcmemo.llm.log import CallRecord
from arcmemo.scoring.harness import CallUse, Share, attempt_metadata


def provider_of(endpoint: str | None) -> str:
    """Who served a call: an endpoint URL's host (`api.openai.com`), else its scheme (`local`)."""
    if not endpoint:
        return "unknown"
    parts = urlsplit(endpoint)
    if parts.scheme in ("http", "https") and parts.netloc:
        return parts.netloc.rsplit("@", 1)[-1]
    return parts.scheme or endpoint


def newest_call_id(llm: Any) -> int:
    """The id of the newest call in the client's log (0 if none): calls after it are new."""
    newest = llm.call_log.list(limit=1)
    return newest[0].id if newest else 0


def task_calls(llm: Any, task_id: str, after: int) -> list[CallRecord]:
    """This client's run's calls for `task_id` made after call id `after`, oldest first."""
    calls = llm.call_log.list(run_id=llm.run_id, task_id=task_id, limit=None)
    return sorted((c for c in calls if c.id > after), key=lambda c: c.id)


def call_use(call: CallRecord, catalog: Any) -> CallUse:
    """A logged call as metadata counts it; its cost split into prompt and completion parts
    by the model's output price (the log keeps only the total)."""
    price = catalog.price(call.model)
    completion_cost = call.completion_tokens * price.output / 1_000_000 if price and call.cost_usd else 0.0
    completion_cost = min(completion_cost, call.cost_usd)
    try:
        params = call.request.get("params") or {}
    except ValueError:
        params = {}
    return CallUse(model=call.model, provider=provider_of(call.endpoint), started=call.created_at - call.latency_s,
                   ended=call.created_at, params=params, content=call.response_text or "",
                   prompt_tokens=call.prompt_tokens, completion_tokens=call.completion_tokens,
                   reasoning_tokens=call.reasoning_tokens, prompt_cost=call.cost_usd - completion_cost,
                   completion_cost=completion_cost)


def _producer(attempts: Sequence[Any], order: list[int], test: int, grid: Any) -> Any | None:
    """The best-ranked attempt whose output for test input `test` is `grid`."""
    wanted = as_grid(grid)
    for i in order:
        outputs = attempts[i].test_outputs
        if test < len(outputs) and outputs[test] is not None and as_grid(outputs[test]) == wanted:
            return attempts[i]
    return None


def submission_metadata(llm: Any, task_id: str, after: int, attempts: Sequence[Any],
                        predictions: Sequence[Sequence[Any]], *, started: float,
                        extra: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """metadata[test][attempt] for `write_submission`, for the grids in `predictions`."""
    calls = task_calls(llm, task_id, after)
    solver_calls = [c for c in calls if c.role == "solver"]
    samples = sorted({c.sample for c in solver_calls} | {a.sample for a in attempts})
    shared = [call_use(c, llm.catalog) for c in calls if c.role != "solver"]
    fallback = CallUse(model=llm.model_for("solver"), provider=provider_of(llm.settings.base_url or "local://"),
                       started=started, ended=time.time())
    order = rank(attempts)
    metadata = []
    for j, grids in enumerate(predictions):
        row = []
        for a, grid in enumerate(grids):
            producer = _producer(attempts, order, j, grid)
            thread = ([c for c in solver_calls if c.sample == producer.sample] if producer is not None
                      else solver_calls)
            answered = [c for c in thread if c.error is None]
            answer = next((c for c in reversed(answered) if producer is not None and c.response_text == producer.raw),
                          answered[-1] if answered else None)
            share = Share(samples.index(producer.sample), len(samples)) if producer is not None else Share()
            row.append(attempt_metadata(
                task_id=task_id, pair_index=j, answer=call_use(answer, llm.catalog) if answer else None,
                thread=[call_use(c, llm.catalog) for c in thread], shared=shared, share=share, fallback=fallback,
                extra={**extra, "attempt": a + 1,
                       "thread": producer.sample if producer is not None else None,
                       "retry_depth": producer.round if producer is not None else None,
                       "calls": len(thread), "cache_hits": sum(c.cached for c in thread)}))
        metadata.append(row)
    return metadata
