"""The worker side of the sandbox: a warm fork server, its isolation, and the supervision of
the child it forks for each program run (see the package docstring)."""

from __future__ import annotations

import json
import os
import signal
import struct
import time
from collections.abc import Callable
from typing import Any

from arcmemo.sandbox.child import _child
from arcmemo.sandbox.common import (
    DEFAULT_MAX_STDOUT,
    ERROR_KINDS,
    MAX_MESSAGE_CHARS,
    MAX_SIDE,
    PR_SET_PDEATHSIG,
    frame,
    keep_fds,
    outcome_dict,
    wait_readable,
)
from arcmemo.sandbox.tracing import is_name_list

# Modules programs commonly import: loaded once in the worker, inherited by every run.
WARM_MODULES = (
    "numpy", "numpy.ma", "numpy.random", "numpy.fft", "linecache", "traceback", "types",
    "itertools", "collections", "functools", "copy", "random", "re", "heapq", "bisect", "string",
    "statistics", "fractions", "dataclasses", "typing", "enum", "operator", "glob", "json",
    "resource", "shutil", "socket", "fcntl",
)

_UID_BASE = 1_000_000
_IDLE_S = 0.002  # no request this long after a reply: reap the runs still exiting
LEVELS = ("minimal", "partial", "full")  # what `Sandbox.isolation["level"]` may say, weakest first
FULL = ("pidns", "netns", "private_tmp", "landlock", "seccomp")  # the layers "full" needs
_MIN_LANDLOCK_ABI = 3  # truncate(2) is covered from ABI 3 on (Linux 6.2)


class _WorkerState:
    def __init__(self) -> None:
        self.libc = None
        self.kernel = False  # kernel layers wanted (kernel_isolation)
        self.isolation: dict[str, Any] = {
            "userns": False, "pidns": False, "netns": False, "mountns": False, "private_tmp": False,
            "uid": False, "landlock": 0, "seccomp": False, "nproc": True, "audit": True,
        }
        self.off: dict[str, str] = {}  # layer -> why it is off
        self.tmp_base = ""
        self.uid = None
        self.view = None    # landlock.FilesystemView
        self.filter = None  # seccomp.Filter
        self.server_pid = os.getpid()  # as arcmemo sees it (we may be process 1 of our own namespace)

    def report(self) -> dict[str, Any]:
        iso = dict(self.isolation)
        on = {name: iso[name] >= _MIN_LANDLOCK_ABI if name == "landlock" else bool(iso[name])
              for name in (*FULL, "uid")}
        iso["level"] = "full" if all(on[name] for name in FULL) else ("partial" if any(on.values()) else "minimal")
        iso["off"] = {name: self.off.get(name, "off") for name, active in on.items() if not active}
        return iso


def _worker_setup(kernel_isolation: bool = True) -> _WorkerState:
    import ctypes
    import gc
    import importlib

    # Warm imports shared with every forked run (scipy: see _Heavy). numpy's submodules are
    # lazy in numpy 2 (np.unique loads numpy.ma); `resource` and friends are used by every child.
    for name in WARM_MODULES:
        importlib.import_module(name)

    st = _WorkerState()
    st.libc = ctypes.CDLL(None, use_errno=True)
    # no handler: as process 1 of a PID namespace the server then cannot be interrupted by runs
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    st.kernel = bool(kernel_isolation)
    if kernel_isolation:
        _kernel_layers(st)
    else:
        st.off.update(dict.fromkeys((*FULL, "uid"), "kernel isolation turned off (kernel_isolation=False)"))
    if st.tmp_base == "":
        st.tmp_base = _make_tmp_base()
    # RLIMIT_NPROC does not bind root: without a uid of its own a run could fork
    st.isolation["nproc"] = os.geteuid() != 0 or st.isolation["uid"] or st.isolation["seccomp"]
    os.environ.clear()  # thread settings were read at import; runs inherit an empty environment
    gc.collect()
    gc.freeze()  # forked children then never touch the warm heap during collections
    return st


def _make_tmp_base() -> str:
    import tempfile

    base = tempfile.mkdtemp(prefix="arcmemo-sandbox-")
    os.chmod(base, 0o711)
    return base


def _kernel_layers(st: _WorkerState) -> None:
    """Namespaces, private mounts, a uid for runs (root), the Landlock view and the seccomp
    filter: each layer the kernel refuses is recorded with the reason and the rest go on."""
    from arcmemo.sandbox import landlock, namespaces, seccomp
    from arcmemo.sandbox.view import runtime_view

    iso, off = st.isolation, st.off
    namespaces.enter(iso, off)  # with a PID namespace we now run as its process 1
    st.server_pid = namespaces.outside_pid()
    if iso["mountns"] and namespaces.make_mounts_private():
        if iso["pidns"]:
            reason = namespaces.mount_proc()
            if reason:
                off["proc"] = reason
        reason = namespaces.cover_private_dirs(namespaces.runtime_paths())
        iso["private_tmp"] = reason is None
        if reason:
            off["private_tmp"] = reason
    elif "private_tmp" not in off:
        off["private_tmp"] = off.get("mountns", "no private mount namespace")
    st.tmp_base = _make_tmp_base()
    if os.geteuid() == 0:
        reason = namespaces.expose_runtime(can_mount=iso["private_tmp"])
        if reason is None:
            st.uid = _UID_BASE + 2 * st.server_pid  # + 1 for the scipy server's runs
            iso["uid"] = True
        else:
            off["uid"] = reason
    else:
        off["uid"] = "runs keep the user's uid (only root can give them their own)"
    version = landlock.abi()
    if version < 1:
        off["landlock"] = "the kernel has no Landlock (Linux 5.13+ with landlock among its security modules)"
    else:
        try:
            st.view = landlock.FilesystemView(version, writable=[st.tmp_base], **runtime_view())
            iso["landlock"] = version
            if version < _MIN_LANDLOCK_ABI:
                off["landlock"] = f"Landlock ABI {version} cannot refuse truncate(2) (needs ABI 3, Linux 6.2)"
        except OSError as exc:
            off["landlock"] = f"Landlock refused the view: {exc}"
    try:
        st.filter = seccomp.Filter()
        iso["seccomp"] = True
    except OSError as exc:
        off["seccomp"] = f"no seccomp filter: {exc}"
    if st.view is not None or st.filter is not None:
        seccomp.set_no_new_privs()
    if iso["userns"]:
        reason = namespaces.drop_capabilities()
        if reason:  # runs would keep the user namespace's capabilities: no namespace layer counts
            for name in ("pidns", "netns", "private_tmp"):
                iso[name] = False
                off[name] = reason


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
        _write_all(proto_out, frame(obj))

    try:
        st = _worker_setup(kernel_isolation)
        heavy = _Heavy(st)  # starts importing scipy in the background
    except BaseException as exc:  # tell the parent why, then give up
        import traceback

        send({"error": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-2000:]})
        os._exit(1)
    send({"hello": st.report(), "server_pid": st.server_pid})
    local = _Server(st)
    reader = _FrameReader(0)
    while True:
        payload = reader.next(idle=lambda: local.reap(others=(heavy.pid or 0,)))
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

    def next(self, idle: Callable[[], None] | None = None) -> bytes | None:
        """The next frame; `idle()` is called once if none starts within _IDLE_S."""
        while len(self.buf) < 4:
            if idle is not None and not wait_readable(self.fd, _IDLE_S):
                idle()
                idle = None
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
    """Runs each request in a child forked from this process ahead of time. The child for
    the next request is forked while the current one runs (the fork overlaps the run), and
    finished children are reaped once they are gone or the worker is idle (an exit never
    delays a reply)."""

    def __init__(self, st: _WorkerState) -> None:
        self.st = st
        self.exiting: list[_Child] = []  # killed after their run, reaped when gone
        self.ready = _spawn_child(st)

    def handle(self, payload: bytes, req: dict) -> list[dict]:
        child = self.ready
        if not _hand_over(child, payload):  # the waiting child died: fork a fresh one
            _finish(child)
            child = _spawn_child(self.st)
            _hand_over(child, payload)
        self.ready = _spawn_child(self.st)
        return _collect(child, req, self.exiting)

    def after_reply(self) -> None:
        self.exiting = [child for child in self.exiting if not _reap(child)]

    def reap(self, others: tuple[int, ...] = ()) -> None:
        """Wait for the finished runs still exiting (called when no request is waiting); as
        process 1 of a PID namespace also for orphans (the runs of a scipy server that died),
        leaving alone the waiting run and `others`."""
        for child in self.exiting:
            _finish(child)
        self.exiting.clear()
        while os.getpid() == 1:
            try:
                found = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if found is None or found.si_pid in (self.ready.pid, *others):
                return
            os.waitpid(found.si_pid, 0)

    def close(self) -> None:
        for child in [self.ready, *self.exiting]:
            _finish(child)


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
            reply = json.dumps({"outcomes": [outcome_dict(False, error="crash", message=msg)
                                             for _ in req["grids"]]}).encode("utf-8")
        return reply


def _heavy_main(st: _WorkerState, in_fd: int, out_fd: int, worker_pid: int) -> None:
    import gc

    if st.libc is not None:
        st.libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != worker_pid:
        os._exit(0)
    # keep only our two pipes: an inherited copy of another pipe's write end would keep
    # its reader from ever seeing end of file
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    in_fd, out_fd, *view_fd = keep_fds(in_fd, out_fd, *([st.view.fd] if st.view else []))
    if st.view is not None:
        st.view.fd = view_fd[0]
    import scipy.ndimage  # noqa: F401

    gc.collect()
    gc.freeze()
    if st.uid is not None:
        st.uid += 1
    server = _Server(st)
    reader = _FrameReader(in_fd)
    while True:
        payload = reader.next(idle=server.reap)
        if payload is None:
            server.close()
            os._exit(0)
        req = json.loads(payload.decode("utf-8"))
        _write_all(out_fd, frame({"outcomes": server.handle(payload, req)}))
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
    layer = st.view.write_layer(tmpdir) if st.view is not None else -1
    req_r, req_w = os.pipe()
    res_r, res_w = os.pipe()
    worker_pid = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        try:
            os.close(req_w)
            os.close(res_r)
            _child(st, req_r, res_w, tmpdir, worker_pid, vm_bytes, layer)
        finally:
            os._exit(70)
    os.close(req_r)
    os.close(res_w)
    if layer >= 0:
        os.close(layer)
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
    _kill(child)
    _reap(child, block=True)


def _reap(child: _Child, block: bool = False) -> bool:
    """Reap a killed child and clean up after it; False if it has not exited yet."""
    import shutil

    if not child.reaped:
        try:
            pid, status = os.waitpid(child.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            pid, status = child.pid, child.status
        if pid == 0:
            return False
        child.reaped, child.status = True, status
    for fd in (child.req_fd, child.res_fd):
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
    child.req_fd = child.res_fd = -1
    shutil.rmtree(child.tmpdir, ignore_errors=True)
    return True


def _collect(child: _Child, req: dict, exiting: list) -> list[dict]:
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
        if not wait_readable(rfd, remaining):
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
        exiting.append(child)  # reaped after the reply is sent
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
            out.append(outcome_dict(False, error=kind, message=message))
        else:
            out.append(outcome_dict(False, error=kind,
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
        helpers = {key: obj[key] for key in ("called", "rebound") if key in obj}
        if not all(is_name_list(names) for names in helpers.values()):
            return None
        if ok:
            grid = obj["output"]
            if not _is_grid(grid):
                return None
            return idx, {**outcome_dict(True, output=grid, message="", stdout=out_text[:max_stdout + 200]), **helpers}
        error = obj["error"]
        if error not in ERROR_KINDS:
            return None
        return idx, {**outcome_dict(False, error=error, message=msg[:MAX_MESSAGE_CHARS],
                                    stdout=out_text[:max_stdout + 200]), **helpers}
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


