"""A seccomp filter for forked runs, compiled once by libseccomp (the system library, via
ctypes) and loaded by each run with its own pid filled in.

Refused with EPERM (the program sees an ordinary OSError): creating processes or threads,
exec, sockets, ptrace and reading other processes' memory, signals to anyone but itself,
namespaces and mounts, io_uring, bpf, perf, keyrings, kernel modules, handles to files by
inode, System V and POSIX IPC, memory file descriptors (memfd: shared memory outside the run's
memory limit), and changing the priority, limits or scheduling of other processes. System calls
of another architecture (32-bit entry points, x32) kill the process. Everything else is allowed:
the filesystem view (Landlock, namespaces) decides what files a run can reach.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct

_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ATTR_ACT_BADARCH = 2
_CMP_NE = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_SELF = 0x5EC0DE1D  # stands for the run's own pid until a run loads the filter
_libc = ctypes.CDLL(None, use_errno=True)

DENIED = (
    "fork", "vfork", "clone", "execve", "execveat",
    "socket", "socketpair",
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp",
    "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "tkill",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount",
    "fspick", "move_mount", "open_tree", "mount_setattr",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open", "userfaultfd",
    "keyctl", "add_key", "request_key", "open_by_handle_at", "name_to_handle_at",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "syslog", "quotactl", "iopl", "ioperm",
    "setpriority", "ioprio_set",  # PRIO_USER / IOPRIO_WHO_USER would reach every process of the user
    "shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop",
    "semctl", "mq_open",  # the host's System V and POSIX IPC objects
    # shared memory held by a descriptor, not mapped, so outside RLIMIT_AS (issue 37: 59 memfds
    # of 16 MB held 1 GB under memory_mb=64); a run's files live on its folder's 16 MB tmpfs
    "memfd_create", "memfd_secret",
)
UNSUPPORTED = ("clone3",)  # ENOSYS, so the C library falls back to clone (refused)
FIRST_ARG_ZERO = ("kill", "prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam",
                  "sched_setattr", "migrate_pages", "move_pages")  # pid 0: the caller itself
FIRST_ARG_SELF = ("tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")  # raise() and abort() use tgkill


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _errno_action(code: int) -> int:
    return 0x00050000 | code


def _library():
    name = ctypes.util.find_library("seccomp")
    if name is None:
        raise OSError("libseccomp is not installed")
    lib = ctypes.CDLL(name, use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


class Filter:
    """The compiled filter (classic BPF) and where the run's own pid goes in it."""

    def __init__(self) -> None:
        lib = _library()
        ctx = lib.seccomp_init(_ALLOW)
        if not ctx:
            raise OSError("seccomp_init failed")
        try:
            self._check(lib.seccomp_attr_set(ctx, _ATTR_ACT_BADARCH, _KILL_PROCESS), "badarch")
            for names, action, arg, value in (
                (DENIED, _errno_action(errno.EPERM), None, 0),
                (UNSUPPORTED, _errno_action(errno.ENOSYS), None, 0),
                (FIRST_ARG_ZERO, _errno_action(errno.EPERM), 0, 0),
                (FIRST_ARG_SELF, _errno_action(errno.EPERM), 0, _SELF),
            ):
                for name in names:
                    nr = lib.seccomp_syscall_resolve_name(name.encode())
                    if nr == -1:  # unknown to this libseccomp: nothing to refuse
                        continue
                    if arg is None:
                        self._check(lib.seccomp_rule_add_array(ctx, action, nr, 0, None), name)
                    else:  # refused unless the argument is `value`
                        cmp = _ArgCmp(arg, _CMP_NE, value, 0)
                        self._check(lib.seccomp_rule_add_array(ctx, action, nr, 1, ctypes.byref(cmp)), name)
            self.program = _export(lib, ctx)
        finally:
            lib.seccomp_release(ctx)
        self.self_slots = [i + 4 for i in range(0, len(self.program), 8)
                           if struct.unpack_from("=I", self.program, i + 4)[0] == _SELF]
        if not self.self_slots:
            raise OSError("the compiled seccomp filter has no place for the run's pid")
        # everything a run touches to load the filter is made here, before the fork: in a
        # freshly forked process every first touch of a page costs a fault
        self._buffer = ctypes.create_string_buffer(self.program, len(self.program))
        self._prog = ctypes.byref(_Fprog(len(self.program) // 8, ctypes.addressof(self._buffer)))

    @staticmethod
    def _check(rc: int, what: str) -> None:
        if rc != 0:
            raise OSError(-rc, f"libseccomp refused the rule for {what}")

    def load(self) -> None:
        """In a forked run with no_new_privs set: this filter, with the caller's pid as 'itself'."""
        pid = os.getpid()
        for offset in self.self_slots:
            struct.pack_into("=I", self._buffer, offset, pid)
        if _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, self._prog, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "loading the seccomp filter failed")


def set_no_new_privs() -> None:
    """Set once in the worker; every run forked from it inherits it (and cannot undo it)."""
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")


def _export(lib, ctx) -> bytes:
    fd = os.memfd_create("seccomp-filter", os.MFD_CLOEXEC)
    try:
        Filter._check(lib.seccomp_export_bpf(ctx, fd), "export")
        size = os.lseek(fd, 0, os.SEEK_END)
        return os.pread(fd, size, 0)
    finally:
        os.close(fd)
