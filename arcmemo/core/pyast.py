"""`ast.parse` behind one process-wide lock.

CPython 3.11 builds an AST's Python objects with a recursion counter that threads parsing at
the same time can corrupt: a parse then fails with `SystemError: AST constructor recursion
depth mismatch` (python/cpython#106905, fixed in later releases). arcmemo parses programs
and helpers on worker threads (tasks in flight, the probe, consolidation), so every parse
goes through here. A parse takes well under a millisecond; the lock costs nothing measurable.
"""

from __future__ import annotations

import ast
import threading

_lock = threading.Lock()


def parse(source: str, mode: str = "exec") -> ast.AST:
    """`ast.parse(source, mode=mode)`, one thread at a time."""
    with _lock:
        return ast.parse(source, mode=mode)


__all__ = ["parse"]
