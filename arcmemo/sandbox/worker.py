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
arcmemo numbers its requests ("run"); the worker answers a run with data frames, then {"end":
why the run's stream ended, "run", "status": its wait status if it was gone by then}, sent at
once: a run is reaped later, when the worker is idle. arcmemo asks {"reap": run} only when it
needs the status (a run that ended without all its results) and gets {"run", "status"}.
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
LEVELS = ("minimal", "partial", "full")  # what `Sandbox.isolation["level"]` may say, weakest first
FULL = ("pidns", "netns", "private_tmp", "run_tmpfs", "landlock", "seccomp")  # the layers "full" needs
_MIN_LANDLOCK_ABI = 3  # truncate(2) is covered from ABI 3 on (Linux 6.2)


class _WorkerState:
    def __init__(self) -> None:
        self.libc = None
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
    covered: list[str] = []  # the worker's private tmpfs over /tmp, /dev/shm, ...
    if iso["mountns"] and namespaces.make_mounts_private():
        if iso["pidns"]:
            reason = namespaces.mount_proc()
            if reason:
                off["proc"] = reason
        covered, reason = namespaces.cover_private_dirs(namespaces.runtime_paths())
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
    if iso["private_tmp"]:  # set up (expose_runtime stages in /tmp): now no run may write there
        reason = namespaces.make_read_only([p for p in covered if iso["run_tmpfs"] or p != "/tmp"])
        if reason:
            iso["private_tmp"], off["private_tmp"] = False, reason
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
    it is given anything. Requests arcmemo marks as using scipy go to `heavy`.

    A finished run is reaped once it is gone, or when the worker is idle, never while
    arcmemo waits for an answer; arcmemo asks for its wait status when it needs it (a run
    that ended without all its results). Where runs have no tmpfs of their own, a run's
    folder is removed before the next request is taken, and a worker that cannot remove it
    refuses every later program (arcmemo replaces it and sends the program elsewhere)."""

    def __init__(self, st: _WorkerState, in_fd: int, out_fd: int, heavy: _Heavy | None = None) -> None:
        self.st, self.in_fd, self.out_fd, self.heavy = st, in_fd, out_fd, heavy
        self.options = namespaces.run_folder_options(st.uid) if st.isolation["run_tmpfs"] else b""
        self.mid_r, self.mid_w = os.pipe()  # result bytes pass through here on their way out
        self.sink = os.open(os.devnull, os.O_WRONLY)
        self.ready: _Child | None = _spawn_child(st, self.options)
        self.exiting: list[_Child] = []  # stopped after their run, reaped when the worker is idle
        self.statuses: dict[int, int | None] = {}  # run -> wait status, of runs reaped before it was asked for
        self.dirty = ""  # why this worker can no longer give a run a clean state

    def serve(self, idle: Callable[[], None] | None = None) -> None:
        while True:
            got = _read_frame(self.in_fd, lambda: self.idle(idle))
            if got is None:
                return
            header = got[1]
            if "reap" in header:
                self._answer_reap(header)
            elif header.get("scipy") and self.heavy is not None:
                self.heavy.forward(header, self)
            else:
                self._run(header)

    def _run(self, header: dict) -> None:
        child, why = self._take_ready() if not self.dirty else (None, self.dirty)
        if child is None:
            self.discard(header["size"])
            self.refuse(header, why)
            return
        if not self._hand_over(child, header["size"]):
            self._finish(child)
            self.refuse(header, "the run's process ended before it had all of its program")
            return
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
            why = f"a run's process could not contain itself (wait status {self._finish(child)})"
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

    def refuse(self, header: dict, why: str) -> None:
        """Answer a request whose program never ran (its body already read past): arcmemo
        replaces this worker and sends the program to another."""
        write_all(self.out_fd, frame({"end": "broken", "why": why, "run": header["run"], "status": None}))

    def _supervise(self, child: _Child, header: dict) -> None:
        """Pass the run's result bytes on until it closes its end of the pipe, its time is up
        (n grids x their timeout, from now: nothing the run writes moves it), or it wrote more
        than its grids' results can take; then stop it and say why (with its wait status if
        it is gone already)."""
        deadline = time.monotonic() + header["grids"] * header["timeout_s"] + HARD_GRACE_S
        room, reason = header["room"], "eof"
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
        child.run = header["run"]
        if child.folder is not None:  # a folder to remove before the next run: reap now
            status = self._finish(child)
        else:
            status = child.reap(block=False)
            if child.pid:
                self.exiting.append(child)
        write_all(self.out_fd, frame({"end": reason, "run": child.run, "status": status}))

    def _finish(self, child: _Child) -> int | None:
        """Stop and reap a run and remove its folder (a worker that cannot is dirty from then on)."""
        _kill(child)
        status = child.reap(block=True)
        if child.folder is not None and not remove_tree(child.folder):
            self.dirty = f"the folder of an earlier run could not be removed ({child.folder})"
        return status

    def _answer_reap(self, header: dict) -> None:
        """arcmemo asks how a run ended: its wait status (None if unknown here or on the scipy server)."""
        run = header["reap"]
        for child in [c for c in self.exiting if c.run == run]:
            self.statuses[run] = child.reap(block=True)
            self.exiting.remove(child)
        if run in self.statuses or self.heavy is None:
            write_all(self.out_fd, frame({"run": run, "status": self.statuses.pop(run, None)}))
        else:
            self.heavy.forward(header, self)

    def idle(self, more: Callable[[], None] | None = None) -> None:
        """No request waiting: reap the runs still exiting, keeping their statuses a while."""
        for child in self.exiting:
            self.statuses[child.run] = child.reap(block=True)
        self.exiting.clear()
        while len(self.statuses) > 64:  # statuses nobody asked for
            self.statuses.pop(next(iter(self.statuses)))
        if more is not None:
            more()

    def pass_on(self, size: int) -> None:
        """Send the `size` result bytes waiting in the middle pipe to `out_fd` as one data frame."""
        write_all(self.out_fd, struct.pack(">I", DATA | size))
        while size:
            size -= os.splice(self.mid_r, self.out_fd, size)

    def reap_orphans(self, others: tuple[int, ...] = ()) -> None:
        """As process 1 of a PID namespace: wait for orphans (the runs of a scipy server that
        died), leaving alone its own runs and `others`."""
        mine = {c.pid for c in [self.ready, *self.exiting] if c is not None}
        while os.getpid() == 1:
            try:
                found = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if found is None or found.si_pid in mine or found.si_pid in others:
                return
            os.waitpid(found.si_pid, 0)

    def close(self) -> None:
        for child in [self.ready, *self.exiting]:
            if child is not None:
                self._finish(child)
        self.ready, self.exiting = None, []


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
        """Hand a request (a run, or a question about how one ended) to the scipy server and pass
        its frames on to `server.out_fd`, through to the one that answers it. If the server died
        before it had the whole of a run's request, the program never ran (refused, to be sent
        elsewhere); if it died later, the run's grids without a result say so."""
        if not self._alive():
            self.stop()
            self._start()
        left = header.get("size", 0)
        try:
            write_all(self.to_fd, frame(header))
            while left:
                left -= os.splice(server.in_fd, self.to_fd, left)
        except OSError:
            server.discard(left)
            self.stop()
            self._start()
            if "reap" in header:
                write_all(server.out_fd, frame({"run": header["reap"], "status": None}))
            else:
                server.refuse(header, "the sandbox's scipy fork server died before the run began")
            return
        backstop = time.monotonic() + header.get("grids", 0) * header.get("timeout_s", 0) + HARD_GRACE_S + 30
        while True:
            got = _read_frame(self.from_fd, deadline=backstop)
            if got is None or (got[1] is None and not self._relay(got[0], server, backstop)):
                break
            if got[1] is not None:
                write_all(server.out_fd, frame(got[1]))
                if "status" in got[1]:  # a run's end frame, or the answer about one
                    return
        self.stop()
        self._start()
        run = header.get("run", header.get("reap"))
        answer = {"run": run, "status": None} if "reap" in header else {"end": "server_died", "run": run, "status": None}
        write_all(server.out_fd, frame(answer))

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
        self.run = -1  # arcmemo's number for the request it ran

    def reap(self, block: bool) -> int | None:
        """Close the pipes; wait for the process (if `block`, else only if it is gone): its wait
        status, None while it is still exiting (pid stays set) or if it was reaped already."""
        for fd in (self.req_fd, self.res_fd):
            if fd >= 0:
                os.close(fd)
        self.req_fd = self.res_fd = -1
        try:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            pid, status = self.pid, None
        if not pid:
            return None
        self.pid = 0
        return status


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
    if not child.pid:  # reaped already: its number may be another process's now
        return
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.kill(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
