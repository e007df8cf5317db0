"""Repeats of one configuration: repeat r of a run asks the model afresh, its resume replays it.

A run's `repeat` (RunConfig; `solve --repeat N`, a sweep's `repeats`) is its draw: it joins
the cache key of every model call the run makes — selection, solver, memory writes,
consolidation (llm/client.py `draw`) — and moves the model seed past the samples of the
repeats before it. So repeat 1 of a configuration is never served repeat 0's answers from
the call cache, while `--resume` of repeat 1 is served its own (its calls carry the same
draw). Repeat 0 is keyed as runs always were: a call cache made before repeats still
answers it.
"""

from __future__ import annotations

from typing import Any


class Draws:
    """`llm` with every call made as draw `repeat` (anything else is `llm`'s own)."""

    def __init__(self, llm: Any, repeat: int):
        self._llm = llm
        self.repeat = repeat

    async def achat(self, messages, **kwargs):
        return await self._llm.achat(messages, draw=self.repeat, **kwargs)

    def chat(self, messages, **kwargs):
        return self._llm.chat(messages, draw=self.repeat, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)


def with_draws(llm: Any, repeat: int) -> Any:
    """The model client a run of repeat `repeat` calls through (repeat 0: `llm` itself)."""
    return Draws(llm, repeat) if repeat else llm


__all__ = ["Draws", "with_draws"]
