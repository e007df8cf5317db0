"""arc_helpers: grid and object primitives for ARC programs.

This file is shipped verbatim into the sandbox as the importable module `arc_helpers`
(`from arc_helpers import *`), so it must stay self-contained: numpy and scipy only, no
imports from arcmemo. The expert-agent views use the same functions, so the objects a
model reads in an object view are exactly what `get_objects` returns to its program.

Conventions (also stated in the prompt):
- A grid is a 2-D numpy int array indexed [row, col]; functions accept lists too and
  always return new arrays (inputs are never modified).
- Colours are ints 0-9; any `value`/`color` argument may also be given as the view letter
  ('.' = 0, 'a' = 1, ..., 'i' = 9).
- Coordinates are (row, col) tuples, zero-based; ranges are inclusive at both ends.
- An object is a dict: 'tl' (row, col) of its top-left corner, 'grid' its tight-fitted
  grid where -1 marks cells that are not part of the object; with more_info also 'size'
  (rows, cols), 'cell_count' and 'shape' (1 = part of the object, 0 = not).

Every public function's docstring has a one-line summary and an `Example:` line
(`call -> result`); the solver builds the prompt's helper list from them and the tests
evaluate every example.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

BACKGROUND = 0
EMPTY = -1                      # object-grid cells that are not part of the object
LETTERS = ".abcdefghi"          # view letter of colour k is LETTERS[k]

__all__ = [
    "get_size", "empty_grid", "get_objects", "get_pixel_coords", "crop_grid", "tight_fit",
    "rotate_clockwise", "horizontal_flip", "vertical_flip", "replace", "replace_color",
    "fill_value", "fill_row", "fill_col", "fill_rect", "fill_between_coords", "fill_object",
    "get_object_color", "change_object_color", "shift_object", "combine_object",
    "object_contains_color", "on_same_line", "same_shape", "touches_border",
    "most_common_color", "least_common_color", "count_color",
    "BACKGROUND", "EMPTY",
]


# -- internal --------------------------------------------------------------------------

def _color(value) -> int:
    """An int colour from an int (or numpy int) or a view letter."""
    if isinstance(value, str):
        if len(value) == 1 and value in LETTERS:
            return LETTERS.index(value)
        raise ValueError(f"unknown colour letter {value!r} (use '.', 'a'..'i' or an int 0-9)")
    return int(value)


def _grid(grid) -> np.ndarray:
    arr = np.array(grid, dtype=int)
    if arr.ndim != 2:
        raise ValueError(f"expected a 2-D grid, got an array of shape {arr.shape}")
    return arr.copy()


def _pos(pos) -> tuple[int, int]:
    r, c = pos
    return int(r), int(c)


def _make_object(tl, grid, more_info: bool = True) -> dict:
    grid = np.array(grid, dtype=int)
    obj = {"tl": _pos(tl), "grid": grid}
    if more_info:
        mask = grid != EMPTY
        obj["size"] = (int(grid.shape[0]), int(grid.shape[1]))
        obj["cell_count"] = int(mask.sum())
        obj["shape"] = mask.astype(int)
    return obj


def _object_cells(obj) -> list[tuple[int, int, int]]:
    """(row, col, colour) of every cell of the object, in absolute grid coordinates."""
    grid = np.array(obj["grid"], dtype=int)
    r0, c0 = _pos(obj["tl"])
    return [(r0 + int(r), c0 + int(c), int(grid[r, c])) for r, c in zip(*np.nonzero(grid != EMPTY))]


def _from_mask(arr: np.ndarray, mask: np.ndarray, more_info: bool) -> dict:
    rows, cols = np.nonzero(mask)
    r0, r1, c0, c1 = rows.min(), rows.max(), cols.min(), cols.max()
    sub = np.where(mask[r0:r1 + 1, c0:c1 + 1], arr[r0:r1 + 1, c0:c1 + 1], EMPTY)
    return _make_object((r0, c0), sub, more_info)


# -- grids -----------------------------------------------------------------------------

def get_size(grid) -> tuple[int, int]:
    """Return (rows, cols) of a grid.
    Example: get_size([[1, 2, 3], [4, 5, 6]]) -> (2, 3)
    """
    arr = _grid(grid)
    return int(arr.shape[0]), int(arr.shape[1])


def empty_grid(rows, cols, value=BACKGROUND) -> np.ndarray:
    """Return a new rows x cols grid filled with `value` (background by default).
    Example: empty_grid(2, 3) -> [[0, 0, 0], [0, 0, 0]]
    """
    return np.full((int(rows), int(cols)), _color(value), dtype=int)


def get_objects(grid, diag=False, by_row=False, by_col=False, by_color=False,
                multicolor=False, more_info=True, background=BACKGROUND) -> list[dict]:
    """Return the objects of a grid, sorted by top-left (row, col): connected non-background cells.
    mono-colour by default (multicolor=True joins touching cells of any colour); diag=True also
    connects diagonal neighbours; by_row / by_col split objects at row / column boundaries;
    by_color makes all cells of one colour a single object.
    Example: get_objects([[1, 1, 0], [0, 0, 2]], more_info=False) -> [{'tl': (0, 0), 'grid': [[1, 1]]}, {'tl': (1, 2), 'grid': [[2]]}]
    """
    arr = _grid(grid)
    bg = _color(background)
    fg = arr != bg
    masks: list[np.ndarray] = []
    if by_color:
        masks = [arr == c for c in sorted(set(arr[fg].tolist()))]
    else:
        structure = np.ones((3, 3), dtype=bool) if diag else None
        if by_row:
            structure = np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0]], dtype=bool)
        elif by_col:
            structure = np.array([[0, 1, 0], [0, 1, 0], [0, 1, 0]], dtype=bool)
        groups = [fg] if multicolor else [arr == c for c in sorted(set(arr[fg].tolist()))]
        for group in groups:
            labels, n = ndimage.label(group, structure=structure)
            masks.extend(labels == k for k in range(1, n + 1))
    objects = [_from_mask(arr, m, more_info) for m in masks if m.any()]
    objects.sort(key=lambda o: (o["tl"], get_object_color(o)))
    return objects


def get_pixel_coords(grid, background=BACKGROUND) -> dict:
    """Return {colour: [(row, col), ...]} for every non-background colour, most frequent colour first.
    Example: get_pixel_coords([[1, 1], [0, 3]]) -> {1: [(0, 0), (0, 1)], 3: [(1, 1)]}
    """
    arr = _grid(grid)
    bg = _color(background)
    coords: dict[int, list[tuple[int, int]]] = {}
    for r, c in zip(*np.nonzero(arr != bg)):
        coords.setdefault(int(arr[r, c]), []).append((int(r), int(c)))
    order = sorted(coords, key=lambda k: (-len(coords[k]), k))
    return {k: coords[k] for k in order}


def crop_grid(grid, tl, br) -> np.ndarray:
    """Return the part of the grid from top-left tl to bottom-right br (inclusive).
    Example: crop_grid([[1, 1, 2], [0, 1, 2]], (0, 0), (1, 1)) -> [[1, 1], [0, 1]]
    """
    arr = _grid(grid)
    (r0, c0), (r1, c1) = _pos(tl), _pos(br)
    return arr[max(r0, 0):r1 + 1, max(c0, 0):c1 + 1].copy()


def tight_fit(grid, background=BACKGROUND) -> np.ndarray:
    """Return the smallest sub-grid containing every non-background cell (outer blank rows/cols removed).
    Example: tight_fit([[0, 0, 0], [0, 1, 0], [0, 0, 0]]) -> [[1]]
    """
    arr = _grid(grid)
    rows, cols = np.nonzero(arr != _color(background))
    if rows.size == 0:
        return np.zeros((0, 0), dtype=int)
    return arr[rows.min():rows.max() + 1, cols.min():cols.max() + 1].copy()


def rotate_clockwise(grid, degree=90) -> np.ndarray:
    """Return the grid rotated clockwise by 90, 180 or 270 degrees.
    Example: rotate_clockwise([[1, 2], [4, 5]], 90) -> [[4, 1], [5, 2]]
    """
    degree = int(degree)
    if degree % 90:
        raise ValueError(f"rotate_clockwise: degree must be a multiple of 90, got {degree}")
    return np.rot90(_grid(grid), -(degree // 90) % 4).copy()


def horizontal_flip(grid) -> np.ndarray:
    """Return the grid mirrored left-right (each row reversed).
    Example: horizontal_flip([[1, 2, 3], [4, 5, 6]]) -> [[3, 2, 1], [6, 5, 4]]
    """
    return _grid(grid)[:, ::-1].copy()


def vertical_flip(grid) -> np.ndarray:
    """Return the grid mirrored top-bottom (row order reversed).
    Example: vertical_flip([[1, 2, 3], [4, 5, 6]]) -> [[4, 5, 6], [1, 2, 3]]
    """
    return _grid(grid)[::-1, :].copy()


def replace(grid, grid_1, grid_2) -> np.ndarray:
    """Return the grid with every occurrence of sub-grid grid_1 replaced by grid_2 (same shape), scanning row by row.
    Example: replace([[1, 0, 1], [1, 1, 0]], [[1, 1]], [[3, 3]]) -> [[1, 0, 1], [3, 3, 0]]
    """
    arr = _grid(grid)
    old, new = _grid(grid_1), _grid(grid_2)
    if old.shape != new.shape:
        raise ValueError(f"replace: grid_1 {old.shape} and grid_2 {new.shape} must have the same shape")
    h, w = old.shape
    out = arr.copy()
    taken = np.zeros(arr.shape, dtype=bool)
    for r in range(arr.shape[0] - h + 1):
        for c in range(arr.shape[1] - w + 1):
            if not taken[r:r + h, c:c + w].any() and np.array_equal(arr[r:r + h, c:c + w], old):
                out[r:r + h, c:c + w] = new
                taken[r:r + h, c:c + w] = True
    return out


def replace_color(grid, old, new) -> np.ndarray:
    """Return the grid with every cell of colour `old` changed to `new`.
    Example: replace_color([[1, 2], [2, 0]], 2, 5) -> [[1, 5], [5, 0]]
    """
    arr = _grid(grid)
    arr[arr == _color(old)] = _color(new)
    return arr


# -- filling ---------------------------------------------------------------------------

def fill_value(grid, pos, value) -> np.ndarray:
    """Return the grid with the cell at pos (row, col) set to value.
    Example: fill_value([[0, 1], [0, 1]], (1, 1), 2) -> [[0, 1], [0, 2]]
    """
    arr = _grid(grid)
    r, c = _pos(pos)
    arr[r, c] = _color(value)
    return arr


def fill_row(grid, row_num, value, start_col=0, end_col=None) -> np.ndarray:
    """Return the grid with row row_num set to value from start_col to end_col (inclusive; default whole row).
    Example: fill_row([[1, 1], [3, 1]], 0, 2) -> [[2, 2], [3, 1]]
    """
    arr = _grid(grid)
    end = arr.shape[1] - 1 if end_col is None else min(int(end_col), arr.shape[1] - 1)
    arr[int(row_num), max(int(start_col), 0):end + 1] = _color(value)
    return arr


def fill_col(grid, col_num, value, start_row=0, end_row=None) -> np.ndarray:
    """Return the grid with column col_num set to value from start_row to end_row (inclusive; default whole column).
    Example: fill_col([[1, 1], [3, 1]], 0, 2) -> [[2, 1], [2, 1]]
    """
    arr = _grid(grid)
    end = arr.shape[0] - 1 if end_row is None else min(int(end_row), arr.shape[0] - 1)
    arr[max(int(start_row), 0):end + 1, int(col_num)] = _color(value)
    return arr


def fill_rect(grid, tl, br, value) -> np.ndarray:
    """Return the grid with the rectangle from tl to br (inclusive) set to value.
    Example: fill_rect([[1, 1, 1], [3, 1, 1]], (0, 1), (1, 2), 2) -> [[1, 2, 2], [3, 2, 2]]
    """
    arr = _grid(grid)
    (r0, c0), (r1, c1) = _pos(tl), _pos(br)
    arr[max(min(r0, r1), 0):max(r0, r1) + 1, max(min(c0, c1), 0):max(c0, c1) + 1] = _color(value)
    return arr


def fill_between_coords(grid, coord_1, coord_2, value) -> np.ndarray:
    """Return the grid with the straight line from coord_1 to coord_2 (both ends included) set to value.
    Rows, columns and 45-degree diagonals are exact; other slopes are rounded to the nearest cells.
    Example: fill_between_coords([[0, 0, 0], [0, 0, 0], [0, 0, 0]], (0, 0), (2, 2), 4) -> [[4, 0, 0], [0, 4, 0], [0, 0, 4]]
    """
    arr = _grid(grid)
    (r0, c0), (r1, c1) = _pos(coord_1), _pos(coord_2)
    steps = max(abs(r1 - r0), abs(c1 - c0))
    v = _color(value)
    for k in range(steps + 1):
        t = k / steps if steps else 0.0
        r, c = int(round(r0 + t * (r1 - r0))), int(round(c0 + t * (c1 - c0)))
        if 0 <= r < arr.shape[0] and 0 <= c < arr.shape[1]:
            arr[r, c] = v
    return arr


def fill_object(grid, obj, align=False) -> np.ndarray:
    """Return the grid with the object's cells painted at its 'tl' (cells off the grid are dropped).
    With align=True return just the object's own grid (its size, non-object cells as background).
    Example: fill_object([[0, 0, 0], [0, 0, 0]], {'tl': (0, 1), 'grid': [[3], [3]]}) -> [[0, 3, 0], [0, 3, 0]]
    """
    if align:
        sub = np.array(obj["grid"], dtype=int)
        return np.where(sub == EMPTY, BACKGROUND, sub)
    arr = _grid(grid)
    for r, c, v in _object_cells(obj):
        if 0 <= r < arr.shape[0] and 0 <= c < arr.shape[1]:
            arr[r, c] = v
    return arr


# -- objects ---------------------------------------------------------------------------

def get_object_color(obj) -> int:
    """Return the object's colour (its most common colour if it has several; ties go to the smaller number).
    Example: get_object_color({'tl': (0, 0), 'grid': [[2, -1], [2, 5]]}) -> 2
    """
    cells = [v for _, _, v in _object_cells(obj)]
    if not cells:
        return BACKGROUND
    values, counts = np.unique(cells, return_counts=True)
    return int(values[np.argmax(counts)])


def change_object_color(obj, value) -> dict:
    """Return a copy of the object with every one of its cells recoloured to value.
    Example: change_object_color({'tl': (0, 0), 'grid': [[1, -1]]}, 2) -> {'tl': (0, 0), 'grid': [[2, -1]]}
    """
    grid = np.array(obj["grid"], dtype=int)
    grid = np.where(grid == EMPTY, EMPTY, _color(value))
    return _make_object(obj["tl"], grid, more_info="size" in obj)


def shift_object(obj, d_row, d_col) -> dict:
    """Return a copy of the object moved by d_row rows and d_col columns (only 'tl' changes).
    Example: shift_object({'tl': (1, 1), 'grid': [[4]]}, -1, 2) -> {'tl': (0, 3), 'grid': [[4]]}
    """
    r, c = _pos(obj["tl"])
    return _make_object((r + int(d_row), c + int(d_col)), obj["grid"], more_info="size" in obj)


def combine_object(obj_1, obj_2) -> dict:
    """Return one object made of both objects' cells; where they overlap obj_2 wins.
    Example: combine_object({'tl': (0, 0), 'grid': [[1, 1], [1, -1]]}, {'tl': (1, 1), 'grid': [[6]]}) -> {'tl': (0, 0), 'grid': [[1, 1], [1, 6]]}
    """
    cells = _object_cells(obj_1) + _object_cells(obj_2)
    if not cells:
        return _make_object((0, 0), np.zeros((0, 0), dtype=int), more_info="size" in obj_1)
    r0, c0 = min(r for r, _, _ in cells), min(c for _, c, _ in cells)
    r1, c1 = max(r for r, _, _ in cells), max(c for _, c, _ in cells)
    grid = np.full((r1 - r0 + 1, c1 - c0 + 1), EMPTY, dtype=int)
    for r, c, v in cells:                       # obj_2's cells come last, so they win
        grid[r - r0, c - c0] = v
    return _make_object((r0, c0), grid, more_info="size" in obj_1 or "size" in obj_2)


# -- conditions ------------------------------------------------------------------------

def object_contains_color(obj, value) -> bool:
    """Return True if any cell of the object has colour value.
    Example: object_contains_color({'tl': (0, 0), 'grid': [[1, 2]]}, 2) -> True
    """
    v = _color(value)
    return any(cv == v for _, _, cv in _object_cells(obj))


def on_same_line(coord_1, coord_2, line_type="row") -> bool:
    """Return True if the two (row, col) coordinates share a 'row', a 'col' or a 'diag' (either diagonal).
    Example: on_same_line((1, 1), (3, 3), 'diag') -> True
    """
    (r0, c0), (r1, c1) = _pos(coord_1), _pos(coord_2)
    if line_type == "row":
        return r0 == r1
    if line_type == "col":
        return c0 == c1
    if line_type == "diag":
        return abs(r0 - r1) == abs(c0 - c1)
    raise ValueError(f"on_same_line: line_type must be 'row', 'col' or 'diag', got {line_type!r}")


def same_shape(obj_1, obj_2) -> bool:
    """Return True if the two objects cover the same pattern of cells (colours and position ignored).
    Example: same_shape({'tl': (0, 0), 'grid': [[1, 1]]}, {'tl': (4, 2), 'grid': [[3, 3]]}) -> True
    """
    a = np.array(obj_1["grid"], dtype=int) != EMPTY
    b = np.array(obj_2["grid"], dtype=int) != EMPTY
    return a.shape == b.shape and bool(np.array_equal(a, b))


def touches_border(obj, grid) -> bool:
    """Return True if any cell of the object lies on the outer edge of the grid.
    Example: touches_border({'tl': (1, 1), 'grid': [[5]]}, [[0, 0, 0], [0, 5, 0], [0, 0, 0]]) -> False
    """
    rows, cols = get_size(grid)
    return any(r in (0, rows - 1) or c in (0, cols - 1) for r, c, _ in _object_cells(obj))


def count_color(grid, value) -> int:
    """Return how many cells of the grid have colour value.
    Example: count_color([[1, 2], [2, 2]], 2) -> 3
    """
    return int((_grid(grid) == _color(value)).sum())


def most_common_color(grid, background=BACKGROUND) -> int:
    """Return the most frequent non-background colour (ties: smaller number; background if none).
    Example: most_common_color([[0, 0, 3], [3, 4, 0]]) -> 3
    """
    coords = get_pixel_coords(grid, background)
    return next(iter(coords), _color(background))


def least_common_color(grid, background=BACKGROUND) -> int:
    """Return the least frequent non-background colour (ties: smaller number; background if none).
    Example: least_common_color([[0, 0, 3], [3, 4, 0]]) -> 4
    """
    coords = get_pixel_coords(grid, background)
    if not coords:
        return _color(background)
    return min(coords, key=lambda k: (len(coords[k]), k))
