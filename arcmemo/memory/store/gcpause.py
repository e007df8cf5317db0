"""Pausing the cycle collector while a listing or a document builds many objects (standard
library only: the read-only commands' lean path imports it)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Building a large document makes millions of objects the cycle collector would scan again and again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


__all__ = ["gc_paused"]
