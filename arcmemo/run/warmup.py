"""A solve's start-up, begun in the background: the sandbox's first worker and the endpoint
client's library.

`warm_up(settings)` is called by the solve command as soon as its settings are read, before
it imports the run layer (about half a second of imports on this machine): the worker's
interpreter (numpy, its namespaces) starts up on another core meanwhile, and the run waits
for it (`sandbox_started`) only where it first needs the sandbox, the isolation report in
its config. The endpoint client (llm/openai_backend.py, over the `openai` package: about
half a second of imports, pydantic's models of the whole API) is imported on a second
thread, so that it goes on while the run layer loads and waits for that worker and for the
programs the probe runs in it; the first request waits only for what is left of it. A
worker that cannot start is not reported here: the run's own first use of the sandbox
tries again and says why; nor is a client that cannot be imported: the first request
imports it again and fails with the reason.

This module imports nothing heavy itself: it must be cheap to import before the run layer.
"""

from __future__ import annotations

import importlib
import threading
import weakref
from typing import Any

ENDPOINT_CLIENT = "arcmemo.llm.openai_backend"
_lock = threading.Lock()
_starting: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()    # sandbox -> the thread starting its first worker


def shared_sandbox(settings: Any = None):
    """The process's sandbox pool, sized by the settings sandbox_workers/_timeout_s/_memory_mb
    (also for commands that run programs outside a run: concepts edit and import)."""
    from arcmemo.core.settings import Settings
    from arcmemo.sandbox import get_sandbox

    settings = settings or Settings.load()
    return get_sandbox(workers=settings.sandbox_workers, timeout_s=settings.sandbox_timeout_s,
                       memory_mb=settings.sandbox_memory_mb)


def warm_up(settings: Any = None) -> None:
    """Start the shared sandbox's first worker and import the client library, each on a
    background thread (once per sandbox pool)."""
    sandbox = shared_sandbox(settings)
    with _lock:
        if sandbox in _starting or sandbox.isolation:
            return
        _starting[sandbox] = thread = threading.Thread(target=_start_worker, args=(sandbox,),
                                                           name="sandbox-warm-up", daemon=True)
    thread.start()
    threading.Thread(target=_import_client, name="client-warm-up", daemon=True).start()


def sandbox_started(sandbox) -> None:
    """Wait for the worker `warm_up` is starting for `sandbox`, if any (using the sandbox
    meanwhile would start a second one beside it)."""
    with _lock:
        thread = _starting.get(sandbox)
    if thread is not None:
        thread.join()


def _import_client() -> None:
    try:
        importlib.import_module(ENDPOINT_CLIENT)
    except Exception:       # raised again, with its context, where the first request imports it
        pass


def _start_worker(sandbox) -> None:
    try:
        sandbox.check_isolation()
    except Exception:       # raised again, with its context, where the run uses the sandbox
        pass


__all__ = ["ENDPOINT_CLIENT", "shared_sandbox", "warm_up", "sandbox_started"]
