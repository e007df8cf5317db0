"""The concept store: tables, the `Memory` API, the concept schema, rendering, import/export, graph views.

`StoreError` is imported eagerly (it is tiny, and the CLI needs it to print errors);
everything else on first use, so importing this package does not load the database
libraries.
"""

from __future__ import annotations

import importlib

from arcmemo.memory.errors import StoreError

_LAZY = {"Memory": "store.memory", "MergeResult": "store.memory", "WriteRecord": "store.records",
         "Concept": "schema.concept", "Revision": "store.revision",
         "CustomType": "store.models", "Solution": "store.models"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"arcmemo.memory.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'arcmemo.memory' has no attribute {name!r}")


__all__ = ["StoreError", *_LAZY]
