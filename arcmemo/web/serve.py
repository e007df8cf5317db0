"""Serving the app: which address it may listen on, and uvicorn on a socket bound here.

Loopback (127.0.0.1, ::1, localhost) by default. The page has no login and can edit
memory, so a non-loopback address is served only when it was given explicitly as
`--host`; one that came from a setting (ARCMEMO_SERVE_HOST, config.yaml) is refused.
"""

from __future__ import annotations

import gc
import ipaddress
import os
import socket
import sys
import threading
from collections.abc import Callable
from types import FrameType

GC_ALLOCATIONS = 100_000    # new container objects before a garbage collection (Python's default: 700)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, *, explicit: bool) -> None:
    """ValueError unless `host` is loopback or was given explicitly with --host."""
    if not is_loopback(host) and not explicit:
        raise ValueError(f"serve_host {host!r} is not a loopback address: the page has no login and can edit "
                         "memory, so listening there needs --host given explicitly")


def allowed_hosts(host: str) -> list[str]:
    """The Host header values to answer (requests naming any other host get 400: DNS rebinding)."""
    return sorted({"127.0.0.1", "localhost", "[::1]", "::1", host if ":" not in host else f"[{host.strip('[]')}]"})


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: any free port; read it back with getsockname)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(64)
    return sock


def run(app, sock: socket.socket, *, on_start: Callable[[], None] | None = None) -> None:
    """Serve `app` on `sock` until Ctrl-C or SIGTERM (uvicorn; one process, the memory stays
    single-writer). On the signal the answers being sent get limits.STOP_S to finish; whatever
    still runs FORCE_S after it (a page stuck in a system call) does not keep the process."""
    import uvicorn

    from arcmemo.web.limits import FORCE_S, STOP_S

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            super().handle_exit(sig, frame)
            _stop_anyway_after(FORCE_S, 128 + sig)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=STOP_S)
    server = Server(config)
    quiet_collector()
    if on_start is not None:
        on_start()
    server.run(sockets=[sock])


def quiet_collector() -> None:
    """Keep the garbage collector's full passes rare: each stops every thread, the one answering
    requests too, for as long as it walks every object the server holds (0.3 to 0.7 s with a
    50 MB event log read, several times a minute under load: benchmarks/page_load.py). What the
    server starts with (modules, the app) is frozen out of them, and a pass waits for
    GC_ALLOCATIONS new containers instead of 700 (pages make and drop their objects; what a
    cache keeps is acyclic data, freed as it is dropped)."""
    gc.freeze()
    gc.set_threshold(GC_ALLOCATIONS, *gc.get_threshold()[1:])


def _stop_anyway_after(seconds: float, code: int) -> None:
    """End the process `seconds` from now unless it has ended by then (a daemon timer: it never
    keeps the process up itself)."""
    def stop() -> None:
        print(f"arcmemo serve: a page was still being made {seconds:g} s after the signal; stopped anyway",
              file=sys.stderr, flush=True)
        os._exit(code)

    timer = threading.Timer(seconds, stop)
    timer.daemon = True
    timer.start()
