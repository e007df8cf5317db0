"""What the parent, worker and child processes of the sandbox share: limits, the
result shape, the framing of messages on their pipes and the words of the outcomes that
more than one of them writes."""

from __future__ import annotations

import json
import os
import select
import struct
from typing import Any

ERROR_KINDS = ("syntax", "exception", "timeout", "memory", "invalid_output", "crash", "missing_entry")
MAX_SIDE = 30
READINGS = ("arcmemo", "released")    # how a run executes a program and reads its return (released.py)
NO_GRID = "no ARC grid equals"        # said of a return the released code scores, and always as wrong
MAX_SOURCE_CHARS = 500_000
MAX_MESSAGE_CHARS = 4_000
DEFAULT_MAX_STDOUT = 8_000
PR_SET_PDEATHSIG = 1
DATA = 1 << 31          # a frame whose length has this bit set carries result bytes, not JSON
READY = b"R"            # what a forked run writes on its result pipe once it is contained


class NotAGrid(Exception):
    """What a program returned is no output grid; the message says why (an invalid_output)."""


def wait_readable(fd: int, timeout_s: float) -> bool:
    """poll() rather than select(): works for descriptors above 1024 in busy parents."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(max(0, int(timeout_s * 1000) + 1)))


def frame(obj: Any) -> bytes:
    data = json.dumps(obj, separators=(",", ":")).encode("utf-8")
    return struct.pack(">I", len(data)) + data


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def timeout_message(timeout_s: float) -> str:
    return f"no result within {timeout_s:g} s (wall clock); the run was stopped"


def not_run_message(first: int, kind: str) -> str:
    return f"not run: the program's process ended on grid {first} ({kind})"


def keep_fds(*fds: int) -> tuple[int, ...]:
    """Move `fds` to 3, 4, ... and close every other descriptor from 3 up."""
    import fcntl

    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 1000) for fd in fds]
    for i, fd in enumerate(high):
        os.dup2(fd, 3 + i)
    os.closerange(3 + len(fds), 1 << 16)
    return tuple(range(3, 3 + len(fds)))


def outcome_dict(ok: bool, output=None, error=None, message: str = "", stdout: str = "") -> dict:
    return {"ok": ok, "output": output, "error": error, "message": message, "stdout": stdout}


def describe_syntax_error(exc: BaseException, filename: str) -> str:
    if isinstance(exc, SyntaxError):
        where = f"{filename} line {exc.lineno}" if exc.lineno else filename
        text = (exc.text or "").rstrip()
        msg = f"{where}: {type(exc).__name__}: {exc.msg}"
        if text:
            msg += f"\n    {text[:200]}"
        return msg
    return f"{filename}: cannot compile: {type(exc).__name__}: {exc}"[:MAX_MESSAGE_CHARS]
