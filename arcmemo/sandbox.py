"""Isolated execution of model-written programs: a pool of warm fork-server workers.

Design (DESIGN.md section 8). The parent process keeps a pool of *workers*: Python
processes started with a clean environment that have numpy (and common stdlib modules)
imported. Each program run is one `os.fork()` of a worker, so every run is its own
process with its own limits and a worker is never poisoned by the code it runs. Programs
whose source (or extra modules) mention scipy are forked instead from a second fork
server, a child of the worker that also has scipy.ndimage imported: a process with scipy
loaded costs about twice as much to fork, and most programs only use numpy. Layers of containment
in the forked child, from the kernel up:

- its own session (a `killpg` reaches only itself), SIGKILL when its worker dies;
- rlimits: address space (the worker's size + `memory_mb`), CPU time, no new processes
  or threads (RLIMIT_NPROC=0), file size, no core dumps, few open files;
- as root (checked at worker start, each layer falls back cleanly when refused): the
  worker lives in its own network namespace (no interfaces up) and mount namespace with
  private tmpfs on /tmp, /var/tmp and /dev/shm, and the child drops to a uid of its own
  (so it cannot signal the worker, the parent, or another run, and cannot write to files
  it does not own);
- a fresh temporary working directory, an empty `os.environ`, stdin/stdout/stderr on
  /dev/null and every inherited descriptor closed except its result pipe;
- a Python audit hook refusing sockets, process creation, signals to other processes and
  writes outside the working directory (this layer alone can be bypassed with ctypes,
  which is why the kernel layers exist);
- what it prints goes to a bounded buffer; what it returns is converted to plain lists
  inside the child (hostile `__eq__`/`__array__`/generators never reach the parent) and
  travels back as JSON text, one line per grid, never as a pickle.

Each worker forks the next run's process ahead of time (set up down to the audit hook and
waiting on a pipe for its request), so a call pays no fork latency; the request arrives as
JSON and the program is compiled inside the limited child. The worker enforces the
wall-clock timeout (per grid: the clock restarts whenever a grid result arrives; the first
grid's budget also covers compiling and importing the program) and kills the child's
process group; the parent has a backstop on the worker itself and replaces a worker that
died or stopped answering.

When the runtime lives in a private home (pyenv under /root), runs with their own uid
could not import anything not already loaded; the worker then covers that home with an
empty tmpfs in its mount namespace and bind-mounts only Python's directories back, so the
rest of the home is invisible to runs. Without root (or when the kernel refuses a layer)
`Sandbox.isolation` says which layers are off; the Python-level guards still hold, but a
program using ctypes could then reach the network or signal same-user processes.

Cost: one fork per run. On the 2-core development VM (a nested VM where page faults are
slow) a numpy-only run costs about 2.5-3 ms of CPU in all processes, against 0.2 ms for
plain in-process exec; an empty fork+exit of a numpy process already costs about 1 ms and
of a numpy+scipy process about 2 ms there (see benchmarks/sandbox.py).
"""

from __future__ import annotations

import atexit
import json
import math
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

ERROR_KINDS = ("syntax", "exception", "timeout", "memory", "invalid_output", "crash", "missing_entry")

MAX_SIDE = 30
MAX_SOURCE_CHARS = 500_000
MAX_MESSAGE_CHARS = 4_000
DEFAULT_MAX_STDOUT = 8_000
_WORKER_START_TIMEOUT_S = 60.0
_BACKSTOP_GRACE_S = 10.0


class SandboxError(RuntimeError):
    """The sandbox itself failed (a worker could not start, or it was closed)."""


@dataclass(frozen=True)
class RunOutcome:
    """The result of running a program on one grid: an output grid or a categorised error."""

    ok: bool
    output: list[list[int]] | None
    error: str | None  # one of ERROR_KINDS when not ok
    message: str
    stdout: str

    def to_dict(self) -> dict:
        return {"ok": self.ok, "output": self.output, "error": self.error,
                "message": self.message, "stdout": self.stdout}


@dataclass(frozen=True)
class PairsCheck:
    """A program checked against (input, output) pairs."""

    outcomes: list[RunOutcome]
    correct: list[bool]
    cell_accuracy: list[float]
    passed_all: bool
    mean_accuracy: float

    @property
    def first_failure(self) -> int | None:
        """Index of the first pair the program got wrong, or None."""
        for i, ok in enumerate(self.correct):
            if not ok:
                return i
        return None


# ---------------------------------------------------------------------------------------
# Parent side: the pool
# ---------------------------------------------------------------------------------------

def _wait_readable(fd: int, timeout_s: float) -> bool:
    """poll() rather than select(): works for descriptors above 1024 in busy parents."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(max(0, int(timeout_s * 1000) + 1)))


def _frame(obj: Any) -> bytes:
    data = json.dumps(obj, separators=(",", ":")).encode("utf-8")
    return struct.pack(">I", len(data)) + data


class _WorkerGone(Exception):
    def __init__(self, message: str, exited: bool = False) -> None:
        super().__init__(message)
        self.exited = exited


class _Worker:
    """One warm fork-server process; used by one thread at a time."""

    def __init__(self, kernel_isolation: bool = True) -> None:
        root = str(Path(__file__).resolve().parent.parent)
        boot = (
            "import sys; sys.path.insert(0, %r); "
            "from arcmemo.sandbox import _worker_main; _worker_main(%r)" % (root, bool(kernel_isolation))
        )
        env = {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", boot],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
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

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def request(self, req: dict, deadline: float) -> dict:
        try:
            self._write_all(_frame(req))
        except OSError as exc:
            raise _WorkerGone(f"cannot write to worker ({exc})", exited=True) from None
        return self._read(deadline)

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
            if not _wait_readable(self._out, remaining):
                continue
            chunk = os.read(self._out, 1 << 20)
            if not chunk:
                raise _WorkerGone("worker process exited", exited=True)
            self._buf += chunk
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def _read(self, deadline: float) -> Any:
        (size,) = struct.unpack(">I", self._read_exact(4, deadline))
        return json.loads(self._read_exact(size, deadline).decode("utf-8"))

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
    from arcmemo.tasks import validate_grid

    return [list(row) for row in validate_grid(grid, where)]


class Sandbox:
    """A thread-safe pool of warm workers that run untrusted programs on grids.

    `timeout_s` is the wall-clock budget per grid (the first grid's budget also covers
    importing the program); `memory_mb` is the address space a run may add on top of the
    warm worker's; `max_stdout` caps what a run's prints keep (per grid).
    `kernel_isolation=False` skips the root-only layers (namespaces, own uid); tests use it
    to exercise the unprivileged fallback. `isolation` reports which layers are active.
    Use as a context manager, or call `close()`.
    """

    def __init__(self, workers: int | None = None, timeout_s: float = 2.0, memory_mb: int = 1024,
                 max_stdout: int = DEFAULT_MAX_STDOUT, kernel_isolation: bool = True) -> None:
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
        self.isolation = worker.isolation
        return worker

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

    def warm(self) -> None:
        """Start every worker now instead of on first use, and wait until each worker's
        scipy server (which imports scipy in the background) is ready as well."""
        probe = {"source": "import scipy.ndimage\ndef transform(g):\n    return g\n", "grids": [[[0]]],
                 "entry": "transform", "modules": {}, "timeout_s": 30.0, "memory_mb": self.memory_mb,
                 "max_stdout": self.max_stdout}
        started: list[_Worker] = []
        try:
            for _ in range(self.workers):
                started.append(self._acquire())
        finally:
            for w in started:
                healthy = True
                try:
                    w.request(probe, time.monotonic() + 60)
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

    def __enter__(self) -> "Sandbox":
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
            modules: dict[str, str] | None = None, timeout_s: float | None = None) -> list[RunOutcome]:
        """Run `entry(grid)` of `source` on each grid in one fresh process; one outcome per grid."""
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
        plain = [_plain_grid(g, f"Sandbox.run grid {i}") for i, g in enumerate(grids)]
        if not plain:
            return []
        timeout = float(timeout_s) if timeout_s is not None else self.timeout_s
        if timeout <= 0:
            raise ValueError(f"Sandbox.run: timeout_s must be positive, got {timeout}")
        if len(source) > MAX_SOURCE_CHARS or any(len(t) > MAX_SOURCE_CHARS for t in modules.values()):
            return [RunOutcome(False, None, "syntax", f"program source longer than {MAX_SOURCE_CHARS} characters", "")
                    for _ in plain]
        req = {"source": source, "grids": plain, "entry": entry, "modules": modules,
               "timeout_s": timeout, "memory_mb": self.memory_mb, "max_stdout": self.max_stdout}
        backstop = time.monotonic() + timeout * len(plain) + _BACKSTOP_GRACE_S
        worker = self._acquire()
        healthy = False
        try:
            reply = worker.request(req, backstop)
            healthy = True
        except _WorkerGone as exc:
            died = exc.exited or not worker.alive()
            msg = ("the sandbox worker died during the run (the program killed its worker process)"
                   if died else f"the sandbox worker stopped answering ({exc}); it was replaced")
            return [RunOutcome(False, None, "crash" if died else "timeout", msg, "") for _ in plain]
        finally:
            self._release(worker, healthy)
        return [RunOutcome(bool(o["ok"]), o["output"], o["error"], o["message"], o["stdout"])
                for o in reply["outcomes"]]


_shared: Sandbox | None = None
_shared_lock = threading.Lock()


def get_sandbox() -> Sandbox:
    """The shared process-wide pool (settings `sandbox_workers`, `sandbox_timeout_s`,
    `sandbox_memory_mb`), closed at exit."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared._closed or _shared._pid != os.getpid():
            workers = timeout = memory = None
            try:
                from arcmemo.config import setting

                workers = setting("sandbox_workers", None, None)
                timeout = setting("sandbox_timeout_s", None, None)
                memory = setting("sandbox_memory_mb", None, None)
            except Exception:
                pass
            _shared = Sandbox(
                workers=int(workers) if workers else None,
                timeout_s=float(timeout) if timeout else 2.0,
                memory_mb=int(memory) if memory else 1024,
            )
            atexit.register(_shared.close)
        return _shared


def _pair_parts(pair: Any) -> tuple[Any, Any]:
    if hasattr(pair, "input") and hasattr(pair, "output"):
        return pair.input, pair.output
    if isinstance(pair, dict):
        return pair["input"], pair["output"]
    inp, out = pair
    return inp, out


def run_on_pairs(sb: Sandbox, source: str, pairs: Iterable[Any], *, entry: str = "transform",
                 modules: dict[str, str] | None = None, timeout_s: float | None = None) -> PairsCheck:
    """Run a program on the inputs of (input, output) pairs and compare with the outputs.

    `pairs` are `tasks.Pair`s, `{"input", "output"}` dicts or 2-tuples.
    """
    from arcmemo.scoring import cell_accuracy

    parts = [_pair_parts(p) for p in pairs]
    outcomes = sb.run(source, [i for i, _ in parts], entry=entry, modules=modules, timeout_s=timeout_s)
    correct, acc = [], []
    for (_, expected), outcome in zip(parts, outcomes):
        expected = _plain_grid(expected, "run_on_pairs expected output")
        if outcome.ok:
            correct.append(outcome.output == expected)
            acc.append(cell_accuracy(outcome.output, expected))
        else:
            correct.append(False)
            acc.append(0.0)
    return PairsCheck(
        outcomes=outcomes,
        correct=correct,
        cell_accuracy=acc,
        passed_all=bool(correct) and all(correct),
        mean_accuracy=sum(acc) / len(acc) if acc else 0.0,
    )


# ---------------------------------------------------------------------------------------
# Worker side (runs in the warm worker process, started by _Worker)
# ---------------------------------------------------------------------------------------

_CLONE_NEWNS = 0x00020000
_CLONE_NEWNET = 0x40000000
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
_MS_NOSUID = 2
_MS_NODEV = 4
_PR_SET_PDEATHSIG = 1
_UID_BASE = 1_000_000


class _WorkerState:
    def __init__(self) -> None:
        self.libc = None
        self.isolation = {"netns": False, "private_tmp": False, "uid": False, "nproc": True, "audit": True}
        self.tmp_base = ""
        self.uid = None


def _worker_setup(kernel_isolation: bool = True) -> _WorkerState:
    import ctypes
    import gc
    import tempfile

    import numpy  # noqa: F401  (warm imports shared with every forked run; scipy: see _Heavy)
    import numpy.ma, numpy.random, numpy.fft  # noqa: F401,E401  (lazy in numpy 2; np.unique loads numpy.ma)

    import linecache  # noqa: F401
    import traceback  # noqa: F401
    import types  # noqa: F401
    # Modules programs commonly import: loaded once here, inherited by every run.
    import itertools, collections, functools, copy, random, re, heapq, bisect, string  # noqa: F401,E401
    import statistics, fractions, dataclasses, typing, enum, operator, glob, json  # noqa: F401,E401
    import resource, shutil, socket, fcntl  # noqa: F401,E401  (used by every child: import once here)

    st = _WorkerState()
    try:
        st.libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        st.libc = None
    if os.geteuid() == 0 and st.libc is not None and kernel_isolation:
        if st.libc.unshare(_CLONE_NEWNET) == 0:
            st.isolation["netns"] = True
        if st.libc.unshare(_CLONE_NEWNS) == 0 and st.libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0:
            ok = True
            for target, size in ((b"/tmp", b"size=64m"), (b"/var/tmp", b"size=16m"), (b"/dev/shm", b"size=16m")):
                if os.path.isdir(target) and st.libc.mount(b"tmpfs", target, b"tmpfs", _MS_NOSUID | _MS_NODEV,
                                                           b"mode=1777," + size) != 0:
                    ok = False if target == b"/tmp" else ok
            st.isolation["private_tmp"] = ok
        reason = _expose_runtime(st, can_mount=st.isolation["private_tmp"])
        if reason is None:
            st.uid = _UID_BASE + os.getpid()
            st.isolation["uid"] = True
        else:
            st.isolation["uid_off"] = reason
    # RLIMIT_NPROC does not bind root: without a uid of its own a run could fork
    st.isolation["nproc"] = os.geteuid() != 0 or st.isolation["uid"]
    st.tmp_base = tempfile.mkdtemp(prefix="arcmemo-sandbox-")
    os.chmod(st.tmp_base, 0o711)
    os.environ.clear()  # thread settings were read at import; runs inherit an empty environment
    gc.collect()
    gc.freeze()  # forked children then never touch the warm heap during collections
    return st


def _runtime_paths() -> list[str]:
    """Directories a child must be able to read to import more of Python and its packages."""
    paths = set()
    for p in sys.path:
        if p and os.path.isdir(p):
            paths.add(os.path.realpath(p))
    ordered = sorted(paths, key=len)
    minimal: list[str] = []
    for p in ordered:  # drop paths already inside another needed path
        if not any(p == m or p.startswith(m.rstrip("/") + "/") for m in minimal):
            minimal.append(p)
    return minimal


def _first_blocked(path: str) -> str | None:
    """The top-most directory on the way to `path` that other users cannot traverse."""
    parts = path.strip("/").split("/")
    for i in range(len(parts) + 1):
        a = "/" + "/".join(parts[:i])
        try:
            if not os.stat(a).st_mode & 0o001:
                return a
        except OSError:
            return a
    return None


def _expose_runtime(st: _WorkerState, can_mount: bool) -> str | None:
    """Let a child with its own uid import from Python's directories even when they live in a
    private home (e.g. pyenv under /root): cover the blocked ancestor with an empty tmpfs and
    bind-mount only the runtime directories back. The rest of that home becomes invisible to
    runs. Returns None when every runtime directory is readable by other users, else why not.
    """
    MS_BIND = 4096
    needed = _runtime_paths()
    groups: dict[str, list[str]] = {}
    for p in needed:
        blocked = _first_blocked(p)
        if blocked is not None:
            groups.setdefault(blocked, []).append(p)
    if groups and not can_mount:
        return f"{next(iter(groups))} is private and there is no private mount namespace to expose the runtime"
    for top, paths in groups.items():
        if any(p == top for p in paths) or top == "/":
            return f"{top} must stay readable for the runtime but is private"
        stage = _stage_dir("/tmp")
        staged = []
        for i, p in enumerate(paths):
            d = os.path.join(stage, str(i))
            os.mkdir(d)
            if st.libc.mount(p.encode(), d.encode(), None, MS_BIND | _MS_REC, None) != 0:
                return f"cannot bind-mount {p}"
            staged.append((d, p))
        if st.libc.mount(b"tmpfs", top.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=0755,size=1m") != 0:
            return f"cannot cover {top}"
        for d, p in staged:
            os.makedirs(p, mode=0o755, exist_ok=True)
            cur = p
            while cur != top:
                os.chmod(cur, 0o755)
                cur = os.path.dirname(cur)
            if st.libc.mount(d.encode(), p.encode(), None, MS_BIND | _MS_REC, None) != 0:
                st.libc.umount2(top.encode(), 2)  # MNT_DETACH: give the worker its view back
                return f"cannot bind-mount {p} back"
    for p in needed:
        blocked = _first_blocked(p)
        if blocked is not None:
            return f"{blocked} is not readable by other users"
    return None


def _stage_dir(base: str) -> str:
    import tempfile

    return tempfile.mkdtemp(prefix=".arcmemo-stage-", dir=base)


def _worker_main(kernel_isolation: bool = True) -> None:
    """The worker's loop: numpy-only runs fork from this process; runs whose source mentions
    scipy are forwarded to a second fork server forked from it that also has scipy.ndimage
    imported. (A process with scipy loaded costs about twice as much to fork, and most
    programs only use numpy.)"""
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)

    def send(obj: Any) -> None:
        _write_all(proto_out, _frame(obj))

    try:
        st = _worker_setup(kernel_isolation)
        heavy = _Heavy(st)  # starts importing scipy in the background
    except BaseException as exc:  # noqa: BLE001 — tell the parent why, then give up
        import traceback

        send({"error": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-2000:]})
        os._exit(1)
    send({"hello": st.isolation})
    local = _Server(st)
    reader = _FrameReader(0)
    while True:
        payload = reader.next()
        if payload is None:
            import shutil

            local.close()
            heavy.stop()
            shutil.rmtree(st.tmp_base, ignore_errors=True)
            os._exit(0)
        req = json.loads(payload.decode("utf-8"))
        if _needs_scipy(req):
            reply = heavy.request(payload, req)
            _write_all(proto_out, struct.pack(">I", len(reply)) + reply)
        else:
            send({"outcomes": local.handle(payload, req)})
            local.after_reply()


def _keep_fds(*fds: int) -> tuple[int, ...]:
    """Move `fds` to 3, 4, ... and close every other descriptor from 3 up."""
    import fcntl

    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 1000) for fd in fds]
    for i, fd in enumerate(high):
        os.dup2(fd, 3 + i)
    os.closerange(3 + len(fds), 1 << 16)
    return tuple(range(3, 3 + len(fds)))


def _needs_scipy(req: dict) -> bool:
    return "scipy" in req["source"] or any("scipy" in text for text in req["modules"].values())


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class _FrameReader:
    """Length-prefixed frames from a file descriptor; next() is None at end of file."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def next(self) -> bytes | None:
        while len(self.buf) < 4:
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        (size,) = struct.unpack(">I", self.buf[:4])
        while len(self.buf) < 4 + size:
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        payload, self.buf = self.buf[4:4 + size], self.buf[4 + size:]
        return payload


class _Server:
    """Runs requests in children forked from this process, one forked ahead and waiting."""

    def __init__(self, st: _WorkerState) -> None:
        self.st = st
        self.pending: list[_Child] = []  # finished children, reaped after the reply is sent
        self.ready = _spawn_child(st)

    def handle(self, payload: bytes, req: dict) -> list[dict]:
        if not _hand_over(self.ready, payload):  # the waiting child died: fork a fresh one
            _finish(self.ready)
            self.ready = _spawn_child(self.st)
            _hand_over(self.ready, payload)
        return _collect(self.ready, req, self.pending)

    def after_reply(self) -> None:
        for child in self.pending:
            _finish(child)
        self.pending.clear()
        self.ready = _spawn_child(self.st)

    def close(self) -> None:
        _finish(self.ready)


class _Heavy:
    """The scipy fork server: a child of the worker that imported scipy.ndimage and runs
    `_Server` on a pair of pipes. Its runs get a uid of their own, distinct from the
    worker's runs. Restarted on the next request if it died."""

    def __init__(self, st: _WorkerState) -> None:
        self.st = st
        self.pid: int | None = None
        self._start()

    def _start(self) -> None:
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        worker_pid = os.getpid()
        pid = os.fork()
        if pid == 0:
            try:
                _heavy_main(self.st, to_r, from_w, worker_pid)
            finally:
                os._exit(0)
        os.close(to_r)
        os.close(from_w)
        self.pid, self.to_fd, self.reader = pid, to_w, _FrameReader(from_r)

    def stop(self) -> None:
        if self.pid is None:
            return
        for fd in (self.to_fd, self.reader.fd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        self.pid = None

    def request(self, payload: bytes, req: dict) -> bytes:
        if self.pid is not None:
            try:
                done, _ = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                done = self.pid
            if done:
                self.pid = None
                self.stop()
        if self.pid is None:
            self._start()
        try:
            _write_all(self.to_fd, struct.pack(">I", len(payload)) + payload)
            reply = self.reader.next()
        except OSError:
            reply = None
        if reply is None:
            self.stop()
            msg = "the sandbox's scipy fork server died during the run; it will be restarted"
            reply = json.dumps({"outcomes": [_outcome(False, error="crash", message=msg)
                                             for _ in req["grids"]]}).encode("utf-8")
        return reply


def _heavy_main(st: _WorkerState, in_fd: int, out_fd: int, worker_pid: int) -> None:
    import gc

    if st.libc is not None:
        st.libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != worker_pid:
        os._exit(0)
    # keep only our two pipes: an inherited copy of another pipe's write end would keep
    # its reader from ever seeing end of file
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    in_fd, out_fd = _keep_fds(in_fd, out_fd)
    import scipy.ndimage  # noqa: F401

    gc.collect()
    gc.freeze()
    if st.uid is not None:
        st.uid = _UID_BASE + os.getpid()
    server = _Server(st)
    reader = _FrameReader(in_fd)
    while True:
        payload = reader.next()
        if payload is None:
            server.close()
            os._exit(0)
        req = json.loads(payload.decode("utf-8"))
        _write_all(out_fd, _frame({"outcomes": server.handle(payload, req)}))
        server.after_reply()


class _Child:
    def __init__(self, pid: int, req_fd: int, res_fd: int, tmpdir: str) -> None:
        self.pid, self.req_fd, self.res_fd, self.tmpdir = pid, req_fd, res_fd, tmpdir
        self.reaped = False
        self.status = 0


def _spawn_child(st: _WorkerState) -> _Child:
    import tempfile

    tmpdir = tempfile.mkdtemp(dir=st.tmp_base)
    if st.uid is not None:
        os.chown(tmpdir, st.uid, st.uid)
    with open("/proc/self/statm") as f:
        vm_bytes = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    req_r, req_w = os.pipe()
    res_r, res_w = os.pipe()
    worker_pid = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        try:
            os.close(req_w)
            os.close(res_r)
            _child(st, req_r, res_w, tmpdir, worker_pid, vm_bytes)
        finally:
            os._exit(70)
    os.close(req_r)
    os.close(res_w)
    return _Child(pid, req_w, res_r, tmpdir)


def _hand_over(child: _Child, payload: bytes) -> bool:
    """Send the request to a waiting child; False if it is gone."""
    try:
        view = memoryview(payload)
        while view:
            n = os.write(child.req_fd, view)
            view = view[n:]
        os.close(child.req_fd)
        child.req_fd = -1
        return True
    except OSError:
        return False


def _kill(child: _Child) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.kill(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _finish(child: _Child) -> None:
    """Kill (if still running), reap, close and clean up after a child."""
    import shutil

    _kill(child)
    for fd in (child.req_fd, child.res_fd):
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
    child.req_fd = child.res_fd = -1
    if not child.reaped:
        try:
            _, child.status = os.waitpid(child.pid, 0)
        except ChildProcessError:
            pass
        child.reaped = True
    shutil.rmtree(child.tmpdir, ignore_errors=True)


def _outcome(ok: bool, output=None, error=None, message: str = "", stdout: str = "") -> dict:
    return {"ok": ok, "output": output, "error": error, "message": message, "stdout": stdout}


def _describe_syntax_error(exc: BaseException, filename: str) -> str:
    if isinstance(exc, SyntaxError):
        where = f"{filename} line {exc.lineno}" if exc.lineno else filename
        text = (exc.text or "").rstrip()
        msg = f"{where}: {type(exc).__name__}: {exc.msg}"
        if text:
            msg += f"\n    {text[:200]}"
        return msg
    return f"{filename}: cannot compile: {type(exc).__name__}: {exc}"[:MAX_MESSAGE_CHARS]


def _collect(child: _Child, req: dict, pending: list) -> list[dict]:
    """Read the child's per-grid result lines under the per-grid wall-clock timeout."""
    n = len(req["grids"])
    timeout = req["timeout_s"]
    rfd = child.res_fd
    results: dict[int, dict] = {}
    buf = b""
    deadline = time.monotonic() + timeout
    end_reason = None
    while len(results) < n:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            end_reason = "timeout"
            break
        if not _wait_readable(rfd, remaining):
            continue
        chunk = os.read(rfd, 1 << 16)
        if not chunk:
            end_reason = "eof"
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            parsed = _parse_child_line(line, n, req["max_stdout"])
            if parsed is None:
                end_reason = "garbage"
                break
            idx, outcome = parsed
            results.setdefault(idx, outcome)
            deadline = time.monotonic() + timeout
        if end_reason:
            break
        if len(buf) > (1 << 20):
            end_reason = "garbage"
            break
    if len(results) == n and end_reason is None:
        _kill(child)  # it is exiting anyway; never let it linger
        pending.append(child)  # reaped after the reply is sent
        return [results[i] for i in range(n)]
    # The run ended early: categorise from how the child ended.
    _finish(child)
    out = []
    first_idx = None
    kind, message = _ended(end_reason, child.status, timeout)
    for i in range(n):
        if i in results:
            out.append(results[i])
        elif first_idx is None:
            first_idx = i
            out.append(_outcome(False, error=kind, message=message))
        else:
            out.append(_outcome(False, error=kind,
                                message=f"not run: the program's process ended on grid {first_idx} ({kind})"))
    return out


def _ended(end_reason: str | None, status: int, timeout: float) -> tuple[str, str]:
    if end_reason == "timeout":
        return "timeout", f"no result within {timeout:g} s (wall clock); the process was killed"
    if end_reason == "garbage":
        return "crash", "the program's process wrote malformed results to the result channel"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU:
            return "timeout", "CPU time limit exceeded; the process was killed"
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return "crash", f"the program's process was killed by {name}"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return "crash", f"the program's process exited with status {code} before returning a result"


def _parse_child_line(line: bytes, n: int, max_stdout: int = DEFAULT_MAX_STDOUT):
    """Strictly validate one result line from a child (it may have been forged)."""
    try:
        obj = json.loads(line.decode("utf-8"))
        idx = obj["i"]
        if type(idx) is not int or not 0 <= idx < n:
            return None
        ok = obj["ok"]
        if type(ok) is not bool:
            return None
        msg = obj.get("message", "")
        out_text = obj.get("stdout", "")
        if not isinstance(msg, str) or not isinstance(out_text, str):
            return None
        if ok:
            grid = obj["output"]
            if not _is_grid(grid):
                return None
            return idx, _outcome(True, output=grid, message="", stdout=out_text[:max_stdout + 200])
        error = obj["error"]
        if error not in ERROR_KINDS:
            return None
        return idx, _outcome(False, error=error, message=msg[:MAX_MESSAGE_CHARS], stdout=out_text[:max_stdout + 200])
    except Exception:
        return None


def _is_grid(grid: Any) -> bool:
    if type(grid) is not list or not 1 <= len(grid) <= MAX_SIDE:
        return False
    width = None
    for row in grid:
        if type(row) is not list or not 1 <= len(row) <= MAX_SIDE:
            return False
        if width is None:
            width = len(row)
        elif len(row) != width:
            return False
        for c in row:
            if type(c) is not int or not 0 <= c <= 9:
                return False
    return True


# ---------------------------------------------------------------------------------------
# Child side (runs in the forked child; everything here ends in os._exit)
# ---------------------------------------------------------------------------------------

class _BoundedText:
    """A file-like sink keeping the first `limit` characters written to it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def write(self, s) -> int:
        s = str(s) if not isinstance(s, str) else s
        room = self.limit - self.size
        if room > 0:
            piece = s[:room]
            self.parts.append(piece)
            self.size += len(piece)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def take(self) -> str:
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[... {self.dropped} more characters of output dropped]"
        self.parts, self.size, self.dropped = [], 0, 0
        return text.encode("utf-8", "replace").decode("utf-8")


class _Invalid(Exception):
    pass


def _child(st: _WorkerState, req_fd: int, wfd: int, tmpdir: str, worker_pid: int, vm_bytes: int) -> None:
    """Set up containment, wait for the request, run the program on each grid, exit."""
    import resource

    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    wfd, req_fd = _keep_fds(wfd, req_fd)
    if st.uid is not None:
        os.setgroups([])
        os.setresgid(st.uid, st.uid, st.uid)
        os.setresuid(st.uid, st.uid, st.uid)
    if st.libc is not None:
        st.libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != worker_pid:
        os._exit(71)
    os.chdir(tmpdir)
    for which, value in ((resource.RLIMIT_NPROC, (0, 0)), (resource.RLIMIT_FSIZE, (16 << 20, 16 << 20)),
                         (resource.RLIMIT_CORE, (0, 0))):
        resource.setrlimit(which, value)
    sys.argv = ["program"]
    out = _BoundedText(DEFAULT_MAX_STDOUT)
    sys.stdout = sys.stderr = sys.__stdout__ = sys.__stderr__ = out
    sys.stdin = None
    import numpy as np  # bound before any program module could shadow the name

    _install_guards(os.path.realpath(tmpdir))

    # -- wait for the request (EOF without one: the worker is shutting down) -------------
    chunks = []
    while True:
        chunk = os.read(req_fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(req_fd)
    if not chunks:
        os._exit(0)
    req = json.loads(b"".join(chunks).decode("utf-8"))
    n = len(req["grids"])
    cpu = int(math.ceil(req["timeout_s"] * n)) + 1
    as_limit = vm_bytes + req["memory_mb"] * (1 << 20)
    for which, value in ((resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_AS, (as_limit, as_limit)),
                         (resource.RLIMIT_NOFILE, (64, 64))):
        resource.setrlimit(which, value)
    out.limit = req["max_stdout"]

    def emit(i: int, outcome: dict) -> None:
        outcome["i"] = i
        data = memoryview((json.dumps(outcome, separators=(",", ":")) + "\n").encode("utf-8"))
        while data:
            k = os.write(wfd, data)
            data = data[k:]

    def emit_all(kind: str, message: str) -> None:
        text = out.take()
        for i in range(n):
            emit(i, _outcome(False, error=kind, message=message, stdout=text if i == 0 else ""))
        os._exit(0)

    source_texts = {"<program>": req["source"], **{f"<module {k}>": v for k, v in req["modules"].items()}}
    codes = {}
    for filename, text in source_texts.items():
        try:
            codes[filename] = compile(text, filename, "exec", dont_inherit=True)
        except MemoryError:
            emit_all("memory", f"{filename}: compiling the program exceeded the memory limit")
        except (SyntaxError, ValueError, RecursionError, OverflowError) as exc:
            emit_all("syntax", _describe_syntax_error(exc, filename))
    try:
        import types

        for name in req["modules"]:
            mod = types.ModuleType(name)
            mod.__file__ = f"<module {name}>"
            sys.modules[name] = mod
            exec(codes[f"<module {name}>"], mod.__dict__)
        ns = {"__name__": "__program__", "__builtins__": __builtins__}
        exec(codes["<program>"], ns)
    except BaseException as exc:  # noqa: BLE001 — everything the program raises is data
        emit_all(*_classify(exc, source_texts, as_limit))
    fn = ns.get(req["entry"])
    if not callable(fn):
        defined = sorted(k for k, v in ns.items() if callable(v) and not k.startswith("_"))[:20]
        emit_all("missing_entry", f"the program defines no function {req['entry']!r}" + (
            f" (it defines: {', '.join(defined)})" if defined else ""))
    for i, grid in enumerate(req["grids"]):
        try:
            result = fn(np.array(grid, dtype=int))
            try:
                grid_out = _to_grid(result, np)
            except _Invalid as exc:
                emit(i, _outcome(False, error="invalid_output", message=str(exc), stdout=out.take()))
                continue
            except BaseException as exc:  # noqa: BLE001 — a hostile return value
                emit(i, _outcome(False, error="invalid_output",
                                 message=f"the returned value could not be read as a grid ({_safe_name(exc)})",
                                 stdout=out.take()))
                continue
            emit(i, _outcome(True, output=grid_out, stdout=out.take()))
        except BaseException as exc:  # noqa: BLE001
            kind, message = _classify(exc, source_texts, as_limit)
            emit(i, _outcome(False, error=kind, message=message, stdout=out.take()))
    os._exit(0)


def _safe_name(obj: Any) -> str:
    try:
        name = type.__dict__["__name__"].__get__(type(obj))
        return name if isinstance(name, str) else "object"
    except Exception:
        return "object"


def _to_grid(value: Any, np) -> list[list[int]]:
    """Convert a program's return value to a plain grid without trusting its methods."""
    if type(value) is np.ndarray:
        if value.ndim != 2:
            raise _Invalid(f"returned an array with {value.ndim} dimension(s), expected a 2-D grid")
        return _check_array(value, np)
    if type(value) not in (list, tuple):
        raise _Invalid(f"returned {_safe_name(value)}, expected a 2-D grid (numpy array or list of lists)")
    if not value:
        raise _Invalid("returned an empty grid")
    if len(value) > MAX_SIDE:
        raise _Invalid(f"returned {len(value)} rows, more than {MAX_SIDE}")
    rows = []
    width = None
    for r, row in enumerate(value):
        if type(row) is np.ndarray:
            if row.ndim != 1:
                raise _Invalid(f"row {r} is an array with {row.ndim} dimensions, expected 1")
            cells = _check_array(row.reshape(1, -1), np)[0] if row.size else []
        elif type(row) in (list, tuple):
            if len(row) > MAX_SIDE:
                raise _Invalid(f"row {r} has {len(row)} cells, more than {MAX_SIDE}")
            cells = [_cell(c, np, r, k) for k, c in enumerate(row)]
        else:
            raise _Invalid(f"row {r} is {_safe_name(row)}, expected a list of ints")
        if not cells:
            raise _Invalid(f"row {r} is empty")
        if width is None:
            width = len(cells)
        elif len(cells) != width:
            raise _Invalid(f"row {r} has {len(cells)} cells, expected {width} (grid not rectangular)")
        rows.append(cells)
    return rows


def _cell(c: Any, np, r: int, k: int) -> int:
    t = type(c)
    if t is int or (issubclass(t, np.integer) and t is not np.bool_):
        v = int(c)
    elif t is float or issubclass(t, np.floating):
        f = float(c)
        if not f.is_integer():
            raise _Invalid(f"row {r} col {k}: value {f!r} is not a colour 0-9")
        v = int(f)
    else:
        raise _Invalid(f"row {r} col {k}: {_safe_name(c)} is not a colour 0-9")
    if not 0 <= v <= 9:
        raise _Invalid(f"row {r} col {k}: value {v} is not a colour 0-9")
    return v


def _check_array(arr, np) -> list[list[int]]:
    h, w = arr.shape
    if h == 0 or w == 0:
        raise _Invalid(f"returned an empty {h}x{w} grid")
    if h > MAX_SIDE or w > MAX_SIDE:
        raise _Invalid(f"returned a {h}x{w} grid, larger than {MAX_SIDE}x{MAX_SIDE}")
    kind = arr.dtype.kind
    if kind in "iu":
        ints = arr
    elif kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
            raise _Invalid("returned non-integer values; colours are ints 0-9")
        ints = arr.astype(np.int64)
    else:
        raise _Invalid(f"returned an array of dtype {arr.dtype.name}, expected ints 0-9")
    lo, hi = int(ints.min()), int(ints.max())
    if lo < 0 or hi > 9:
        bad = lo if lo < 0 else hi
        raise _Invalid(f"returned value {bad}, colours are ints 0-9")
    return [[int(v) for v in row] for row in ints.tolist()]


def _near_memory_limit(limit: int) -> bool:
    """Whether this process's peak address space came within 4 MB of its limit (memory
    exhaustion sometimes surfaces as another error, e.g. SystemError from frame allocation)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1]) * 1024 >= limit - (4 << 20)
    except Exception:
        pass
    return False


def _classify(exc: BaseException, sources: dict[str, str], as_limit: int = 0) -> tuple[str, str]:
    """Category and a message with the program's own traceback lines (at most 10 frames)."""
    import linecache

    if isinstance(exc, (SystemExit, KeyboardInterrupt)):
        try:
            code = exc.code if isinstance(exc, SystemExit) else None
            return "crash", (f"the program called sys.exit({code!r:.100})" if isinstance(exc, SystemExit)
                             else "the program raised KeyboardInterrupt")
        except BaseException:  # noqa: BLE001
            return "crash", "the program called sys.exit()"
    memory = isinstance(exc, MemoryError) or (as_limit and _near_memory_limit(as_limit))
    # Walk at most 2,000 traceback entries (a recursion bomb has millions), keep the
    # program's first 4 and last 6 frames, then drop the traceback to free its memory.
    frames, total = [], 0
    try:
        tb = exc.__traceback__
        while tb is not None and total < 2000:
            code = tb.tb_frame.f_code
            name = code.co_filename
            if name == "<program>" or name.startswith("<module "):
                frames.append((name, tb.tb_lineno, code.co_name))
            tb = tb.tb_next
            total += 1
        truncated = tb is not None
        tb = None
        exc.__traceback__ = None
    except BaseException:  # noqa: BLE001
        truncated = False
    if len(frames) > 10:
        frames = frames[:4] + [None] + frames[-6:]
    lines = []
    for fr in frames:
        if fr is None:
            lines.append("  ...")
            continue
        name, lineno, fn = fr
        where = "program" if name == "<program>" else name[1:-1]
        lines.append(f"  {where} line {lineno}, in {fn}")
        text = sources.get(name)
        if text is not None:
            src_lines = text.splitlines()
            if 0 < lineno <= len(src_lines):
                lines.append(f"    {src_lines[lineno - 1].strip()[:200]}")
    if truncated:
        lines.append("  ... (traceback truncated)")
    try:
        import traceback

        head = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    except BaseException:  # noqa: BLE001 — a hostile __str__
        head = _safe_name(exc) + " (its message could not be shown)"
    if memory:
        return "memory", (f"{head[:300] or 'MemoryError'} (memory limit reached)\n" + "\n".join(lines))[:MAX_MESSAGE_CHARS]
    message = ("Traceback (program frames):\n" + "\n".join(lines) + "\n" if lines else "") + head[:1000]
    return "exception", message[:MAX_MESSAGE_CHARS]


_BLOCKED_EVENTS = {
    "socket.__new__": "network access is disabled in the sandbox",
    "socket.connect": "network access is disabled in the sandbox",
    "socket.bind": "network access is disabled in the sandbox",
    "socket.getaddrinfo": "network access is disabled in the sandbox",
    "socket.gethostbyname": "network access is disabled in the sandbox",
    "os.system": "starting processes is disabled in the sandbox",
    "os.exec": "starting processes is disabled in the sandbox",
    "os.posix_spawn": "starting processes is disabled in the sandbox",
    "os.spawn": "starting processes is disabled in the sandbox",
    "os.fork": "starting processes is disabled in the sandbox",
    "os.forkpty": "starting processes is disabled in the sandbox",
    "subprocess.Popen": "starting processes is disabled in the sandbox",
    "pty.spawn": "starting processes is disabled in the sandbox",
    "os.killpg": "sending signals is disabled in the sandbox",
    "signal.pthread_kill": "sending signals is disabled in the sandbox",
}
_PATH_EVENTS = {"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.symlink", "os.link", "os.chmod",
                "os.chown", "os.truncate", "shutil.rmtree", "os.utime", "os.chdir", "os.chroot"}


def _install_guards(workdir: str) -> None:
    """Audit hook for the child: refuse network, processes, signals, writes outside `workdir`."""
    import socket

    def _no_socket(*args, **kwargs):
        raise PermissionError("network access is disabled in the sandbox")

    socket.socket = _no_socket  # type: ignore[assignment]
    socket.create_connection = _no_socket  # type: ignore[assignment]
    me = os.getpid()
    realpath = os.path.realpath
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    prefix = workdir.rstrip("/") + "/"

    def inside(path) -> bool:
        try:
            if isinstance(path, int):
                return True  # an fd the program already holds
            p = os.fsdecode(path)
            full = realpath(p if os.path.isabs(p) else os.path.join(workdir, p))
            return full == workdir or full.startswith(prefix)
        except Exception:
            return False

    def hook(event: str, args: tuple) -> None:
        reason = _BLOCKED_EVENTS.get(event)
        if reason is not None:
            raise PermissionError(reason)
        if event == "os.kill":
            pid = args[0]
            if pid not in (me, 0):
                raise PermissionError("sending signals to other processes is disabled in the sandbox")
        elif event == "open":
            path, mode, flags = args
            if path is None:
                return
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                      (isinstance(flags, int) and flags & write_flags)
            if writing and not inside(path):
                raise PermissionError(f"writing outside the sandbox directory is disabled: {path!r:.200}")
        elif event in _PATH_EVENTS:
            paths = [a for a in args if isinstance(a, (str, bytes, os.PathLike))]
            for p in paths[:2]:
                if not inside(p):
                    raise PermissionError(f"{event} outside the sandbox directory is disabled: {p!r:.200}")

    sys.addaudithook(hook)
