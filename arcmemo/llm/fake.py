"""A scripted model for tests: replies queued per prompt step, every call recorded.

Register it like any model (`register_model("fake", FakeModel())`) — the tests' fixtures
do; the product never does. A reply is a string, a `Reply` (to script what else the
endpoint says: `Reply(text, finish_reason="length")` is an answer cut at the token limit),
or an exception instance to raise (e.g. `LLMError("boom")`, or `TransientError("429")` to
exercise retries). Replies
queued for a step are used first, in order; then a handler set with `on(step, fn)`;
then a handler for `"*"` (any step). A step with nothing scripted fails with
LLMError("fake model: nothing scripted for step 'X'").

Its `traits` (what the model takes) are declared, not looked up by name: by default no
known context, no images, not a reasoning model. Pass `traits=ModelTraits(...)` to test
the vision or reasoning paths.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from arcmemo.llm.backend import CallRequest, LLMError, Reply
from arcmemo.llm.catalog import ModelTraits
from arcmemo.llm.params import message_text


@dataclass
class FakeCall:
    step: str
    role: str
    messages: list[dict[str, Any]]
    reply: str | None            # None when the scripted reply was an exception
    sample: int = 0
    task_id: str | None = None
    params: dict[str, Any] | None = None

    @property
    def prompt(self) -> str:
        """All message texts joined: handy for `assert "..." in call.prompt`."""
        return message_text(self.messages)


class FakeModel:
    endpoint = "fake://"

    def __init__(self, name: str = "fake", traits: ModelTraits | None = None):
        self.name = name
        self.traits = traits or ModelTraits(context=None)
        self.endpoint = f"fake://{name}"
        self._queues: dict[str, deque] = defaultdict(deque)
        self._handlers: dict[str, Callable[[list[dict[str, Any]], CallRequest], str]] = {}
        self._lock = threading.Lock()
        self.calls: list[FakeCall] = []

    def queue(self, step: str, *replies: str | Reply | BaseException) -> FakeModel:
        with self._lock:
            self._queues[step].extend(replies)
        return self

    def on(self, step: str, fn: Callable[..., str], *, with_request: bool = False) -> FakeModel:
        """Answer `step` with `fn(messages)`, or `fn(messages, request)` with `with_request`
        (the CallRequest: its sample index tells a run's threads apart)."""
        with self._lock:
            self._handlers[step] = (lambda messages, request: fn(messages, request)) if with_request else (
                lambda messages, request: fn(messages))
        return self

    def pending(self, step: str | None = None) -> int:
        """Queued replies not yet used (for one step, or all)."""
        with self._lock:
            if step is not None:
                return len(self._queues.get(step, ()))
            return sum(len(q) for q in self._queues.values())

    def calls_for(self, step: str) -> list[FakeCall]:
        return [c for c in self.calls if c.step == step]

    async def complete(self, request: CallRequest) -> Reply:
        with self._lock:
            queue = self._queues.get(request.step)
            if queue:
                reply: Any = queue.popleft()
            elif request.step in self._handlers:
                reply = self._handlers[request.step]
            elif "*" in self._handlers:
                reply = self._handlers["*"]
            else:
                reply = None
        if callable(reply) and not isinstance(reply, BaseException):
            reply = reply(request.messages, request)
        scripted = reply if isinstance(reply, Reply) else None
        if scripted is not None:
            reply = scripted.text
        record = FakeCall(request.step, request.role, request.messages,
                          reply if isinstance(reply, str) else None, request.sample,
                          request.task_id, dict(request.params))
        with self._lock:
            self.calls.append(record)
        if reply is None:
            raise LLMError(f"fake model: nothing scripted for step {request.step!r}")
        if isinstance(reply, BaseException):
            raise reply
        if not isinstance(reply, str):
            raise LLMError(f"fake model: reply for step {request.step!r} is {type(reply).__name__}, "
                           "expected str")
        prompt_chars = len(message_text(request.messages))
        made = Reply(text=reply, prompt_tokens=max(1, prompt_chars // 4),
                     completion_tokens=max(1, len(reply) // 4), choices=[reply], finish_reason="stop")
        if scripted is None:
            return made
        return replace(scripted, prompt_tokens=scripted.prompt_tokens or made.prompt_tokens,
                       completion_tokens=scripted.completion_tokens or made.completion_tokens,
                       choices=scripted.choices or [reply], finish_reason=scripted.finish_reason or made.finish_reason)
