"""Files: read as regular files only, within a size, with one clear error naming the file;
written whole or not at all.

Reading (`open_regular`): a path is looked at before it is opened and refused unless it is a
regular file (a FIFO would block the open and every read, a device may never end, a socket
cannot be read), then opened with O_NONBLOCK (a FIFO swapped in meanwhile cannot block the
open) and, unless asked to follow, O_NOFOLLOW; fstat on the open file decides. Anything else,
or a file over its size limit, is a `FileRefused` naming the file and what it is.
`json_lines` streams a JSON-lines file with a cap on each line and on the whole, so a large
event log is read a line at a time and an endless one is refused.

`read_json` reads a JSON file someone else wrote: JSON's own encodings are accepted (UTF-8 with
or without a byte-order mark, UTF-16 and UTF-32, as the `json` module detects them from the
first bytes); everything that can go wrong (a missing file, undecodable bytes, a syntax error,
an integer longer than Python converts, nesting deeper than the parser's recursion limit, a
file over `max_bytes`, a path that is not a regular file) becomes a `JSONFileError` (a
ValueError) whose message starts with the path.

A thread may set a deadline for its reads (`reading_deadline`): the streaming reader checks it
as it goes and raises `ReadTimedOut` past it (a page handler's time limit, web/limits.py).

Writing (`atomic_write`): a temporary file beside the target, renamed over it, so a reader
sees the old file or the new one, never half of one (a kill mid-write leaves the old one). A
write that fails is `unwritable(target, ...)`, which names the target and why, never the
temporary file; writers of their own (concepts export, the model's assembly) raise it too.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from arcmemo.core.errors import ArcmemoError

MiB = 1024 * 1024
MAX_BYTES = 512 * MiB   # of a JSON file: far above any ARC file (ARC-AGI-2's whole training set is ~40 MB)
_CHECK_EVERY = 64          # lines between two looks at the thread's deadline

_local = threading.local()


class FileRefused(ArcmemoError, OSError):
    """A file that is not a regular file, or is larger than may be read; the message names it."""


class ReadTimedOut(TimeoutError):
    """A read went on past its thread's deadline (`reading_deadline`): an internal signal, the
    page answers 503 (web/limits.py)."""


class JSONFileError(ArcmemoError, ValueError):
    """A JSON file could not be read; the message names the file and what was wrong."""


def size_text(n: int) -> str:
    """A byte count as people read it: 64 MiB, 2 GiB, 512 bytes."""
    for unit, size in (("GiB", 1024 * MiB), ("MiB", MiB), ("KiB", 1024)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _check(path: Path, st: os.stat_result, max_bytes: int | None) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(f"{path}: {_kind(st.st_mode)}, not a regular file; arcmemo reads only regular files here")
    if max_bytes is not None and st.st_size > max_bytes:
        raise FileRefused(f"{path}: {size_text(st.st_size)}, more than the {size_text(max_bytes)} "
                          "a file may have here")


def open_regular(path: str | Path, *, max_bytes: int | None, follow_symlinks: bool = True) -> IO[bytes]:
    """The file at `path` opened for reading in binary; FileRefused unless it is a regular file of
    at most `max_bytes` (and, without `follow_symlinks`, not a symbolic link). A missing file is
    the usual FileNotFoundError."""
    path = Path(path)
    _check(path, os.stat(path) if follow_symlinks else os.lstat(path), max_bytes)   # refused before opening
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise FileRefused(f"{path}: a symbolic link, not a regular file; arcmemo reads only regular "
                              "files here") from None
        raise
    try:
        _check(path, os.fstat(fd), max_bytes)       # what was opened, whatever the path named a moment ago
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | Path, *, max_bytes: int | None, follow_symlinks: bool = True) -> bytes:
    """The bytes of a regular file of at most `max_bytes` (open_regular); a file that grew past
    the limit while it was read is refused too."""
    with open_regular(path, max_bytes=max_bytes, follow_symlinks=follow_symlinks) as fh:
        data = fh.read() if max_bytes is None else fh.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise FileRefused(f"{path}: more than the {size_text(max_bytes)} a file may have here")
    return data


def json_lines(path: str | Path, *, max_line: int, max_total: int,
               follow_symlinks: bool = False) -> Iterator[dict[str, Any]]:
    """Each JSON object of a JSON-lines file, streamed. A line that is not a JSON object (the
    torn last line of a writer killed mid-append) is passed over; a line over `max_line` bytes,
    or a file over `max_total`, is a FileRefused naming the line or the file. Missing: nothing."""
    try:
        fh = open_regular(path, max_bytes=max_total, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        return
    with fh:
        check_deadline(path)
        read, number = 0, 0
        while line := fh.readline(max_line + 1):
            number += 1
            read += len(line)
            if len(line) > max_line:
                raise FileRefused(f"{path}: line {number} is longer than the {size_text(max_line)} a line "
                                  "may have here")
            if read > max_total:
                raise FileRefused(f"{path}: grew past the {size_text(max_total)} a file may have here")
            if number % _CHECK_EVERY == 0:
                check_deadline(path)
            try:
                record = json.loads(line.decode("utf-8", "replace"))
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                yield record


def read_json(path: str | Path, max_bytes: int = MAX_BYTES, *, follow_symlinks: bool = True) -> Any:
    """The JSON value of a file someone else wrote (module docstring)."""
    path = Path(path)
    try:
        raw = read_regular(path, max_bytes=max_bytes, follow_symlinks=follow_symlinks)
    except FileRefused as exc:
        raise JSONFileError(str(exc)) from None
    except OSError as exc:
        raise JSONFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise JSONFileError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise JSONFileError(f"{path}: not text in a JSON encoding (UTF-8, UTF-16 or UTF-32): "
                            f"byte {exc.start} cannot be decoded as {exc.encoding}") from None
    except RecursionError:
        raise JSONFileError(f"{path}: JSON nested too deeply to read") from None
    except ValueError as exc:   # e.g. an integer of more digits than int() converts
        raise JSONFileError(f"{path}: cannot read a value: {str(exc).split(':')[0]}") from None


@contextlib.contextmanager
def reading_deadline(seconds: float) -> Iterator[None]:
    """Reads in this thread give up `seconds` from now (ReadTimedOut), until the block ends."""
    before = getattr(_local, "deadline", None)
    _local.deadline = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.deadline = before


def check_deadline(what: object = "a read") -> None:
    """ReadTimedOut when this thread's reading deadline has passed."""
    deadline = getattr(_local, "deadline", None)
    if deadline is not None and time.monotonic() > deadline:
        raise ReadTimedOut(f"{what}: reading took longer than the time allowed")


def atomic_write(path: str | Path, data: str | bytes, *, make_parents: bool = False) -> None:
    """Write `data` (text as UTF-8) to `path` through a temporary file beside it, renamed over it:
    a reader sees the old file or the new one, never half of one. The file gets the usual
    permissions (0666 less the umask). A failure is `unwritable(path, ...)`: it names `path`,
    never the temporary file."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
    try:
        if make_parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        raise unwritable(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise unwritable(path, exc) from None
        raise


def unwritable(target: str | Path, exc: OSError) -> OSError:
    """The error a writer raises when writing `target` failed with `exc` (a writer through a
    temporary file gets the system's error about that file, a name the user never gave that
    says nothing of what is wrong: `/reports/.r.html.tmp: No such file or directory`): of the
    same class and errno, `target` as its filename (which the command line shows first) and why,
    in terms of the path the user gave: the folder that does not exist, the part of the path
    that is a file, a target that is a folder, no permission in the folder, a disk that is full
    or read-only."""
    target = Path(target)
    message = f"cannot be written: {_why_unwritable(target, exc)}"
    try:
        return type(exc)(exc.errno, message, str(target))
    except TypeError:           # a subclass with a constructor of its own
        return OSError(exc.errno, message, str(target))


def _why_unwritable(target: Path, exc: OSError) -> str:
    """Why `target` could not be written, judged from the path as it is now, else from `exc`."""
    folder = target.parent
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if not folder.exists():
        return f"the folder {folder} does not exist"
    if target.is_dir():
        return "it is a folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"no permission to write in the folder {folder}"
    if exc.errno == errno.EROFS:
        return f"the folder {folder} is on a read-only file system"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"no space left for it in {folder}"
    return exc.strerror or str(exc)


def atomic_write_json(path: str | Path, data: Any, *, make_parents: bool = True) -> None:
    """`data` as JSON, written atomically (`atomic_write`); encoded in one piece first (json.dump
    to a file encodes in Python, chunk by chunk)."""
    atomic_write(path, json.dumps(data), make_parents=make_parents)


__all__ = ["FileRefused", "JSONFileError", "MAX_BYTES", "MiB", "ReadTimedOut", "atomic_write", "atomic_write_json",
           "check_deadline", "json_lines", "open_regular", "read_json", "read_regular", "reading_deadline", "size_text",
           "unwritable"]
