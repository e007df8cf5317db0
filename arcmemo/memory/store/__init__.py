"""The store: every read and write of concepts, revisions, solutions, usage and write failures.

`Memory` (memory.py) is the only API that writes; the lean read path of the read-only commands
is reader.py over reads.py, both running sql.py's statements. The package lends memory.py's names on first use, so
`from arcmemo.memory.store import Memory` works and importing a sibling module (reads.py)
does not load the database libraries."""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module("arcmemo.memory.store.memory"), name)
