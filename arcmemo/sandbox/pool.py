"""The parent side of the sandbox: the pool of warm workers and `Sandbox.run`."""

from __future__ import annotations

import atexit
import json
import logging
import os
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from arcmemo.sandbox.common import DATA, DEFAULT_MAX_STDOUT, MAX_SIDE, MAX_SOURCE_CHARS, READINGS, frame, wait_readable
from arcmemo.sandbox.redact import environment_secrets, redact
from arcmemo.sandbox.results import line_bytes, outcomes
from arcmemo.sandbox.worker import LEVELS

_WORKER_START_TIMEOUT_S = 60.0
_BACKSTOP_GRACE_S = 10.0
# The whole environment of a worker (so of every run): one thread for the numeric libraries
WORKER_ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
}


class SandboxError(RuntimeError):
    """The sandbox itself failed (a worker could not start, or it was closed)."""


class SandboxIsolationError(SandboxError):
    """The sandbox cannot isolate runs as well as the caller requires on this machine."""


log = logging.getLogger("arcmemo.sandbox")


@dataclass(frozen=True)
class RunOutcome:
    """The result of running a program on one grid: an output grid or a categorised error."""

    ok: bool
    output: list[list[int]] | None
    error: str | None  # one of ERROR_KINDS when not ok
    message: str
    stdout: str
    called: tuple[str, ...] = ()   # helpers of the `helpers` module this grid's run called
    rebound: tuple[str, ...] = ()  # helpers the program had redefined; the module's own were used

    def to_dict(self) -> dict:
        return {"ok": self.ok, "output": self.output, "error": self.error,
                "message": self.message, "stdout": self.stdout, "called": list(self.called),
                "rebound": list(self.rebound)}


class _WorkerGone(Exception):
    def __init__(self, message: str, exited: bool = False) -> None:
        super().__init__(message)
        self.exited = exited


class _Worker:
    """One warm fork-server process; used by one thread at a time."""

    def __init__(self, kernel_isolation: bool = True) -> None:
        root = str(Path(__file__).resolve().parents[2])  # the directory holding the arcmemo package
        boot = (
            f"import sys; sys.path.insert(0, {root!r}); "
            f"from arcmemo.sandbox.worker import _worker_main; _worker_main({bool(kernel_isolation)!r})"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", boot],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=WORKER_ENV,
            cwd="/",
            close_fds=True,
            start_new_session=True,
        )
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._buf = b""
        try:
            hello = self._read(time.monotonic() + _WORKER_START_TIMEOUT_S)
        except _WorkerGone as exc:
            self.kill()
            raise SandboxError(f"sandbox worker failed to start: {exc}") from None
        if isinstance(hello, dict) and "error" in hello:
            self.kill()
            raise SandboxError(f"sandbox worker failed to start:\n{hello['error']}")
        if not isinstance(hello, dict) or "hello" not in hello:
            self.kill()
            raise SandboxError(f"sandbox worker sent an unexpected greeting: {hello!r:.200}")
        self.isolation: dict = hello["hello"]
        self.server_pid: int = hello.get("server_pid", self.proc.pid)  # the fork server, as we number it
        self.runs = 0  # requests sent, which number them

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def request(self, header: dict, body: bytes, deadline: float) -> tuple[bytes, dict]:
        """Send one request: the run's result bytes and its end frame."""
        self.runs += 1
        try:
            self._write_all(frame({**header, "run": self.runs}) + body)
        except OSError as exc:
            raise _WorkerGone(f"cannot write to worker ({exc})", exited=True) from None
        chunks = []
        while True:
            data, obj = self._frame(deadline)
            if obj is None:
                chunks.append(data)
            elif obj.get("run") == self.runs and "end" in obj:
                return b"".join(chunks), obj
            else:
                raise _WorkerGone(f"worker sent an unexpected frame: {obj!r:.200}")

    def status(self, end: dict, deadline: float) -> int | None:
        """The wait status of the run that `end` ended: from the end frame when the run was gone
        by then, else asked of the worker (which reaps it now)."""
        if end["status"] is not None:
            return end["status"]
        try:
            self._write_all(frame({"reap": end["run"]}))
        except OSError as exc:
            raise _WorkerGone(f"cannot write to worker ({exc})", exited=True) from None
        _, obj = self._frame(deadline)
        if obj is None or obj.get("run") != end["run"] or "status" not in obj:
            raise _WorkerGone(f"worker sent an unexpected frame: {obj!r:.200}")
        return obj["status"]

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self._in, view)
            view = view[n:]

    def _read_exact(self, n: int, deadline: float) -> bytes:
        while len(self._buf) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _WorkerGone("worker did not answer in time")
            if not wait_readable(self._out, remaining):
                continue
            chunk = os.read(self._out, 1 << 20)
            if not chunk:
                raise _WorkerGone("worker process exited", exited=True)
            self._buf += chunk
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def _frame(self, deadline: float) -> tuple[bytes, Any]:
        """The next frame: (result bytes, None) or (b"", a JSON object)."""
        (size,) = struct.unpack(">I", self._read_exact(4, deadline))
        if size & DATA:
            return self._read_exact(size & ~DATA, deadline), None
        return b"", json.loads(self._read_exact(size, deadline).decode("utf-8"))

    def _read(self, deadline: float) -> Any:
        return self._frame(deadline)[1]

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.kill()
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


def _plain_grid(grid: Any, where: str) -> list[list[int]]:
    """A grid (lists, tuples or an array) as plain lists of ints 0-9; ValueError naming `where` if not."""
    if hasattr(grid, "tolist") and not isinstance(grid, (list, tuple)):
        grid = grid.tolist()
    if not isinstance(grid, (list, tuple)) or not grid or len(grid) > MAX_SIDE:
        raise ValueError(f"{where}: expected 1-{MAX_SIDE} rows of cells")
    rows = [list(row) if isinstance(row, (list, tuple)) else None for row in grid]
    width = len(rows[0] or ())
    for r, row in enumerate(rows):
        if row is None or not 0 < len(row) == width <= MAX_SIDE:
            raise ValueError(f"{where} row {r}: expected {width or 'a positive number of'} cells (at most {MAX_SIDE})")
        if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= 9 for c in row):
            raise ValueError(f"{where} row {r}: cells must be colours 0-9")
    return rows


class Sandbox:
    """A thread-safe pool of warm workers that run untrusted programs on grids.

    `timeout_s` is the wall-clock budget per grid (the first grid's budget also covers
    importing the program); `memory_mb` is the address space a run may add on top of the
    warm worker's; `max_stdout` caps what a run's prints keep (per grid).
    `kernel_isolation=False` skips every kernel layer (namespaces, own uid, Landlock,
    seccomp); tests use it to exercise the Python-level fallback. `isolation` reports which
    layers are active once a worker started (`check_isolation` starts one). `secrets` are
    scrubbed from every message and output text a run returns, as are the values of
    secret-looking environment variables (see redact.py).
    Use as a context manager, or call `close()`.
    """

    def __init__(self, workers: int | None = None, timeout_s: float = 2.0, memory_mb: int = 1024,
                 max_stdout: int = DEFAULT_MAX_STDOUT, kernel_isolation: bool = True,
                 secrets: Iterable[str] = ()) -> None:
        if workers is None:
            workers = max(1, os.cpu_count() or 1)
        if workers < 1:
            raise ValueError(f"Sandbox: workers must be at least 1, got {workers}")
        if timeout_s <= 0:
            raise ValueError(f"Sandbox: timeout_s must be positive, got {timeout_s}")
        if memory_mb < 16:
            raise ValueError(f"Sandbox: memory_mb must be at least 16, got {memory_mb}")
        self.workers = workers
        self.timeout_s = float(timeout_s)
        self.memory_mb = int(memory_mb)
        self.max_stdout = int(max_stdout)
        self.kernel_isolation = bool(kernel_isolation)
        self._pid = os.getpid()
        self._idle: list[_Worker] = []
        self._count = 0  # workers alive or starting
        self._cond = threading.Condition()
        self._closed = False
        self.isolation: dict = {}
        self.replaced = 0  # workers that died or were killed and had to be replaced
        self._secrets: set[str] = set()
        self.add_secrets(secrets)

    # -- pool management ---------------------------------------------------------------
    def _acquire(self) -> _Worker:
        if os.getpid() != self._pid:
            raise SandboxError("this Sandbox belongs to the process that created it; "
                               "create a new one (or call get_sandbox()) after forking")
        with self._cond:
            while True:
                if self._closed:
                    raise SandboxError("sandbox is closed")
                if self._idle:
                    worker = self._idle.pop()
                    if worker.alive():
                        return worker
                    worker.kill()  # died while idle (killed from outside): replace it
                    self._count -= 1
                    self.replaced += 1
                    continue
                if self._count < self.workers:
                    self._count += 1
                    break
                self._cond.wait()
        try:
            worker = _Worker(self.kernel_isolation)
        except BaseException:
            with self._cond:
                self._count -= 1
                self._cond.notify()
            raise
        if not self.isolation:
            self._announce(worker.isolation)
        self.isolation = worker.isolation
        return worker

    @staticmethod
    def _announce(isolation: dict) -> None:
        """Say at start-up which layers are off (once per sandbox)."""
        if isolation.get("level") != "full":
            log.warning("arcmemo sandbox: isolation is %s, not full: %s", isolation.get("level"), _missing(isolation))

    def _release(self, worker: _Worker, healthy: bool) -> None:
        if healthy and worker.alive():
            with self._cond:
                if not self._closed:
                    self._idle.append(worker)
                    self._cond.notify()
                    return
            worker.close()
            with self._cond:
                self._count -= 1
            return
        worker.kill()
        with self._cond:
            self._count -= 1
            self.replaced += 1
            self._cond.notify()

    def add_secrets(self, values: Iterable[str | None]) -> None:
        """Known secrets (an API key from a config file, ...) to scrub from what runs return."""
        self._secrets.update(v for v in values if isinstance(v, str) and len(v) >= 8)

    def check_isolation(self, required: str | None = None) -> dict:
        """The isolation report (starting a worker if none ran yet); with `required` ("full",
        "partial" or "minimal"), SandboxIsolationError naming the missing layers unless
        this machine reaches that level."""
        if not self.isolation:
            self._release(self._acquire(), True)
        if required is not None:
            if required not in LEVELS:
                raise ValueError(f"isolation level must be one of {', '.join(LEVELS)}, got {required!r}")
            level = self.isolation.get("level", "minimal")
            if LEVELS.index(level) < LEVELS.index(required):
                raise SandboxIsolationError(f"the sandbox's isolation here is {level}, not {required}: "
                                            f"{_missing(self.isolation)}")
        return self.isolation

    def warm(self) -> None:
        """Start every worker now instead of on first use, and wait until each worker's
        scipy server (which imports scipy in the background) is ready as well."""
        probe = self._request("import scipy.ndimage\ndef transform(g):\n    return g\n", [[[0]]], "transform",
                              {}, None, 30.0)
        started: list[_Worker] = []
        try:
            for _ in range(self.workers):
                started.append(self._acquire())
        finally:
            for w in started:
                try:
                    healthy = w.request(*probe, time.monotonic() + 60)[1]["end"] != "broken"
                except _WorkerGone:
                    healthy = False
                self._release(w, healthy)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
            self._cond.notify_all()
        for w in idle:
            w.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:  # best effort; close() is the real API
        try:
            if not self._closed:
                self.close()
        except Exception:
            pass

    # -- running -----------------------------------------------------------------------
    def run(self, source: str, grids: Sequence[Any], *, entry: str = "transform",
            modules: dict[str, str] | None = None, helpers: str | None = None,
            timeout_s: float | None = None, reading: str = "arcmemo") -> list[RunOutcome]:
        """Run `entry(grid)` of `source` on each grid in one fresh process; one outcome per grid.

        `modules` are importable by the program (name -> source). `helpers` names one of them
        as the memory's helpers: each outcome says which of its functions the program called,
        and a program's own definition of one of their names is replaced by the module's
        (reported as `rebound`); see tracing.py. `reading` "released" runs the program as the
        ArcMemo authors' released code does (released.py): all of it, for each grid,
        and only a 2-D numpy array of colours is an output.
        """
        if reading not in READINGS:
            raise ValueError(f"Sandbox.run: reading must be one of {', '.join(READINGS)}, not {reading!r}")
        if not isinstance(source, str):
            raise TypeError(f"Sandbox.run: source must be str, got {type(source).__name__}")
        if not entry.isidentifier():
            raise ValueError(f"Sandbox.run: entry {entry!r} is not a Python identifier")
        modules = dict(modules or {})
        for name, text in modules.items():
            if not isinstance(name, str) or not name.isidentifier():
                raise ValueError(f"Sandbox.run: module name {name!r} is not importable "
                                 "(a plain identifier such as 'common')")
            if not isinstance(text, str):
                raise TypeError(f"Sandbox.run: module {name!r} source must be str")
        if helpers is not None and helpers not in modules:
            raise ValueError(f"Sandbox.run: helpers names the module {helpers!r}, which is not among the modules")
        plain = [_plain_grid(g, f"Sandbox.run grid {i}") for i, g in enumerate(grids)]
        if not plain:
            return []
        timeout = float(timeout_s) if timeout_s is not None else self.timeout_s
        if timeout <= 0:
            raise ValueError(f"Sandbox.run: timeout_s must be positive, got {timeout}")
        if len(source) > MAX_SOURCE_CHARS or any(len(t) > MAX_SOURCE_CHARS for t in modules.values()):
            return [RunOutcome(False, None, "syntax", f"program source longer than {MAX_SOURCE_CHARS} characters", "")
                    for _ in plain]
        header, body = self._request(source, plain, entry, modules, helpers, timeout, reading)
        backstop = time.monotonic() + timeout * len(plain) + _BACKSTOP_GRACE_S
        for attempt in range(2):
            worker = self._acquire()
            healthy = False
            try:
                stream, end = worker.request(header, body, backstop)
                if end["end"] != "broken":
                    got = outcomes(stream, end["end"], partial(worker.status, end, backstop), len(plain), timeout,
                                   self.max_stdout)
                    healthy = True
            except _WorkerGone as exc:
                died = exc.exited or not worker.alive()
                msg = ("the sandbox worker died during the run (the program killed its worker process)"
                       if died else f"the sandbox worker stopped answering ({exc}); it was replaced")
                return [RunOutcome(False, None, "crash" if died else "timeout", msg, "") for _ in plain]
            finally:
                self._release(worker, healthy)
            if healthy:
                break
            # the program never ran: the worker could not give it a clean process (replaced, and
            # the program sent to another)
            if attempt:
                raise SandboxError(f"the sandbox cannot start a run: {end.get('why')}")
        secrets = self._secrets | environment_secrets()
        return [RunOutcome(bool(o["ok"]), o["output"], o["error"], redact(o["message"], secrets),
                           redact(o["stdout"], secrets), tuple(o.get("called", ())), tuple(o.get("rebound", ())))
                for o in got]

    def _request(self, source: str, grids: list, entry: str, modules: dict[str, str], helpers: str | None,
                 timeout: float, reading: str = "arcmemo") -> tuple[dict, bytes]:
        """A request's header (what the worker reads) and body (what only the run reads)."""
        body = json.dumps({"source": source, "grids": grids, "entry": entry, "modules": modules,
                           "helpers": helpers, "reading": reading, "timeout_s": timeout, "memory_mb": self.memory_mb,
                           "max_stdout": self.max_stdout}, separators=(",", ":")).encode("utf-8")
        uses_scipy = "scipy" in source or any("scipy" in text for text in modules.values())
        return {"grids": len(grids), "timeout_s": timeout, "scipy": uses_scipy, "size": len(body),
                "room": len(grids) * line_bytes(self.max_stdout)}, body


def _missing(isolation: dict) -> str:
    """The layers that are off, grouped by why ("pidns, netns: user namespaces refused; ...")."""
    by_reason: dict[str, list[str]] = {}
    for name, why in isolation.get("off", {}).items():
        by_reason.setdefault(why, []).append(name)
    return "; ".join(f"{', '.join(names)}: {why}" for why, names in by_reason.items()) or "nothing"


_shared: Sandbox | None = None
_shared_lock = threading.Lock()


def get_sandbox(*, workers: int | None = None, timeout_s: float = 2.0, memory_mb: int = 1024) -> Sandbox:
    """The shared process-wide pool, closed at exit. The sizes count when the pool is made
    (the first call in a process, or after it was closed); the run layer reads them from
    the settings and passes them in."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared._closed or _shared._pid != os.getpid():
            _shared = Sandbox(workers=workers, timeout_s=timeout_s, memory_mb=memory_mb)
            atexit.register(_shared.close)
        return _shared
