"""Solver discovery: every installed distribution with an entry point in the group
`arcmemo.solvers` is a solver, found with no change to arcmemo:

    [project.entry-points."arcmemo.solvers"]
    my-solver = "my_package:MySolver"

The entry point names a class (instantiated with no arguments) or a ready instance. Discovery
is arcmemo's one plugin discovery (core/plugins.py: arcmemo's own solvers are its
distribution's, and no other distribution can take their names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arcmemo.core import plugins
from arcmemo.core.plugins import Plugin, PluginError

if TYPE_CHECKING:
    from arcmemo.solverkit.contract import Solver

ENTRY_POINT_GROUP = "arcmemo.solvers"
SOLVERS = plugins.Kind(ENTRY_POINT_GROUP, "solver")


def available_solvers() -> dict[str, Plugin]:
    """Installed solvers by name: arcmemo's own first, then the others, each by name."""
    return dict(plugins.found(SOLVERS).plugins)


def load_solver(name: str) -> Solver:
    solver: Any = plugins.load(SOLVERS, name)
    if not callable(getattr(solver, "solve", None)):
        raise PluginError(f"solver {name!r} ({plugins.plugin(SOLVERS, name).value}) has no solve(task, hint, ctx) "
                          "method")
    if not getattr(solver, "name", None):
        solver.name = name
    return solver


def describe_solvers(*, load: bool = False) -> list[dict[str, Any]]:
    """One row per solver entry point: name, entry point, distribution and status. Without
    `load`, whether its package is there (found, or an error: nothing is imported); with `load`,
    whether it imports and is a solver (ok, or the error). A solver that fails, or an entry
    point refused its name, is reported, not raised."""
    installed = plugins.found(SOLVERS)
    rows = []
    for name, entry in installed.plugins.items():
        row = _row(entry)
        try:
            if load:
                load_solver(name)
            else:
                plugins.check_findable(SOLVERS, entry)
            row["status"], row["error"] = "ok" if load else "found", None
        except PluginError as exc:
            row["status"], row["error"] = "error", str(exc)
        rows.append(row)
    rows += [{**_row(entry), "status": "error", "error": f"not used: {why}"} for entry, why in installed.refused]
    return rows


def _row(entry: Plugin) -> dict[str, Any]:
    return {"name": entry.name, "entry_point": entry.value, "distribution": entry.distribution,
            "version": entry.version}


__all__ = ["ENTRY_POINT_GROUP", "SOLVERS", "PluginError", "available_solvers", "describe_solvers", "load_solver"]
