"""Memory read: which concepts a solver sees for a puzzle (ps, oe) and the baselines (none, all, cheatsheet)."""

from arcmemo.selection.cheatsheet import CheatsheetUpdate, update_cheatsheet
from arcmemo.selection.dispatch import select
from arcmemo.selection.types import MODES, Selection, SelectionSettings

__all__ = ["select", "SelectionSettings", "Selection", "update_cheatsheet", "CheatsheetUpdate", "MODES"]
