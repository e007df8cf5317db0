"""The one base of arcmemo's user-facing errors, and the rule that tells a user's mistake from a bug.

An `ArcmemoError` means the input is wrong (a bad setting, file, name or request, an endpoint
that refuses, a plugin that does not load): its message says what was wrong and where, and the
command line prints it as one line, with no traceback. Every other exception is a bug (or an
internal signal caught before it reaches the user) and keeps its traceback. A user-facing
error class derives from `ArcmemoError` and keeps any standard base its callers catch it by
(`class ConfigError(ArcmemoError, ValueError)`); tests/test_errors.py walks every exception
class in arcmemo, so a new one cannot silently become a traceback.

A file arcmemo cannot write is an OSError naming the file as the user gave it, with why
(`unwritable`): every writer writes through a temporary file beside its target, renamed over
it, and the system's own error names the temporary file (`/reports/.r.html.tmp: No such file
or directory`), a name the user never gave that says nothing of what is wrong.

The sandbox imports nothing of arcmemo (tests/test_import_rules.py), so its errors cannot
derive from `ArcmemoError`: its own base is named here once, by module and class (`LEAF_BASES`),
and looked up among the modules already imported (an exception can only come from a loaded
module, so the check imports nothing).
"""

from __future__ import annotations

import errno
import sys
from pathlib import Path


class ArcmemoError(Exception):
    """A user-facing error: the message says what was wrong and where."""


# The user-facing error bases of the packages that may import nothing of arcmemo (leaves in
# tests/test_import_rules.py), by (module, class name); every other package derives from ArcmemoError.
LEAF_BASES: tuple[tuple[str, str], ...] = (
    ("arcmemo.sandbox.pool", "SandboxError"),      # the sandbox cannot start, or isolates less than required
)


def user_error_types() -> tuple[type[BaseException], ...]:
    """ArcmemoError and the leaf packages' bases that are loaded: `isinstance(exc, user_error_types())`
    is the rule."""
    found: list[type[BaseException]] = [ArcmemoError]
    for module, name in LEAF_BASES:
        kind = getattr(sys.modules.get(module), name, None)
        if isinstance(kind, type) and issubclass(kind, BaseException):
            found.append(kind)
    return tuple(found)


def is_user_error(exc: BaseException) -> bool:
    """Whether `exc` is a user's mistake (one line, no traceback) rather than a bug."""
    return isinstance(exc, user_error_types())


def unwritable(target: str | Path, exc: OSError) -> OSError:
    """The error a writer raises when writing `target` failed with `exc`: of the same class and
    errno, `target` as its filename (which the command line shows first) and why in terms of the
    path the user gave: the folder that does not exist, the part of the path that is a file, a
    target that is a folder, no permission in the folder, a disk that is full or read-only."""
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


__all__ = ["ArcmemoError", "LEAF_BASES", "is_user_error", "unwritable", "user_error_types"]
