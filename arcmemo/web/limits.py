"""The page's time limits: no page is made for longer than PAGE_S, and the server stops within
a few seconds of SIGTERM or Ctrl-C, whatever a page is doing.

Each page is made in a thread of its own (a daemon thread: one still at work never holds the
process up when it exits), with a reading deadline (core/files.py: reading a run's event log
gives up at it). A page not made within PAGE_S is answered with 503 and its thread left to
stop at its deadline; the other pages go on. Threads are taken from one of two pools (`Pool`):
the pages that draw charts or whole reports (HEAVY_THREADS at once) never hold up the others
(LIGHT_THREADS at once); few threads in all, as each thread at work takes turns with the
thread answering requests for the interpreter's lock.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from arcmemo.core.files import reading_deadline

PAGE_S = 10.0           # a page is made within this, or answered with 503
HEAVY_THREADS = 3       # pages drawing charts or reports made at once (more wait)
LIGHT_THREADS = 6       # the other pages made at once
STOP_S = 2              # after SIGTERM or Ctrl-C: the answers being sent get this long
FORCE_S = 5.0           # and the process ends this long after the signal, whatever still runs


async def in_own_thread(work: Callable[[], Any], seconds: float) -> Any:
    """work() in a daemon thread of its own, with a reading deadline of `seconds`; TimeoutError
    when it takes longer (the thread is left to finish on its own)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if not done.done():
            done.set_exception(error) if error is not None else done.set_result(result)

    def run() -> None:
        result, error = None, None
        try:
            with reading_deadline(seconds):
                result = work()
        except BaseException as exc:        # handed to the awaiting request, which decides
            error = exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:                # the server stopped meanwhile: nobody is waiting
            pass

    threading.Thread(target=run, name="arcmemo page", daemon=True).start()
    return await asyncio.wait_for(done, seconds)


class Pool:
    """How many pages of a kind are made at once (an asyncio semaphore, made in the server's loop
    when first used)."""

    def __init__(self, threads: int):
        self.threads = threads
        self._slots: asyncio.Semaphore | None = None

    @property
    def slots(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.threads)
        return self._slots


def time_limited(handler: Callable[[Any], Any], too_slow: Callable[[Any], Any], pool: Pool, *,
                 seconds: float = PAGE_S, ready: Callable[[Any], Any] | None = None
                 ) -> Callable[[Any], Awaitable[Any]]:
    """An endpoint making `handler(request)` in its own thread from `pool`, answered within
    `seconds` (waiting for a thread included), or by `too_slow(request)`. `ready(request)`: the
    answer when it is at hand without any work (None: not), given at once, without a thread."""

    async def endpoint(request: Any) -> Any:
        answer = ready(request) if ready is not None else None
        if answer is not None:
            return answer
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        slots = pool.slots
        try:
            await asyncio.wait_for(slots.acquire(), seconds)
        except (TimeoutError, asyncio.TimeoutError):
            return too_slow(request)
        try:
            return await in_own_thread(lambda: handler(request), max(0.1, deadline - loop.time()))
        except (TimeoutError, asyncio.TimeoutError):    # asyncio's, or the reading deadline's (ReadTimedOut)
            return too_slow(request)
        finally:
            slots.release()

    return endpoint


__all__ = ["FORCE_S", "HEAVY_THREADS", "LIGHT_THREADS", "PAGE_S", "Pool", "STOP_S", "in_own_thread", "time_limited"]
