"""Views of a grid as text: the abstraction spaces an expert agent reads.

- grid view: the whole grid, one row per line, colours as letters ('.' = 0 background,
  'a' = 1 ... 'i' = 9) so the model does not do arithmetic on colour numbers;
- object view: the objects of one ObjectVariant, each with its top-left corner, tight
  grid ('$' = not part of the object), size, cell count and shape ('x' = part of it);
- pixel view: each non-background colour with the coordinates of its cells;
- difference view (per input/output pair): what changed, cell by cell or, when the size
  changes, how the two grids relate.
All coordinates are (row, col), zero-based, like the helper library.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arcmemo.solverkit import Pair, Task
from arcmemo_expert_agents.objects import ObjectVariant, extract
from arcmemo_expert_agents.primitives import EMPTY, LETTERS, get_pixel_coords

LEGEND = ("Colours are letters: '.' = 0 (background), " +
          ", ".join(f"'{LETTERS[k]}' = {k}" for k in range(1, 10)) +
          ". In object grids '$' marks a cell that is not part of the object (-1 in code).")

MAX_OCCURRENCES = 4     # sub-grid matches listed in a difference view


def letter(value: int) -> str:
    value = int(value)
    if value == EMPTY:
        return "$"
    if not 0 <= value <= 9:
        raise ValueError(f"colour {value} is not 0-9")
    return LETTERS[value]


def _rows(grid, cell=letter) -> list[str]:
    return [" ".join(cell(v) for v in row) for row in np.asarray(grid, dtype=int)]


def dims(grid) -> str:
    arr = np.asarray(grid)
    return f"{arr.shape[0]}x{arr.shape[1] if arr.ndim == 2 else 0}"


def _coords(cells: Sequence[tuple[int, int]]) -> str:
    return " ".join(f"({r}, {c})" for r, c in cells)


def grid_view(grid) -> str:
    """The grid as letter rows, cells separated by spaces."""
    return "\n".join(_rows(grid))


def _side_by_side(left: list[str], right: list[str], titles=("grid", "shape")) -> list[str]:
    width = max([len(titles[0])] + [len(line) for line in left])
    out = [f"{titles[0].ljust(width)}   {titles[1]}"]
    out += [f"{a.ljust(width)}   {b}" for a, b in zip(left, right)]
    return out


def object_view(grid, variant: ObjectVariant = ObjectVariant()) -> str:
    """Every object of `grid` under `variant`, in get_objects order (top-left first)."""
    objects = extract(grid, variant)
    if not objects:
        return "no objects (the grid is all background)"
    lines = [f"{len(objects)} object{'s' if len(objects) != 1 else ''}"]
    for k, obj in enumerate(objects, 1):
        colours = sorted({int(v) for v in np.asarray(obj["grid"]).ravel() if v != EMPTY})
        head = (f"object {k}: tl={obj['tl']} size={obj['size']} cell_count={obj['cell_count']} "
                f"colour{'s' if len(colours) > 1 else ''}={' '.join(letter(c) for c in colours)}")
        shape = _rows(obj["shape"], cell=lambda v: "x" if v else ".")
        lines.append(head)
        lines.extend("    " + line for line in _side_by_side(_rows(obj["grid"]), shape))
    return "\n".join(lines)


def pixel_view(grid) -> str:
    """Each non-background colour (most cells first) with its cell coordinates."""
    coords = get_pixel_coords(grid)
    if not coords:
        return "no coloured cells (the grid is all background)"
    return "\n".join(f"{letter(colour)} ({len(cells)} cell{'s' if len(cells) != 1 else ''}): "
                     f"{_coords(cells)}" for colour, cells in coords.items())


def _occurrences(big: np.ndarray, small: np.ndarray) -> list[tuple[int, int]]:
    (H, W), (h, w) = big.shape, small.shape
    found = []
    for r in range(H - h + 1):
        for c in range(W - w + 1):
            if np.array_equal(big[r:r + h, c:c + w], small):
                found.append((r, c))
    return found


def _counts(arr: np.ndarray) -> str:
    counts = Counter(int(v) for v in arr.ravel())
    return " ".join(f"{letter(k)}:{counts[k]}" for k in sorted(counts))


def difference_view(pair: Pair) -> str:
    """What changes from input to output: the changed cells when the size is kept,
    otherwise the sizes, how the grids contain or scale each other, and colour counts."""
    a, b = np.asarray(pair.input, dtype=int), np.asarray(pair.output, dtype=int)
    if a.shape == b.shape:
        changed = a != b
        n = int(changed.sum())
        if n == 0:
            return f"same size {dims(a)}; the output is identical to the input."
        lines = [f"same size {dims(a)}; {n} of {a.size} cells change."]
        lines.append("changed cells (the output letter where a cell changes, '-' where it stays):")
        lines.extend(" ".join(letter(b[r, c]) if changed[r, c] else "-" for c in range(a.shape[1]))
                     for r in range(a.shape[0]))
        lines.append("changes by colour:")
        by_change: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for r, c in zip(*np.nonzero(changed)):
            by_change.setdefault((int(a[r, c]), int(b[r, c])), []).append((int(r), int(c)))
        for (old, new), cells in sorted(by_change.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"  {letter(old)} -> {letter(new)} at {_coords(cells)}")
        return "\n".join(lines)
    lines = [f"size changes from {dims(a)} (input) to {dims(b)} (output)."]
    if b.shape[0] <= a.shape[0] and b.shape[1] <= a.shape[1]:
        found = _occurrences(a, b)
        if found:
            shown = _coords(found[:MAX_OCCURRENCES]) + (" ..." if len(found) > MAX_OCCURRENCES else "")
            lines.append(f"the output appears inside the input with its top-left at {shown}.")
    if a.shape[0] <= b.shape[0] and a.shape[1] <= b.shape[1]:
        found = _occurrences(b, a)
        if found:
            shown = _coords(found[:MAX_OCCURRENCES]) + (" ..." if len(found) > MAX_OCCURRENCES else "")
            lines.append(f"the input appears inside the output with its top-left at {shown}.")
        if b.shape[0] % a.shape[0] == 0 and b.shape[1] % a.shape[1] == 0:
            fr, fc = b.shape[0] // a.shape[0], b.shape[1] // a.shape[1]
            if np.array_equal(np.kron(a, np.ones((fr, fc), dtype=int)), b):
                lines.append(f"the output is the input with every cell scaled to a {fr}x{fc} block.")
    lines.append(f"colour counts: input {_counts(a)}; output {_counts(b)}")
    return "\n".join(lines)


@dataclass(frozen=True)
class View:
    """One abstraction space: kind grid | object | pixel | difference."""

    kind: str
    variant: ObjectVariant | None = None

    def __post_init__(self):
        if self.kind not in ("grid", "object", "pixel", "difference"):
            raise ValueError(f"view kind must be grid, object, pixel or difference, got {self.kind!r}")
        if (self.kind == "object") != (self.variant is not None):
            raise ValueError("an object view needs an ObjectVariant, and only an object view")

    @property
    def name(self) -> str:
        return self.variant.name if self.variant is not None else self.kind

    @property
    def title(self) -> str:
        if self.kind == "object":
            return f"object view ({self.variant.label})"
        return f"{self.kind} view"

    def render(self, grid) -> str:
        if self.kind == "grid":
            return grid_view(grid)
        if self.kind == "object":
            return object_view(grid, self.variant)
        if self.kind == "pixel":
            return pixel_view(grid)
        raise ValueError("the difference view renders pairs, not single grids (use render_pair)")

    def render_pair(self, pair: Pair) -> str:
        return difference_view(pair)


def task_view_text(task: Task, view: View) -> dict[tuple, str]:
    """The view's text for every part of the task, keyed ("input", i), ("output", i),
    ("test", j), or ("difference", i) for the difference view (train pairs only)."""
    if view.kind == "difference":
        return {("difference", i): view.render_pair(p) for i, p in enumerate(task.train)}
    parts: dict[tuple, str] = {}
    for i, pair in enumerate(task.train):
        parts[("input", i)] = view.render(pair.input)
        parts[("output", i)] = view.render(pair.output)
    for j, grid in enumerate(task.test_inputs):
        parts[("test", j)] = view.render(grid)
    return parts
