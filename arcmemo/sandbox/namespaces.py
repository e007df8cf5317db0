"""Linux namespaces for a worker: its own PID, network, mount and IPC namespaces, inside a
user namespace when not root (an ordinary user may create one, and gets the capabilities
to set the others up inside it only).

In its own PID namespace the worker's fork server is process 1: runs see only the
processes of their own worker (never arcmemo, its environment or other workers), and
cannot kill the server (process 1 ignores signals it has no handler for). With a fresh
/proc mounted, /proc shows only those processes too. The network namespace has no
interface up. The mount namespace gets private empty tmpfs over /tmp, /var/tmp,
/dev/shm, /run/lock and the user's home, with the Python runtime's own directories bound
back where they live under one of those, so runs import as before but see nothing else
there.

Each run then starts in a mount namespace of its own with a new, empty tmpfs as its working
folder (`enter_run_folder`), mounted on the one directory of a read-only tmpfs
(`make_run_base`): no run sees another's folder, none can leave anything in a place a later
run could reach, and nothing is cleaned up: the folder goes with the run's namespace.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT = 1, 2, 4, 8, 32
_MS_BIND, _MS_REC, _MS_PRIVATE = 4096, 16384, 1 << 18
_MNT_DETACH = 2
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_CAP_VERSION_3 = 0x20080522
RUN_FOLDER = "run"       # the directory of the run base that each run covers with its own tmpfs
RUN_TMPFS = "size=16m,nr_inodes=8192"  # a run's folder: RLIMIT_FSIZE's 16 MB, a deep tree's worth of inodes
COVERED = (("/tmp", b"mode=1777,size=64m"), ("/var/tmp", b"mode=1777,size=16m"),
           ("/dev/shm", b"mode=1777,size=16m"), ("/run/lock", b"mode=1777,size=1m"))

_libc = ctypes.CDLL(None, use_errno=True)


def _err(what: str) -> str:
    return f"{what}: {os.strerror(ctypes.get_errno())}"


def enter(isolation: dict, off: dict) -> None:
    """Unshare the namespaces this process may (recording each in `isolation`, with the
    reason in `off` when refused). With a PID namespace the caller continues as process 1
    of it, in a forked child: this process then only waits for it and exits with it."""
    uid, gid = os.getuid(), os.getgid()
    if uid != 0:
        if _libc.unshare(CLONE_NEWUSER) != 0:
            reason = _err("no user namespace (an ordinary user needs one for the others)")
            for name in ("pidns", "netns", "private_tmp"):
                off[name] = reason
            return
        # the same uid and gid inside, nothing else mapped
        for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"{uid} {uid} 1"),
                           ("/proc/self/gid_map", f"{gid} {gid} 1")):
            with open(path, "w") as f:
                f.write(text)
        isolation["userns"] = True
    for name, flag in (("netns", CLONE_NEWNET), ("mountns", CLONE_NEWNS), ("pidns", CLONE_NEWPID)):
        if _libc.unshare(flag) == 0:
            isolation[name] = True
        else:
            off[name] = _err(f"unshare({name})")
    _libc.unshare(CLONE_NEWIPC)  # System V and POSIX message queues of the host: best effort
    if isolation.get("pidns"):
        _become_process_one()


def _become_process_one() -> None:
    """Fork into the new PID namespace; the parent stays outside, waits and mirrors the exit."""
    pid = os.fork()
    if pid == 0:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        return
    os.closerange(0, 1 << 16)  # the child holds the pipes to arcmemo
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def outside_pid() -> int:
    """This process's pid as the parent's namespace numbers it (call before mount_proc)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("NSpid:"):
                return int(line.split()[1])
    return os.getpid()


def make_mounts_private() -> bool:
    return _libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0


def mount_proc() -> str | None:
    """A /proc of this PID namespace only; None when done, else why not."""
    if _libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None) != 0:
        return _err("mounting /proc")
    return None


def runtime_paths() -> list[str]:
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


def cover_private_dirs(runtime: list[str]) -> tuple[list[str], str | None]:
    """Empty tmpfs over /tmp, /var/tmp, /dev/shm, /run/lock and the home directory, keeping
    the runtime's directories: (the directories covered, None when /tmp and the home are
    covered, else why not)."""
    home = pwd.getpwuid(os.getuid()).pw_dir
    targets = list(COVERED)
    if home and home != "/" and os.path.isdir(home):
        targets.append((os.path.realpath(home), b"mode=0755,size=1m"))
    covered = []
    for target, options in targets:
        if not os.path.isdir(target):
            continue
        if mount_tmpfs_keeping(target, options, runtime):
            covered.append(target)
        elif target == "/tmp" or target not in dict(COVERED):
            return covered, f"cannot cover {target} with a private tmpfs"
    return covered, None


def make_read_only(paths: list[str]) -> str | None:
    """Make the mounts at `paths` (the worker's covers, once it has set up what it keeps there)
    read-only, so that a run can write its own folder only, even where no filesystem view
    (Landlock) says so: nothing a run writes there (POSIX shared memory is files in /dev/shm)
    outlives it or escapes its memory limit. None when done, else why not."""
    flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
    for path in paths:
        if _libc.mount(None, path.encode(), None, flags, None) != 0:
            return _err(f"making {path} read-only")
    return None


def mount_tmpfs_keeping(target: str, options: bytes, keep: list[str]) -> bool:
    """Cover `target` (/tmp, ...) with an empty tmpfs, then bind the runtime directories that
    live under it (a venv or checkout in /tmp) back in place, so runs still import from them
    but see nothing else of the old `target`. The kept directories are reached through open
    descriptors (/proc/self/fd/N), which stay valid after the cover hides their paths."""
    inside = [p for p in keep if p.startswith(target.rstrip("/") + "/")]
    if target in keep:
        return False
    fds = [(p, os.open(p, os.O_RDONLY | os.O_DIRECTORY)) for p in inside]
    try:
        if _libc.mount(b"tmpfs", target.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) != 0:
            return False
        for p, fd in fds:
            os.makedirs(p, exist_ok=True)
            cur = p
            while cur != target:
                os.chmod(cur, 0o755)
                cur = os.path.dirname(cur)
            if _libc.mount(f"/proc/self/fd/{fd}".encode(), p.encode(), None, _MS_BIND | _MS_REC, None) != 0:
                _libc.umount2(target.encode(), _MNT_DETACH)  # give the worker its old view back
                return False
        return True
    finally:
        for _, fd in fds:
            os.close(fd)


def make_run_base(base: str) -> str | None:
    """Cover the (empty) directory `base` with a small read-only tmpfs holding only the empty
    directory RUN_FOLDER, on which each run mounts its own folder; None when done, else why
    not. Read-only, so a run can neither leave a file there nor change its modes, whatever
    its uid; the filesystem view's rule for runs' writes sits on its root (Landlock skips a
    mount point on its way up, so the rule cannot sit on RUN_FOLDER itself)."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if _libc.mount(b"tmpfs", base.encode(), b"tmpfs", flags, b"mode=0711,size=64k,nr_inodes=16") != 0:
        return _err(f"mounting the runs' base at {base}")
    try:
        os.mkdir(os.path.join(base, RUN_FOLDER), 0o755)
    except OSError as exc:
        _libc.umount2(base.encode(), _MNT_DETACH)
        return f"creating the runs' folder in {base}: {exc.strerror}"
    if _libc.mount(None, base.encode(), None, _MS_REMOUNT | _MS_RDONLY | flags, None) != 0:
        reason = _err(f"making the runs' base {base} read-only")
        _libc.umount2(base.encode(), _MNT_DETACH)
        return reason
    return None


def unmount(path: str) -> None:
    _libc.umount2(path.encode(), _MNT_DETACH)


def run_folder_options(uid: int | None) -> bytes:
    """The mount options of a run's tmpfs: private to the run's uid (its own, or the user's)."""
    owner = f",uid={uid},gid={uid}" if uid is not None else ""
    return f"mode=0700{owner},{RUN_TMPFS}".encode()


def enter_run_folder(folder: bytes, options: bytes) -> bool:
    """(In a forked run, before it gives up its privileges) a mount namespace of its own with a
    new, empty tmpfs on `folder`; False if the kernel refused either."""
    return (_libc.unshare(CLONE_NEWNS) == 0
            and _libc.mount(b"tmpfs", folder, b"tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, options) == 0)


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


def expose_runtime(can_mount: bool) -> str | None:
    """Let a child with its own uid import from Python's directories even when they live in a
    private directory other users cannot enter: cover the blocked ancestor with an empty
    tmpfs and bind-mount only the runtime directories back. Returns None when every runtime
    directory is readable by other users, else why not."""
    import tempfile

    needed = runtime_paths()
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
        stage = tempfile.mkdtemp(prefix=".arcmemo-stage-", dir="/tmp")
        staged = []
        for i, p in enumerate(paths):
            d = os.path.join(stage, str(i))
            os.mkdir(d)
            if _libc.mount(p.encode(), d.encode(), None, _MS_BIND | _MS_REC, None) != 0:
                return f"cannot bind-mount {p}"
            staged.append((d, p))
        if _libc.mount(b"tmpfs", top.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=0755,size=1m") != 0:
            return f"cannot cover {top}"
        for d, p in staged:
            os.makedirs(p, mode=0o755, exist_ok=True)
            cur = p
            while cur != top:
                os.chmod(cur, 0o755)
                cur = os.path.dirname(cur)
            if _libc.mount(d.encode(), p.encode(), None, _MS_BIND | _MS_REC, None) != 0:
                _libc.umount2(top.encode(), _MNT_DETACH)
                return f"cannot bind-mount {p} back"
    for p in needed:
        blocked = _first_blocked(p)
        if blocked is not None:
            return f"{blocked} is not readable by other users"
    return None


def drop_capabilities() -> str | None:
    """Give up every capability (those a user namespace grants its creator included) and
    forbid core dumps and same-user ptrace of this process; forked runs inherit both."""
    _libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if _libc.capset(header, data) != 0:
        return _err("capset")
    return None


def check_capabilities() -> str | None:
    """(In a worker that keeps its user namespace's capabilities to give each run a mount
    namespace and folder of its own) forbid core dumps and same-user ptrace of this process,
    which runs inherit, and check that capabilities can be set: each run gives up all of
    them with `drop_capabilities` before anything else. None when they can, else why not."""
    _libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if _libc.capget(header, data) != 0 or _libc.capset(header, data) != 0:
        return _err("capset")
    return None
