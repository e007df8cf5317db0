"""Memory read steps: which concepts a solver sees for a puzzle (ps, oe) and the baselines (none, all).

These are pure steps (memory, model, puzzle -> Selection). Which one a run uses is a memory
method's choice (arcmemo.methods: `select` by method name, the methods' names).
"""

from arcmemo.selection.types import Selection, SelectionSettings

__all__ = ["SelectionSettings", "Selection"]
