"""Solver discovery: every installed distribution with an entry point in the group
`arcmemo.solvers` is a solver, found with no change to arcmemo:

    [project.entry-points."arcmemo.solvers"]
    my-solver = "my_package:MySolver"

The entry point names a class (instantiated with no arguments) or a ready instance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcmemo.core.errors import ArcmemoError

if TYPE_CHECKING:
    from importlib import metadata

    from arcmemo.solverkit.contract import Solver

ENTRY_POINT_GROUP = "arcmemo.solvers"


class PluginError(ArcmemoError, LookupError):
    """A solver could not be found or loaded; the message names it and what went wrong."""


def available_solvers() -> dict[str, metadata.EntryPoint]:
    """Installed solvers by name (first one wins if two distributions claim a name)."""
    from importlib import metadata

    found: dict[str, metadata.EntryPoint] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return dict(sorted(found.items()))


def load_solver(name: str) -> Solver:
    solvers = available_solvers()
    if name not in solvers:
        known = ", ".join(solvers) or "none installed"
        raise PluginError(f"no solver named {name!r} (entry point group {ENTRY_POINT_GROUP!r}; "
                          f"available: {known})")
    ep = solvers[name]
    try:
        obj = ep.load()
    except Exception as exc:  # an import failure inside a third-party package
        raise PluginError(f"solver {name!r} ({ep.value}) failed to import: "
                          f"{type(exc).__name__}: {exc}") from exc
    solver = obj() if isinstance(obj, type) else obj
    if not callable(getattr(solver, "solve", None)):
        raise PluginError(f"solver {name!r} ({ep.value}) has no solve(task, hint, ctx) method")
    if not getattr(solver, "name", None):
        solver.name = name
    return solver


def describe_solvers(*, load: bool = False) -> list[dict]:
    """One row per installed solver: name, entry point, distribution and status. Without
    `load`, whether its package is there (found, or an error: nothing is imported, and the
    entry points are read as core/entrypoints.py remembers them); with `load`, whether it
    imports and is a solver (ok, or the error). A solver that fails is reported, not raised."""
    from arcmemo.core.entrypoints import entry_points

    first: dict[str, dict] = {}
    for ep in entry_points(ENTRY_POINT_GROUP):
        first.setdefault(ep["name"], ep)     # as available_solvers: the first distribution wins a name
    rows = []
    for name, ep in sorted(first.items()):
        row = {"name": name, "entry_point": ep["value"], "distribution": ep["distribution"], "version": ep["version"]}
        try:
            if load:
                load_solver(name)
            else:
                _package_found(name, ep["value"])
            row["status"], row["error"] = "ok" if load else "found", None
        except PluginError as exc:
            row["status"], row["error"] = "error", str(exc)
        rows.append(row)
    return rows


def _package_found(name: str, value: str) -> None:
    """PluginError unless the top-level package of the entry point's module (`value`,
    `module:attribute`) can be found (a look on the import path: importing it is `load_solver`'s job)."""
    from importlib.util import find_spec

    package = value.partition(":")[0].partition("[")[0].strip().split(".")[0]
    try:
        found = find_spec(package) is not None
    except (ImportError, ValueError) as exc:
        raise PluginError(f"solver {name!r} ({value}): {package} cannot be looked up: {exc}") from None
    if not found:
        raise PluginError(f"solver {name!r} ({value}) failed to import: ModuleNotFoundError: "
                          f"no module named {package!r}")
