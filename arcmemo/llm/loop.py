"""An asyncio event loop in a background thread, so synchronous code can run coroutines on it.

The model client owns one: its calls run there, `run(coro)` blocks the calling thread
until the result is ready, and `submit(coro)` awaits a coroutine on the loop from any
other event loop. `close()` cancels whatever is still in flight (its waiters get
CancelledError, not a hang), runs the given clean-up coroutine, and stops the thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    def __init__(self, name: str = "arcmemo-llm"):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def on_loop(self) -> bool:
        """True when called from the loop's own thread."""
        return threading.current_thread() is self._thread

    def run(self, coro: Awaitable[T]) -> T:
        """Run `coro` on the loop and wait for its result (not from the loop's own thread)."""
        if self.on_loop():
            _discard(coro)
            raise RuntimeError("LLM.run() called from the LLM's own event loop; await the coroutine instead")
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    async def submit(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await `coro` on the loop from whichever event loop is running (or the loop itself)."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def close(self, cleanup: Callable[[], Awaitable[None]] | None = None, timeout_s: float = 5.0) -> None:
        if self.loop.is_running():
            async def shutdown():
                others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
                for task in others:
                    task.cancel()
                await asyncio.gather(*others, return_exceptions=True)
                if cleanup is not None:
                    await cleanup()
            try:
                asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(timeout=timeout_s)
            except Exception:  # best effort: a stuck clean-up must not hang the caller
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=timeout_s)
        if not self.loop.is_running():
            self.loop.close()


def _discard(coro: Awaitable[Any]) -> None:
    if asyncio.iscoroutine(coro):
        coro.close()


__all__ = ["LoopThread"]
