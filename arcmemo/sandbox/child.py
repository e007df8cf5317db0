"""The child side of the sandbox: the forked process that runs one program on its grids and
reports plain JSON results (everything here ends in os._exit).

It contains itself before it is given anything (a mount namespace and a new tmpfs as its
folder, its uid, the filesystem view, limits, the audit hook, seccomp), says READY on its
result pipe, and only then reads its request. Each grid has `timeout_s` of wall clock (the
first one also covers compiling and importing the program): an alarm stops a run whose grid
overran, reporting a timeout for it; a program that blocks the alarm (or sits in one long
C call) is killed at its worker's deadline for the whole request instead.
"""

from __future__ import annotations

import errno
import json
import math
import os
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from arcmemo.sandbox.common import (
    DEFAULT_MAX_STDOUT,
    MAX_MESSAGE_CHARS,
    MAX_SIDE,
    PR_SET_PDEATHSIG,
    READY,
    NotAGrid,
    describe_syntax_error,
    keep_fds,
    not_run_message,
    outcome_dict,
    timeout_message,
    write_all,
)
from arcmemo.sandbox.namespaces import drop_capabilities, enter_run_folder
from arcmemo.sandbox.released import ReleasedRun, released_grid
from arcmemo.sandbox.tracing import HelperTrace

if TYPE_CHECKING:
    from arcmemo.sandbox.worker import _WorkerState



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
        return text  # lone surrogates and invisible characters are the parent's to replace (results.py)


def _child(st: _WorkerState, req_fd: int, wfd: int, tmpdir: str, options: bytes, worker_pid: int,
           vm_bytes: int, layer: int = -1) -> None:
    """Set up containment, say READY, wait for the request, run the program on each grid, exit.
    With `options` the run mounts a tmpfs of its own on `tmpdir`, in a mount namespace of its
    own; without, `tmpdir` is a fresh directory and `layer` the Landlock layer confining writes to it."""
    import resource

    global _status_fd
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    _status_fd = os.open("/proc/self/status", os.O_RDONLY)  # read on memory errors, when /proc is out of view
    if options and not enter_run_folder(tmpdir.encode(), options):
        os._exit(73)
    if st.uid is not None:
        os.setgroups([])
        os.setresgid(st.uid, st.uid, st.uid)
        os.setresuid(st.uid, st.uid, st.uid)
    elif st.drop_caps:  # a user namespace's capabilities, or root's without a uid of its own
        if drop_capabilities() is not None:
            os._exit(72)
    if st.libc is not None:
        st.libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != worker_pid:
        os._exit(71)
    os.chdir(tmpdir)
    if st.view is not None:
        try:
            st.view.restrict(layer)
        except OSError:
            os._exit(72)  # never run a program outside its view
    wfd, req_fd, _status_fd = keep_fds(wfd, req_fd, _status_fd)
    for which, value in ((resource.RLIMIT_NPROC, (0, 0)), (resource.RLIMIT_FSIZE, (16 << 20, 16 << 20)),
                         (resource.RLIMIT_CORE, (0, 0))):
        resource.setrlimit(which, value)
    sys.argv = ["program"]
    out = _BoundedText(DEFAULT_MAX_STDOUT)
    sys.stdout = sys.stderr = sys.__stdout__ = sys.__stderr__ = out
    sys.stdin = None
    import numpy as np  # bound before any program module could shadow the name

    _install_guards(os.path.realpath(tmpdir))
    if st.filter is not None:
        try:
            st.filter.load()
        except OSError:
            os._exit(72)
    write_all(wfd, READY)

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
    trace, rebound = None, []  # the memory's helpers, when the request names their module
    timeout = req["timeout_s"]
    clock = _GridClock(timeout)

    def emit(i: int, outcome: dict) -> None:
        outcome["i"] = i
        if trace is not None:
            outcome["called"], outcome["rebound"] = trace.called(), rebound
        write_all(wfd, (json.dumps(outcome, separators=(",", ":")) + "\n").encode("utf-8"))

    def done() -> None:
        """The results are all out: close the pipe first, so the worker answers while this
        process is still tearing its memory down."""
        os.close(wfd)
        os._exit(0)

    def emit_all(kind: str, message: str) -> None:
        clock.stop()
        text = out.take()
        for i in range(n):
            emit(i, outcome_dict(False, error=kind, message=message, stdout=text if i == 0 else ""))
        done()

    def out_of_time(signum, frame) -> None:
        if not clock.overran():  # a late alarm: the grid it was for has its result
            return
        first, clock.grid = clock.grid, None
        emit(first, outcome_dict(False, error="timeout", message=timeout_message(timeout), stdout=out.take()))
        for i in range(first + 1, n):
            emit(i, outcome_dict(False, error="timeout", message=not_run_message(first, "timeout")))
        done()

    signal.signal(signal.SIGALRM, out_of_time)
    clock.start(0)

    released = req.get("reading") == "released"
    source_texts = {"<program>": req["source"], **{f"<module {k}>": v for k, v in req["modules"].items()}}
    codes = {}
    for filename, text in source_texts.items():
        try:
            codes[filename] = compile(text, filename, "exec", dont_inherit=True)
        except MemoryError:
            emit_all("memory", f"{filename}: compiling the program exceeded the memory limit")
        except (SyntaxError, ValueError, RecursionError, OverflowError) as exc:
            emit_all("syntax", describe_syntax_error(exc, filename))
    try:
        import types

        for name in req["modules"]:
            mod = types.ModuleType(name)
            mod.__file__ = f"<module {name}>"
            sys.modules[name] = mod
            exec(codes[f"<module {name}>"], mod.__dict__)
            if name == req.get("helpers"):
                trace = HelperTrace(mod)
        ns = {"__name__": "__program__", "__builtins__": __builtins__}
        if not released:                  # the released reading runs the program for each grid
            exec(codes["<program>"], ns)
    except BaseException as exc:  # everything the program raises is data
        emit_all(*_classify(exc, source_texts, as_limit))

    def bind(namespace: dict) -> list[str]:
        return trace.bind(namespace, others=set(req["modules"]) - {req["helpers"]}) if trace is not None else []

    if released:
        run = ReleasedRun(codes["<program>"], req["entry"], bind, np)
        fn = run.call
    else:
        rebound = bind(ns)
        fn = ns.get(req["entry"])
        if not callable(fn):
            defined = sorted(k for k, v in ns.items() if callable(v) and not k.startswith("_"))[:20]
            emit_all("missing_entry", f"the program defines no function {req['entry']!r}" + (
                f" (it defines: {', '.join(defined)})" if defined else ""))
    for i, grid in enumerate(req["grids"]):
        if i:
            clock.start(i)
        try:
            result = fn(np.array(grid, dtype=int))
            if released:
                rebound = run.rebound
            clock.stop()
            try:
                grid_out = released_grid(result, np) if released else _to_grid(result, np)
            except NotAGrid as exc:
                emit(i, outcome_dict(False, error="invalid_output", message=str(exc), stdout=out.take()))
                continue
            except BaseException as exc:  # a hostile return value
                emit(i, outcome_dict(False, error="invalid_output",
                                 message=f"the returned value could not be read as a grid ({_safe_name(exc)})",
                                 stdout=out.take()))
                continue
            emit(i, outcome_dict(True, output=grid_out, stdout=out.take()))
        except BaseException as exc:
            clock.stop()
            kind, message = _classify(exc, source_texts, as_limit)
            emit(i, outcome_dict(False, error=kind, message=message, stdout=out.take()))
    done()


class _GridClock:
    """The wall clock of the grid being run (`grid`, None between grids): SIGALRM after `timeout`."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.grid: int | None = None
        self.started = 0.0

    def start(self, grid: int) -> None:
        self.grid, self.started = grid, time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, self.timeout)

    def stop(self) -> None:
        self.grid = None
        signal.setitimer(signal.ITIMER_REAL, 0)

    def overran(self) -> bool:
        """Whether the grid being run has used its time (an alarm can arrive late, when its grid
        has its result and the next one has just started)."""
        return self.grid is not None and time.monotonic() - self.started >= self.timeout * 0.999


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
            raise NotAGrid(f"returned an array with {value.ndim} dimension(s), expected a 2-D grid")
        return _check_array(value, np)
    if type(value) not in (list, tuple):
        raise NotAGrid(f"returned {_safe_name(value)}, expected a 2-D grid (numpy array or list of lists)")
    if not value:
        raise NotAGrid("returned an empty grid")
    if len(value) > MAX_SIDE:
        raise NotAGrid(f"returned {len(value)} rows, more than {MAX_SIDE}")
    rows = []
    width = None
    for r, row in enumerate(value):
        if type(row) is np.ndarray:
            if row.ndim != 1:
                raise NotAGrid(f"row {r} is an array with {row.ndim} dimensions, expected 1")
            cells = _check_array(row.reshape(1, -1), np)[0] if row.size else []
        elif type(row) in (list, tuple):
            if len(row) > MAX_SIDE:
                raise NotAGrid(f"row {r} has {len(row)} cells, more than {MAX_SIDE}")
            cells = [_cell(c, np, r, k) for k, c in enumerate(row)]
        else:
            raise NotAGrid(f"row {r} is {_safe_name(row)}, expected a list of ints")
        if not cells:
            raise NotAGrid(f"row {r} is empty")
        if width is None:
            width = len(cells)
        elif len(cells) != width:
            raise NotAGrid(f"row {r} has {len(cells)} cells, expected {width} (grid not rectangular)")
        rows.append(cells)
    return rows


def _cell(c: Any, np, r: int, k: int) -> int:
    t = type(c)
    if t is int or (issubclass(t, np.integer) and t is not np.bool_):
        v = int(c)
    elif t is float or issubclass(t, np.floating):
        f = float(c)
        if not f.is_integer():
            raise NotAGrid(f"row {r} col {k}: value {f!r} is not a colour 0-9")
        v = int(f)
    else:
        raise NotAGrid(f"row {r} col {k}: {_safe_name(c)} is not a colour 0-9")
    if not 0 <= v <= 9:
        raise NotAGrid(f"row {r} col {k}: value {v} is not a colour 0-9")
    return v


def _check_array(arr, np) -> list[list[int]]:
    h, w = arr.shape
    if h == 0 or w == 0:
        raise NotAGrid(f"returned an empty {h}x{w} grid")
    if h > MAX_SIDE or w > MAX_SIDE:
        raise NotAGrid(f"returned a {h}x{w} grid, larger than {MAX_SIDE}x{MAX_SIDE}")
    kind = arr.dtype.kind
    if kind in "iu":
        ints = arr
    elif kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
            raise NotAGrid("returned non-integer values; colours are ints 0-9")
        ints = arr.astype(np.int64)
    else:
        raise NotAGrid(f"returned an array of dtype {arr.dtype.name}, expected ints 0-9")
    lo, hi = int(ints.min()), int(ints.max())
    if lo < 0 or hi > 9:
        bad = lo if lo < 0 else hi
        raise NotAGrid(f"returned value {bad}, colours are ints 0-9")
    return [[int(v) for v in row] for row in ints.tolist()]


_status_fd = -1  # this run's /proc/self/status, opened before its filesystem view closed


def _near_memory_limit(limit: int) -> bool:
    """Whether this process's peak address space came within 4 MB of its limit (memory
    exhaustion sometimes surfaces as another error, e.g. SystemError from frame allocation)."""
    try:
        for line in os.pread(_status_fd, 1 << 16, 0).decode().splitlines():
            if line.startswith("VmPeak:"):
                return int(line.split()[1]) * 1024 >= limit - (4 << 20)
    except Exception:
        pass
    return False


def _classify(exc: BaseException, sources: dict[str, str], as_limit: int = 0) -> tuple[str, str]:
    """Category and a message with the program's own traceback lines (at most 10 frames)."""

    if isinstance(exc, (SystemExit, KeyboardInterrupt)):
        try:
            code = exc.code if isinstance(exc, SystemExit) else None
            return "crash", (f"the program called sys.exit({code!r:.100})" if isinstance(exc, SystemExit)
                             else "the program raised KeyboardInterrupt")
        except BaseException:
            return "crash", "the program called sys.exit()"
    # mmap and other calls that map memory say ENOMEM at the address-space limit
    memory = (isinstance(exc, MemoryError) or (isinstance(exc, OSError) and exc.errno == errno.ENOMEM)
              or (as_limit and _near_memory_limit(as_limit)))
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
    except BaseException:
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
    except BaseException:  # a hostile __str__
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
                "os.chown", "os.truncate", "shutil.rmtree", "os.utime", "os.chdir", "os.chroot",
                "sqlite3.connect"}
# where the events above that create or change files carry a directory descriptor (-1 when
# none was given); removals relative to one stay allowed, as shutil.rmtree needs them below a
# top directory it checked
_DIR_FD_ARGS = {"os.mkdir": (2,), "os.chmod": (2,), "os.symlink": (2,), "os.rename": (2, 3), "os.link": (2, 3),
                "os.chown": (3,), "os.utime": (3,)}


def _install_guards(workdir: str) -> None:
    """Audit hook for the child: refuse network, processes, signals, writes outside `workdir`.
    (A path relative to a directory descriptor cannot be checked here: such writes are
    refused, and the kernel's filesystem view is what really holds.)"""
    import socket

    def _no_socket(*args, **kwargs):
        raise PermissionError("network access is disabled in the sandbox")

    socket.socket = _no_socket  # type: ignore[assignment]
    socket.create_connection = _no_socket  # type: ignore[assignment]

    def _no_memfd(*args, **kwargs):
        raise PermissionError("memory file descriptors (memfd) are disabled in the sandbox: "
                              "their memory would be outside the run's memory limit")

    os.memfd_create = _no_memfd  # the seccomp filter refuses it below Python too
    me = os.getpid()
    realpath = os.path.realpath
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    prefix = workdir.rstrip("/") + "/"
    os_open = os.open

    def guarded_open(path, flags, mode=0o777, *, dir_fd=None):
        if dir_fd is not None and flags & write_flags:
            raise PermissionError(f"writing relative to a directory descriptor is disabled: {path!r:.200}")
        return os_open(path, flags, mode, dir_fd=dir_fd)

    os.open = guarded_open

    def inside(path) -> bool:
        try:
            if isinstance(path, int):
                return True  # an fd the program already holds
            p = os.fsdecode(path)
            if p == ":memory:" or p == "":
                return True  # sqlite's in-memory databases
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
            if any(isinstance(args[i], int) and args[i] >= 0 for i in _DIR_FD_ARGS.get(event, ()) if i < len(args)):
                raise PermissionError(f"{event} relative to a directory descriptor is disabled")
            paths = [a for a in args if isinstance(a, (str, bytes, os.PathLike))]
            for p in paths[:2]:
                if not inside(p):
                    raise PermissionError(f"{event} outside the sandbox directory is disabled: {p!r:.200}")

    sys.addaudithook(hook)

