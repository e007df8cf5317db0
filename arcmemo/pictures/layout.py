"""Where every part of a grid picture goes: one layout, drawn alike by svg.py and png.py.

A picture is rows of panels; a panel is a titled grid. A panel given the grid it should
equal (`expected`) marks the cells that differ from it, or, when the shapes differ, the
whole grid. A panel without a grid (no prediction, or one that is not a valid grid)
keeps its place as an empty dashed box, so attempts and answers stay side by side.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arcmemo.core.tasks import Grid, as_grid
from arcmemo.pictures.palette import DIFF_INNER, DIFF_OUTER

CHAR_WIDTH = 0.6  # average width of a sans-serif character, in font sizes (titles are laid out, not measured)


@dataclass(frozen=True)
class Panel:
    """A titled grid; `grid` may be None (nothing there) or anything grid-like (validated here)."""

    title: str
    grid: Any
    expected: Any = None


@dataclass(frozen=True)
class Text:
    x: int
    y: int          # the baseline
    text: str
    size: int


@dataclass(frozen=True)
class Placeholder:
    """Where a grid would be: a dashed box with a word inside."""

    x: int
    y: int
    width: int
    height: int
    text: str


@dataclass(frozen=True)
class Outline:
    """A box drawn as a stroke of `width` just inside (x, y, width, height)."""

    x: int
    y: int
    w: int
    h: int
    colour: str
    width: int


@dataclass(frozen=True)
class PlacedGrid:
    x: int
    y: int
    cell: int
    grid: Grid
    differs: frozenset[tuple[int, int]] = frozenset()
    wrong_shape: bool = False

    @property
    def rows(self) -> int:
        return len(self.grid)

    @property
    def cols(self) -> int:
        return len(self.grid[0])

    @property
    def width(self) -> int:
        return self.cols * self.cell

    @property
    def height(self) -> int:
        return self.rows * self.cell

    def cells(self) -> Iterator[tuple[int, int, int, int, int]]:
        """(x, y, value, row, col) of every cell, row by row."""
        for r, row in enumerate(self.grid):
            for c, value in enumerate(row):
                yield self.x + c * self.cell, self.y + r * self.cell, value, r, c

    def lines(self) -> Iterator[tuple[int, int, int, int]]:
        """(x0, y0, x1, y1) of the grid lines, the frame included."""
        for r in range(self.rows + 1):
            y = self.y + r * self.cell
            yield self.x, y, self.x + self.width, y
        for c in range(self.cols + 1):
            x = self.x + c * self.cell
            yield x, self.y, x, self.y + self.height

    def outlines(self) -> Iterator[Outline]:
        """The two-tone outlines (black outside, white inside) of each differing cell, or of the
        whole grid when its shape is wrong; the middle of a marked cell keeps its colour."""
        w = max(1, self.cell // 6)
        boxes = [(self.x, self.y, self.width, self.height)] if self.wrong_shape else [
            (self.x + c * self.cell, self.y + r * self.cell, self.cell, self.cell) for r, c in sorted(self.differs)]
        for x, y, width, height in boxes:
            yield Outline(x, y, width, height, DIFF_OUTER, w)
            yield Outline(x + w, y + w, width - 2 * w, height - 2 * w, DIFF_INNER, w)


@dataclass(frozen=True)
class Scene:
    width: int
    height: int
    grids: tuple[PlacedGrid, ...]
    texts: tuple[Text, ...]
    placeholders: tuple[Placeholder, ...]


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
    return Resolved(panel.title, grid, differs=differs)


def lay_out(rows: Sequence[Sequence[Panel | None]], cell: int = 12, *, columns: bool = False) -> Scene:
    """Place the panels: each row left to right, titles above their grids, rows top to bottom.

    A None in a row leaves its place empty. With `columns=True` the panels line up in
    columns (each as wide as its widest panel), e.g. train inputs above their outputs."""
    if cell < 2:
        raise ValueError(f"cell size must be at least 2 pixels, got {cell}")
    font = max(11, round(cell * 0.9))
    title_height = round(font * 1.6)
    margin, gap = max(8, cell), max(16, 2 * cell)
    resolved = [[resolve(p) if p is not None else None for p in row] for row in rows]

    def size(part: Resolved | None) -> tuple[int, int]:
        if part is None:
            return 0, 0
        grid_w, grid_h = (len(part.grid[0]) * cell, len(part.grid) * cell) if part.grid else (3 * cell, 3 * cell)
        return max(grid_w, round(len(part.title) * CHAR_WIDTH * font)), title_height + grid_h

    widths = [[size(part)[0] for part in row] for row in resolved]
    if columns:
        shared = [max(row[j] for row in widths if j < len(row)) for j in range(max(map(len, widths), default=0))]
        widths = [shared[:len(row)] for row in widths]
    grids, texts, placeholders = [], [], []
    y, width = margin, 0
    for row, row_widths in zip(resolved, widths):
        x, row_height = margin, 0
        for part, panel_w in zip(row, row_widths):
            if part is not None:
                texts.append(Text(x, y + font, part.title, font))
                top = y + title_height
                if part.grid is None:
                    placeholders.append(Placeholder(x, top, 3 * cell, 3 * cell, part.missing))
                else:
                    grids.append(PlacedGrid(x, top, cell, part.grid, part.differs, part.wrong_shape))
                row_height = max(row_height, size(part)[1])
            x += panel_w + gap
        width = max(width, x - gap + margin)
        y += row_height + gap
    return Scene(max(width, 2 * margin), max(y - gap + margin, 2 * margin), tuple(grids), tuple(texts),
                 tuple(placeholders))
