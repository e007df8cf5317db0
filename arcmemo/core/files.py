"""Files arcmemo writes for itself: what to say when one cannot be written.

Every writer writes whole or not at all, through a temporary file beside the target that is
renamed over it. When that fails, the system's error names the temporary file
(`/reports/.r.html.tmp: No such file or directory`), a name the user never gave and that
says nothing of what is wrong. `unwritable(target, exc)` is the error each writer raises
instead: of the same class, naming the target (`exc.filename`, which the command line shows
first) and why, in terms of the path the user gave: the folder that does not exist, the part
of the path that is a file, a target that is a folder, no permission in the folder, a disk
that is full or read-only.
"""

from __future__ import annotations

import errno
from pathlib import Path

_NO_PERMISSION = {errno.EACCES, errno.EPERM}
_FULL = {errno.ENOSPC, errno.EDQUOT}


def unwritable(target: str | Path, exc: OSError) -> OSError:
    """The error to raise when writing `target` failed with `exc` (module docstring)."""
    target = Path(target)
    message = f"cannot be written: {why_unwritable(target, exc)}"
    try:
        error = type(exc)(exc.errno, message, str(target))
    except TypeError:           # a subclass with a constructor of its own
        error = OSError(exc.errno, message, str(target))
    return error


def why_unwritable(target: Path, exc: OSError) -> str:
    """Why `target` could not be written, judged from the path as it is now, else from `exc`."""
    folder = target.parent
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if not folder.exists():
        return f"the folder {folder} does not exist"
    if target.is_dir():
        return "it is a folder"
    if exc.errno in _NO_PERMISSION:
        return f"no permission to write in the folder {folder}"
    if exc.errno == errno.EROFS:
        return f"the folder {folder} is on a read-only file system"
    if exc.errno in _FULL:
        return f"no space left for it in {folder}"
    return exc.strerror or str(exc)


__all__ = ["unwritable", "why_unwritable"]
