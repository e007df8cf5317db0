"""What a panel of a grid picture shows: a titled grid, checked, and compared with the grid it
should equal (`expected`): the cells that differ, or that the shapes differ. layout.py places
panels for svg.py and png.py; terminal.py prints them as they are, without the layout's classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arcmemo.core.tasks import Grid, as_grid


@dataclass(frozen=True)
class Panel:
    """A titled grid; `grid` may be None (nothing there) or anything grid-like (validated here)."""

    title: str
    grid: Any
    expected: Any = None


def _shape(grid: Grid) -> str:
    return f"{len(grid)}x{len(grid[0])}"


@dataclass(frozen=True)
class Resolved:
    title: str
    grid: Grid | None
    missing: str = ""                                   # the word shown where there is no grid
    differs: frozenset[tuple[int, int]] = frozenset()
    wrong_shape: bool = False


def resolve(panel: Panel) -> Resolved:
    """The panel's grid checked, and compared with its expected grid when it has one."""
    grid = as_grid(panel.grid)
    if grid is None:
        return Resolved(panel.title, None, "no grid" if panel.grid is None else "not a grid")
    expected = as_grid(panel.expected)
    if expected is None:
        return Resolved(panel.title, grid)
    if _shape(grid) != _shape(expected):
        return Resolved(f"{panel.title} ({_shape(grid)}, expected {_shape(expected)})", grid, wrong_shape=True)
    differs = frozenset((r, c) for r, (got, want) in enumerate(zip(grid, expected))
                        for c, (p, q) in enumerate(zip(got, want)) if p != q)
    title = panel.title
    if differs:
        title += f" ({len(differs)} cell{' differs' if len(differs) == 1 else 's differ'})"
    return Resolved(title, grid, differs=differs)


Parts = list[list[Resolved | None]]


def resolve_rows(rows: Sequence[Sequence[Panel | None]]) -> Parts:
    return [[resolve(p) if p is not None else None for p in row] for row in rows]


__all__ = ["Panel", "Resolved", "Parts", "resolve", "resolve_rows"]
