"""The worker side of the sandbox: a warm fork server, its isolation, and the supervision of
the child it forks for each program run (see the package docstring).

The worker never reads a program, its grids or its results. A request is a small header (how
many grids, the time per grid, scipy or not, the size of the body) followed by the body, which
the worker moves from arcmemo's pipe into the waiting child's pipe with splice(2), inside the
kernel; the child's result lines go back to arcmemo the same way, in frames. What a program
was given and what it printed stay in pipe buffers and in the run's own process, so a run
forked later finds no earlier one in the memory it inherits from the worker. The worker keeps
the run's clock (one deadline per request, which nothing the run writes can move), stops the
run and says how it ended; arcmemo reads and checks the results (results.py).

Frames on the worker's pipes: a 4-byte big-endian length, then that many bytes of JSON; a
length with the DATA bit set is followed by that many bytes of the run's result lines instead.
Per request the worker answers with data frames, then {"end": why the run's stream ended},
sent at once, then {"status": its wait status, "retire": bool} once the run is reaped and its
folder is gone: arcmemo need not wait for that last frame when every grid has its result, but
reads it before it sends this worker another program.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import time
from collections.abc import Callable
from typing import Any

from arcmemo.sandbox import namespaces
from arcmemo.sandbox.child import _child
from arcmemo.sandbox.common import DATA, PR_SET_PDEATHSIG, READY, frame, keep_fds, wait_readable, write_all
from arcmemo.sandbox.folders import remove_tree

# Modules programs commonly import: loaded once in the worker, inherited by every run.
WARM_MODULES = (
    "numpy", "numpy.ma", "numpy.random", "numpy.fft", "linecache", "traceback", "types",
    "itertools", "collections", "functools", "copy", "random", "re", "heapq", "bisect", "string",
    "statistics", "fractions", "dataclasses", "typing", "enum", "operator", "glob", "json",
    "resource", "shutil", "socket", "fcntl",
)

_UID_BASE = 1_000_000
_IDLE_S = 0.002  # no request this long after a reply: reap orphaned runs
_READY_S = 30.0  # how long a forked run may take to contain itself before it is given up
HARD_GRACE_S = 0.25  # past a request's n x timeout: a run's own per-grid clock should have stopped it
LINE_BYTES = 256 << 10  # the most one grid's result line can take (stdout and message JSON-escaped)
LEVELS = ("minimal", "partial", "full")  # what `Sandbox.isolation["level"]` may say, weakest first
FULL = ("pidns", "netns", "private_tmp", "run_tmpfs", "landlock", "seccomp")  # the layers "full" needs
_MIN_LANDLOCK_ABI = 3  # truncate(2) is covered from ABI 3 on (Linux 6.2)


class _WorkerState:
    def __init__(self) -> None:
        self.libc = None
        self.kernel = False  # kernel layers wanted (kernel_isolation)
        self.isolation: dict[str, Any] = {
            "userns": False, "pidns": False, "netns": False, "mountns": False, "private_tmp": False,
            "run_tmpfs": False, "uid": False, "landlock": 0, "seccomp": False, "nproc": True, "audit": True,
        }
        self.off: dict[str, str] = {}  # layer -> why it is off
        self.tmp_base = ""  # the runs' base: a read-only tmpfs with one folder (run_tmpfs), else a directory
        self.drop_caps = False  # runs give up capabilities the worker keeps (user namespace; root without a uid)
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
    from arcmemo.sandbox import landlock, seccomp
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
    if iso["mountns"]:
        reason = namespaces.make_run_base(st.tmp_base)
        iso["run_tmpfs"] = reason is None
        if reason:
            off["run_tmpfs"] = reason
    else:
        off["run_tmpfs"] = off.get("mountns", "no private mount namespace")
    if os.geteuid() == 0:
        reason = namespaces.expose_runtime(can_mount=iso["private_tmp"])
        if reason is None:
            st.uid = _UID_BASE + 2 * st.server_pid  # + 1 for the scipy server's runs
            iso["uid"] = True
        else:
            off["uid"] = reason
            st.drop_caps = True
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
        reason = namespaces.check_capabilities()
        if reason:  # runs would keep the user namespace's capabilities: no namespace layer counts
            for name in ("pidns", "netns", "private_tmp", "run_tmpfs"):
                iso[name] = False
                off[name] = reason
        st.drop_caps = reason is None


def _worker_main(kernel_isolation: bool = True) -> None:
    """The worker's loop: numpy-only runs fork from this process; runs arcmemo marks as using
    scipy are passed to a second fork server forked from it that also has scipy.ndimage
    imported. (A process with scipy loaded costs about twice as much to fork, and most
    programs only use numpy.)"""
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)
    try:
        st = _worker_setup(kernel_isolation)
        heavy = _Heavy(st)  # starts importing scipy in the background
    except BaseException as exc:  # tell the parent why, then give up
        import traceback

        write_all(proto_out, frame({"error": "".join(traceback.format_exception(type(exc), exc,
                                                                                exc.__traceback__))[-2000:]}))
        os._exit(1)
    write_all(proto_out, frame({"hello": st.report(), "server_pid": st.server_pid}))
    server = _Server(st, 0, proto_out, heavy)
    server.serve(idle=lambda: server.reap_orphans(others=(heavy.pid or 0,)))
    server.close()
    heavy.stop()
    _remove_base(st)
    os._exit(0)


def _remove_base(st: _WorkerState) -> None:
    import shutil

    if st.isolation["run_tmpfs"]:
        namespaces.unmount(st.tmp_base)
    shutil.rmtree(st.tmp_base, ignore_errors=True)


def _read_exact(fd: int, n: int, deadline: float | None = None) -> bytes | None:
    """Exactly `n` bytes from `fd`, never more (what follows a header is spliced, not read);
    None at end of file or past `deadline`."""
    data = b""
    while len(data) < n:
        if deadline is not None and not wait_readable(fd, deadline - time.monotonic()):
            if time.monotonic() >= deadline:
                return None
            continue
        chunk = os.read(fd, n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _read_frame(fd: int, idle: Callable[[], None] | None = None, deadline: float | None = None):
    """The next frame on `fd`: (length, JSON object or None for result bytes, which stay in
    the pipe), or None at end of file or past `deadline`; `idle()` is called once if none
    starts within _IDLE_S."""
    if idle is not None and not wait_readable(fd, _IDLE_S):
        idle()
    head = _read_exact(fd, 4, deadline)
    if head is None:
        return None
    (size,) = struct.unpack(">I", head)
    if size & DATA:
        return size & ~DATA, None
    body = _read_exact(fd, size, deadline)
    return None if body is None else (size, json.loads(body.decode("utf-8")))


class _Server:
    """Serves requests from `in_fd`, answering on `out_fd`, each with a run forked from this
    process ahead of time. The next run is forked right after a request is handed over, from
    this loop, which holds no request; it contains itself (mount namespace and folder, uid,
    filesystem view, limits, seccomp) while the current run runs, and says it is ready before
    it is given anything. Requests arcmemo marks as using scipy go to `heavy`."""

    def __init__(self, st: _WorkerState, in_fd: int, out_fd: int, heavy: _Heavy | None = None) -> None:
        self.st, self.in_fd, self.out_fd, self.heavy = st, in_fd, out_fd, heavy
        self.options = namespaces.run_folder_options(st.uid) if st.isolation["run_tmpfs"] else b""
        self.mid_r, self.mid_w = os.pipe()  # result bytes pass through here on their way out
        self.sink = os.open(os.devnull, os.O_WRONLY)
        self.ready: _Child | None = _spawn_child(st, self.options)

    def serve(self, idle: Callable[[], None] | None = None) -> None:
        while True:
            got = _read_frame(self.in_fd, idle)
            if got is None:
                return
            header = got[1]
            if header.get("scipy") and self.heavy is not None:
                self.heavy.forward(header, self)
                continue
            child, why = self._take_ready()
            if child is None:
                self.discard(header["size"])
                self.refuse(why)
                continue
            if not self._hand_over(child, header["size"]):
                _finish(child)
                self.refuse("the run's process ended before it had all of its program")
                continue
            self.ready = _spawn_child(self.st, self.options)  # the next run, from a process holding no request
            self._supervise(child, header)

    def _take_ready(self) -> tuple[_Child | None, str]:
        """The run forked ahead once it says it is contained (a fresh one if it died), or
        (None, why not) when two in a row could not contain themselves."""
        why = ""
        for _ in range(2):
            child, self.ready = self.ready or _spawn_child(self.st, self.options), None
            if _contained(child):
                return child, ""
            status, _ = _finish(child)
            why = f"a run's process could not contain itself (wait status {status})"
        return None, why

    def _hand_over(self, child: _Child, size: int) -> bool:
        """Move the request's body from `in_fd` into the run's pipe; False (the rest of the body
        read past) if the run went away before taking all of it."""
        left = size
        try:
            while left:
                left -= os.splice(self.in_fd, child.req_fd, left)
        except OSError:
            self.discard(left)
            return False
        finally:
            os.close(child.req_fd)
            child.req_fd = -1
        return True

    def discard(self, size: int) -> None:
        """Read past `size` bytes of a body on `in_fd` without taking them into memory."""
        while size:
            moved = os.splice(self.in_fd, self.sink, size)
            if not moved:
                return
            size -= moved

    def refuse(self, why: str) -> None:
        """Answer a request whose program never ran (its body already read past): arcmemo
        replaces this worker and sends the program to another."""
        write_all(self.out_fd, frame({"end": "broken", "why": why}))
        write_all(self.out_fd, frame({"status": None, "retire": True}))

    def _supervise(self, child: _Child, header: dict) -> None:
        """Pass the run's result bytes on until it closes its end of the pipe, its time is up
        (n grids x their timeout, from now: nothing the run writes moves it), or it wrote more
        than its grids' results can take; then stop it, say why, reap it and restore."""
        n = header["grids"]
        deadline = time.monotonic() + n * header["timeout_s"] + HARD_GRACE_S
        room, reason = n * LINE_BYTES, "eof"
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                reason = "timeout"
                break
            if not wait_readable(child.res_fd, remaining):
                continue
            moved = os.splice(child.res_fd, self.mid_w, 1 << 16)
            if not moved:
                break
            self.pass_on(moved)
            room -= moved
            if room < 0:
                reason = "overflow"
                break
        _kill(child)
        write_all(self.out_fd, frame({"end": reason}))
        status, restored = _finish(child)
        write_all(self.out_fd, frame({"status": status, "retire": not restored}))

    def pass_on(self, size: int) -> None:
        """Send the `size` result bytes waiting in the middle pipe to `out_fd` as one data frame."""
        write_all(self.out_fd, struct.pack(">I", DATA | size))
        while size:
            size -= os.splice(self.mid_r, self.out_fd, size)

    def reap_orphans(self, others: tuple[int, ...] = ()) -> None:
        """As process 1 of a PID namespace: wait for orphans (the runs of a scipy server that
        died), leaving alone the waiting run and `others`."""
        while os.getpid() == 1:
            try:
                found = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if found is None or found.si_pid in ((self.ready.pid if self.ready else 0), *others):
                return
            os.waitpid(found.si_pid, 0)

    def close(self) -> None:
        if self.ready is not None:
            _finish(self.ready)
            self.ready = None


class _Heavy:
    """The scipy fork server: a child of the worker that imported scipy.ndimage and runs a
    `_Server` on a pair of pipes. Its runs get a uid of their own, distinct from the worker's
    runs. Restarted on the next request if it died."""

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
        self.pid, self.to_fd, self.from_fd = pid, to_w, from_r

    def stop(self) -> None:
        if self.pid is None:
            return
        for fd in (self.to_fd, self.from_fd):
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

    def _alive(self) -> bool:
        try:
            return self.pid is not None and os.waitpid(self.pid, os.WNOHANG)[0] == 0
        except ChildProcessError:
            return False

    def forward(self, header: dict, server: _Server) -> None:
        """Hand the request to the scipy server and pass its frames on to `server.out_fd`,
        through to the run's status frame. If it died before it had the whole request, the
        program never ran (refused, to be sent elsewhere); if it died later, the run's
        grids without a result say so."""
        if not self._alive():
            self.stop()
            self._start()
        left = header["size"]
        try:
            write_all(self.to_fd, frame(header))
            while left:
                left -= os.splice(server.in_fd, self.to_fd, left)
        except OSError:
            server.discard(left)
            self.stop()
            self._start()
            server.refuse("the sandbox's scipy fork server died before the run began")
            return
        backstop = time.monotonic() + header["grids"] * header["timeout_s"] + HARD_GRACE_S + 30
        ended = False
        while True:
            got = _read_frame(self.from_fd, deadline=backstop)
            if got is None or (got[1] is None and not self._relay(got[0], server, backstop)):
                break
            size, obj = got
            if obj is not None:
                write_all(server.out_fd, frame(obj))
                ended = ended or "end" in obj
                if "status" in obj:
                    return
        self.stop()
        self._start()
        if not ended:
            write_all(server.out_fd, frame({"end": "server_died"}))
        write_all(server.out_fd, frame({"status": None, "retire": False}))

    def _relay(self, size: int, server: _Server, deadline: float) -> bool:
        """Move one data frame of `size` bytes from the scipy server to `server.out_fd`; False if
        the server stopped before all of it came (nothing of it is passed on then)."""
        got = 0
        while got < size:
            if not wait_readable(self.from_fd, deadline - time.monotonic()):
                if time.monotonic() >= deadline:
                    break
                continue
            moved = os.splice(self.from_fd, server.mid_w, size - got)
            if not moved:
                break
            got += moved
        if got < size:
            while got:
                got -= os.splice(server.mid_r, server.sink, got)
            return False
        server.pass_on(size)
        return True


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
    server = _Server(st, in_fd, out_fd)
    server.serve(idle=server.reap_orphans)
    server.close()
    os._exit(0)


class _Child:
    def __init__(self, pid: int, req_fd: int, res_fd: int, folder: str | None) -> None:
        self.pid, self.req_fd, self.res_fd = pid, req_fd, res_fd
        self.folder = folder  # a directory to remove after the run (none when it has a tmpfs of its own)


def _spawn_child(st: _WorkerState, options: bytes) -> _Child:
    """Fork the next run. With run_tmpfs it mounts its own folder in its own mount namespace
    (nothing to clean up after it); otherwise it gets a fresh directory under the runs' base
    and a Landlock layer that lets it write there only."""
    import tempfile

    if options:
        folder, layer = os.path.join(st.tmp_base, namespaces.RUN_FOLDER), -1
    else:
        folder = tempfile.mkdtemp(dir=st.tmp_base)
        if st.uid is not None:
            os.chown(folder, st.uid, st.uid)
        layer = st.view.write_layer(folder) if st.view is not None else -1
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
            _child(st, req_r, res_w, folder, options, worker_pid, vm_bytes, layer)
        finally:
            os._exit(70)
    os.close(req_r)
    os.close(res_w)
    if layer >= 0:
        os.close(layer)
    return _Child(pid, req_w, res_r, None if options else folder)


def _contained(child: _Child) -> bool:
    """Whether the run forked ahead said it is ready (it writes READY once contained)."""
    return wait_readable(child.res_fd, _READY_S) and os.read(child.res_fd, 1) == READY


def _kill(child: _Child) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.kill(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _finish(child: _Child) -> tuple[int | None, bool]:
    """Stop a run, reap it, close its pipes and remove its folder: (its wait status, None if it
    was reaped already; whether its folder is gone)."""
    _kill(child)
    try:
        _, status = os.waitpid(child.pid, 0)
    except ChildProcessError:
        status = None
    for fd in (child.req_fd, child.res_fd):
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
    child.req_fd = child.res_fd = -1
    return status, child.folder is None or remove_tree(child.folder)
