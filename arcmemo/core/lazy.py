"""A package's public names imported on first use (PEP 562): `from arcmemo.scoring import
run_score` loads runscore.py alone, not every module the package's names come from, so a
command that needs one part of a package does not start up the rest."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, where: dict[str, list[str]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, whose names are those of `where` (module ->
    the names it defines), each imported from its module the first time it is asked for."""
    module_of = {name: module for module, names in where.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_of[name]), name)
        setattr(sys.modules[package], name, value)      # asked once
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(module_of))

    return __getattr__, __dir__


__all__ = ["lazy_exports"]
