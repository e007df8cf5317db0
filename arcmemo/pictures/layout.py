"""Where every part of a grid picture goes: one layout, drawn alike by svg.py and png.py.

A picture is rows of panels (panels.py: a titled grid, checked against the grid it should
equal). A cell that differs from the expected grid is marked with an × in ink that reads on
the cell's colour (the colour stays visible around it), or, when the shapes differ, a dashed
frame is drawn around the grid. A panel without a grid (no prediction, or one that is not a
valid grid) keeps its place as an empty dashed box, so attempts and answers stay side by side.

`fitted` picks the cell size for a width: the largest up to MAX_CELL (and no grid longer than
MAX_GRID_PX) at which the panels fit side by side, cutting rows into bands of fewer panels until
cells are at least READABLE_CELL.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arcmemo.core.tasks import Grid
from arcmemo.pictures.palette import COLOURS, DIFF_FRAME, ink_on
from arcmemo.pictures.panels import Panel, Parts, Resolved, resolve_rows

CHAR_WIDTH = 0.6    # average width of a sans-serif character, in font sizes (titles are laid out, not measured)
TITLE_FONT = 13     # px, whatever the cell size: a title is a label, the grid is the picture
MARGIN = 4
GAP = 20            # between panels, and between rows
LINES_FROM = 6      # cells smaller than this (thumbnails) are drawn without grid lines
MAX_CELL = 32
READABLE_CELL = 20
MAX_GRID_PX = 640   # a fitted grid's longest side: a 30x30 grid needs no more than readable cells


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
class Cross:
    """The mark of a cell that differs from the expected grid: an × from (x0, y0) to (x1, y1)."""

    x0: float
    y0: float
    x1: float
    y1: float
    ink: str
    width: float


@dataclass(frozen=True)
class Frame:
    """A dashed box drawn just outside a grid whose shape is wrong."""

    x: float
    y: float
    w: float
    h: float
    colour: str
    width: float


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

    @property
    def line_width(self) -> float:
        """Grid lines: thin, but never thinner than a pixel; none on thumbnail-sized cells."""
        return 0.0 if self.cell < LINES_FROM else max(1.0, self.cell / 20)

    def cells(self) -> Iterator[tuple[int, int, int, int, int]]:
        """(x, y, value, row, col) of every cell, row by row."""
        for r, row in enumerate(self.grid):
            for c, value in enumerate(row):
                yield self.x + c * self.cell, self.y + r * self.cell, value, r, c

    def lines(self) -> Iterator[tuple[int, int, int, int]]:
        """(x0, y0, x1, y1) of the grid lines, the frame included (none without line_width)."""
        if not self.line_width:
            return
        for r in range(self.rows + 1):
            y = self.y + r * self.cell
            yield self.x, y, self.x + self.width, y
        for c in range(self.cols + 1):
            x = self.x + c * self.cell
            yield x, self.y, x, self.y + self.height

    def crosses(self) -> Iterator[Cross]:
        """Two strokes per differing cell, across its middle half, in ink that reads on its colour."""
        inset, width = self.cell / 4, max(1.5, self.cell / 9)
        for r, c in sorted(self.differs):
            x, y = self.x + c * self.cell, self.y + r * self.cell
            ink = ink_on(COLOURS[self.grid[r][c]])
            yield Cross(x + inset, y + inset, x + self.cell - inset, y + self.cell - inset, ink, width)
            yield Cross(x + inset, y + self.cell - inset, x + self.cell - inset, y + inset, ink, width)

    def frame(self) -> Frame | None:
        """The dashed frame of a grid whose shape differs from the expected one."""
        if not self.wrong_shape:
            return None
        pad = 3
        return Frame(self.x - pad, self.y - pad, self.width + 2 * pad, self.height + 2 * pad, DIFF_FRAME, 2)


@dataclass(frozen=True)
class Scene:
    width: int
    height: int
    grids: tuple[PlacedGrid, ...]
    texts: tuple[Text, ...]
    placeholders: tuple[Placeholder, ...]


def place(parts: Parts, cell: int, *, columns: bool = False, titles: bool = True) -> Scene:
    """Place resolved panels: each row left to right, titles above their grids, rows top to bottom.

    A None in a row leaves its place empty. With `columns=True` the panels line up in
    columns (each as wide as its widest panel), e.g. train inputs above their outputs."""
    if cell < 2:
        raise ValueError(f"cell size must be at least 2 pixels, got {cell}")
    title_height = round(TITLE_FONT * 1.6) if titles else 0
    margin, gap = (MARGIN, GAP) if titles else (1, max(4, 2 * cell))

    def size(part: Resolved | None) -> tuple[int, int]:
        if part is None:
            return 0, 0
        grid_w, grid_h = (len(part.grid[0]) * cell, len(part.grid) * cell) if part.grid else (3 * cell, 3 * cell)
        title_w = round(len(part.title) * CHAR_WIDTH * TITLE_FONT) if titles else 0
        return max(grid_w, title_w), title_height + grid_h

    widths = [[size(part)[0] for part in row] for row in parts]
    if columns:
        shared = [max(row[j] for row in widths if j < len(row)) for j in range(max(map(len, widths), default=0))]
        widths = [shared[:len(row)] for row in widths]
    grids, texts, placeholders = [], [], []
    y, width = margin, 0
    for row, row_widths in zip(parts, widths):
        x, row_height = margin, 0
        for part, panel_w in zip(row, row_widths):
            if part is not None:
                if titles:
                    texts.append(Text(x, y + TITLE_FONT, part.title, TITLE_FONT))
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


def lay_out(rows: Sequence[Sequence[Panel | None]], cell: int = 12, *, columns: bool = False,
            titles: bool = True) -> Scene:
    """Place the panels at a given cell size (see `place`)."""
    return place(resolve_rows(rows), cell, columns=columns, titles=titles)


def largest_cell(parts: Parts, width: int, height: int | None = None, *, columns: bool = False,
                 titles: bool = True, largest: int = MAX_CELL) -> int:
    """The largest cell size (2 to `largest`) at which the picture fits `width` (and `height`)."""
    for cell in range(largest, 2, -1):
        scene = place(parts, cell, columns=columns, titles=titles)
        if scene.width <= width and (height is None or scene.height <= height):
            return cell
    return 2


def bands(parts: Parts, per_band: int, together: int = 1) -> Parts:
    """Each group of `together` rows cut into bands of at most `per_band` panels, cut in step
    (a puzzle's inputs above its outputs stay paired); empty rows dropped."""
    out: Parts = []
    for start in range(0, len(parts), together):
        group = parts[start:start + together]
        for first in range(0, max(map(len, group), default=0), per_band):
            out += [row[first:first + per_band] for row in group if row[first:first + per_band]]
    return out


def fitted(rows: Sequence[Sequence[Panel | None]], width: int, *, columns: bool = False, together: int = 1,
           largest: int = MAX_CELL, readable: int = READABLE_CELL) -> Scene:
    """The panels at the largest cell size that fits `width`, in as few bands as keep cells at
    least `readable` (one panel per band when nothing else does)."""
    parts = resolve_rows(rows)
    widest = max(1, max(map(len, parts), default=1))
    longest = max((max(len(p.grid), len(p.grid[0])) for row in parts for p in row if p and p.grid), default=1)
    largest = min(largest, max(readable, MAX_GRID_PX // longest))
    for per_band in range(widest, 0, -1):
        banded = bands(parts, per_band, together)
        cell = largest_cell(banded, width, columns=columns, largest=largest)
        if cell >= readable or per_band == 1:
            return place(banded, cell, columns=columns)
    raise AssertionError("unreachable: one panel per band always returns")
