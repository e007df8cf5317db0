"""The model client as one task (or one memory write) sees it: the same calls, each counted.

A run accounts for every task on its own: the calls a task's selection and solver made
(failed calls and cache hits included), and whether the endpoint failed under it. Counting
at the client's side per task, instead of diffing the client's running totals before and
after, stays right when several tasks run at once.

Endpoint faults (arcmemo.llm): an `EndpointFatal` (bad key, unknown model: nothing will
work until the user fixes it) stops the run; an `EndpointUnavailable` (the endpoint was
down, timed out, kept failing) means the task was not really attempted, so the run records
it as lost and `--resume` tries it again.
"""

from __future__ import annotations

import threading
from typing import Any

from arcmemo.llm import EndpointFatal, EndpointUnavailable, LLMError, Usage


class MeteredLLM:
    """Delegates to `llm`; `usage` totals this view's calls, `fatal`/`unavailable` keep the first
    endpoint fault seen. After a fatal fault every further call fails at once with it."""

    def __init__(self, llm: Any):
        self._llm = llm
        self._lock = threading.Lock()
        self.usage = Usage()
        self.fatal: EndpointFatal | None = None
        self.unavailable: EndpointUnavailable | None = None

    @property
    def fault(self) -> LLMError | None:
        return self.fatal or self.unavailable

    def _count(self, usage: Usage) -> None:
        with self._lock:
            self.usage = self.usage + usage

    def _note(self, exc: LLMError) -> None:
        with self._lock:
            if isinstance(exc, EndpointFatal) and self.fatal is None:
                self.fatal = exc
            elif isinstance(exc, EndpointUnavailable) and self.unavailable is None:
                self.unavailable = exc

    async def achat(self, messages, **kwargs):
        if self.fatal is not None:
            raise self.fatal
        try:
            completion = await self._llm.achat(messages, **kwargs)
        except LLMError as exc:
            self._count(Usage(calls=1, errors=1))
            self._note(exc)
            raise
        self._count(completion.usage)
        return completion

    def chat(self, messages, **kwargs):
        return self._llm.run(self.achat(messages, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)


class TaskMeters:
    """A memory write's model client over several tasks: one MeteredLLM per task, each call
    counted to the task it names (`task_id=`), a call naming none to the task whose write
    started last (`start`). So a block's write, made in one call of the memory method, is
    accounted task by task, and an endpoint fault is the task's it happened under."""

    def __init__(self, llm: Any):
        self._llm = llm
        self._lock = threading.Lock()
        self.meters: dict[str | None, MeteredLLM] = {}
        self.current: str | None = None

    def meter(self, task_id: str | None) -> MeteredLLM:
        with self._lock:
            if task_id not in self.meters:
                self.meters[task_id] = MeteredLLM(self._llm)
            return self.meters[task_id]

    def start(self, task_id: str) -> None:
        self.current = task_id

    @property
    def fatal(self) -> EndpointFatal | None:
        return next((m.fatal for m in list(self.meters.values()) if m.fatal is not None), None)

    async def achat(self, messages, **kwargs):
        return await self.meter(kwargs.get("task_id") or self.current).achat(messages, **kwargs)

    def chat(self, messages, **kwargs):
        return self._llm.run(self.achat(messages, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)


__all__ = ["MeteredLLM", "TaskMeters"]
