"""The one base of arcmemo's user-facing errors, and the rule that tells a user's mistake from a bug.

An `ArcmemoError` means the input is wrong (a bad setting, file, name or request, an endpoint
that refuses, a plugin that does not load): its message says what was wrong and where, and the
command line prints it as one line, with no traceback. Every other exception is a bug (or an
internal signal caught before it reaches the user) and keeps its traceback. A user-facing
error class derives from `ArcmemoError` and keeps any standard base its callers catch it by
(`class ConfigError(ArcmemoError, ValueError)`); tests/test_errors.py walks every exception
class in arcmemo, so a new one cannot silently become a traceback.

The sandbox imports nothing of arcmemo (tests/test_import_rules.py), so its errors cannot
derive from `ArcmemoError`: its own base is named here once, by module and class (`LEAF_BASES`),
and looked up among the modules already imported (an exception can only come from a loaded
module, so the check imports nothing).
"""

from __future__ import annotations

import sys


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


__all__ = ["ArcmemoError", "LEAF_BASES", "is_user_error", "user_error_types"]
