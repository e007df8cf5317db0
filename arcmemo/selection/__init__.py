"""Memory read: which concepts a solver sees for a puzzle (ps, oe) and the baselines (none, all, cheatsheet).

`select` and the cheatsheet curator are loaded on first use, so the command line can read
the mode list (`MODES`) without importing the steps.
"""

from arcmemo.selection.types import MODES, Selection, SelectionSettings

_LAZY = {"select": "arcmemo.selection.dispatch", "update_cheatsheet": "arcmemo.selection.cheatsheet",
         "CheatsheetUpdate": "arcmemo.selection.cheatsheet"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["select", "SelectionSettings", "Selection", "update_cheatsheet", "CheatsheetUpdate", "MODES"]
