"""Landlock (Linux 5.13+, no privilege needed): the filesystem a run may touch.

The worker builds one ruleset (`FilesystemView`) from the paths `view.py` chooses; each
forked run applies it to itself and then adds a second layer that lets it write only in
its own directory. Layers only ever narrow, and nothing a process does afterwards (root
included) widens them. Where the kernel supports it the same ruleset also refuses TCP
(ABI 4) and signals or abstract unix sockets reaching outside the run (ABI 6).
"""

from __future__ import annotations

import ctypes
import os
import struct

# The three Landlock system calls have the same numbers on every architecture.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_MAKE_AND_REMOVE = sum(1 << b for b in range(4, 13))  # remove dir/file, make char/dir/reg/sock/fifo/block/sym
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
READ = EXECUTE | READ_FILE | READ_DIR
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # the rights a rule on a file may carry
_NET_TCP = 1 | 2           # bind, connect (ABI 4)
_SCOPE = 1 | 2             # abstract unix sockets, signals (ABI 6)

_libc = ctypes.CDLL(None, use_errno=True)


class LandlockError(OSError):
    pass


def abi() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    version = _libc.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    return max(int(version), 0)


def _handled_fs(version: int) -> int:
    rights = READ | WRITE_FILE | _MAKE_AND_REMOVE
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def _create(handled_fs: int, handled_net: int = 0, scoped: int = 0) -> int:
    if scoped:
        attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)
    elif handled_net:
        attr = struct.pack("=QQ", handled_fs, handled_net)
    else:
        attr = struct.pack("=Q", handled_fs)
    fd = _libc.syscall(_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), 0)
    if fd < 0:
        raise LandlockError(ctypes.get_errno(), "landlock_create_ruleset failed")
    return fd


def _allow(ruleset: int, path: str, rights: int) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        if not os.path.isdir(path):
            rights &= _FILE_ONLY
        rule = struct.pack("=Qi", rights, fd)
        if _libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.c_char_p(rule), 0) != 0:
            raise LandlockError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)


def _restrict(ruleset: int) -> None:
    if _libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
        raise LandlockError(ctypes.get_errno(), "landlock_restrict_self failed")


class FilesystemView:
    """A ruleset: `read` paths (directories with everything below them, or files) may be
    read and executed, `list_only` directories listed (their entries are covered by their
    own rules or stay closed), `devices` read and written, and everything below `writable`
    used freely. Anything else on the filesystem cannot be opened at all."""

    def __init__(self, version: int, *, read: list[str], list_only: list[str], devices: list[str],
                 writable: list[str]) -> None:
        self.version = version
        self.handled = _handled_fs(version)
        net = _NET_TCP if version >= 4 else 0
        scope = _SCOPE if version >= 6 else 0
        self.fd = _create(self.handled, net, scope)
        try:
            for path in read:
                _allow(self.fd, path, READ)
            for path in list_only:
                _allow(self.fd, path, READ_DIR)
            for path in devices:
                _allow(self.fd, path, READ_FILE | WRITE_FILE | (TRUNCATE & self.handled))
            for path in writable:
                _allow(self.fd, path, self.handled)
        except BaseException:
            os.close(self.fd)
            raise

    def write_layer(self, workdir: str) -> int:
        """(In the worker, before the fork) a ruleset in which only `workdir` may be written;
        reads are left to the view."""
        writes = self.handled & ~READ
        layer = _create(writes)
        try:
            _allow(layer, workdir, writes)
        except BaseException:
            os.close(layer)
            raise
        return layer

    def restrict(self, layer: int = -1) -> None:
        """(In a forked run, no_new_privs set) enter the view, then the run's `write_layer` if it
        has one (a run with a tmpfs of its own needs none: no other folder is in its view)."""
        _restrict(self.fd)
        if layer >= 0:
            _restrict(layer)
