"""Whole-grid relations between a puzzle's inputs and outputs, found from the train pairs.

Puzzles whose output is the input flipped, rotated, transposed, tiled or scaled up are
common, and the concept library names these operations ("reflect grid", "transpose",
"scale grid", "tile object"), but nothing in a grid's text says "reflect". These checks
put the word into the puzzle description the lexical pre-filter matches against, so the
right concepts reach a select model that only sees part of a large library.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Grid = tuple[tuple[int, ...], ...]

# The seven non-identity symmetries of a rectangle or square, each with the words a
# concept about it would use.
SYMMETRIES: dict[str, Callable[[Grid], Grid]] = {
    "flipped upside down (rows in reverse order): reflect or mirror the grid vertically":
        lambda g: g[::-1],
    "flipped left to right (columns in reverse order): reflect or mirror the grid horizontally":
        lambda g: tuple(r[::-1] for r in g),
    "rotated by 180 degrees: rotate the grid, or flip it both ways":
        lambda g: tuple(r[::-1] for r in g[::-1]),
    "transposed (rows become columns): transpose, reflect across the main diagonal":
        lambda g: tuple(zip(*g)),
    "rotated by 90 degrees clockwise: rotate the grid":
        lambda g: tuple(zip(*g[::-1])),
    "rotated by 90 degrees counterclockwise: rotate the grid":
        lambda g: tuple(zip(*g))[::-1],
    "reflected across the anti-diagonal: transpose and rotate the grid":
        lambda g: tuple(zip(*g[::-1]))[::-1],
}


def _grid(rows) -> Grid:
    return tuple(tuple(r) for r in rows)


def _symmetry(inp: Grid, out: Grid) -> set[str]:
    return {name for name, f in SYMMETRIES.items() if f(inp) == out}


def _blocks(out: Grid, h: int, w: int) -> list[Grid]:
    return [tuple(row[c:c + w] for row in out[r:r + h])
            for r in range(0, len(out), h) for c in range(0, len(out[0]), w)]


def _multiple(inp: Grid, out: Grid) -> tuple[int, int] | None:
    """(kh, kw) when `out` is larger than `inp` by whole multiples of its sides."""
    h, w, ho, wo = len(inp), len(inp[0]), len(out), len(out[0])
    if (ho, wo) == (h, w) or ho % h or wo % w:
        return None
    return ho // h, wo // w


def _tiled(inp: Grid, out: Grid) -> str | None:
    """How `out` is made of input-sized copies of `inp`, if it is."""
    if _multiple(inp, out) is None:
        return None
    blocks = _blocks(out, len(inp), len(inp[0]))
    if all(b == inp for b in blocks):
        return "made of repeated copies of the input: tile or repeat the input grid"
    if all(b == inp or _symmetry(inp, b) for b in blocks):
        return ("made of copies of the input, some of them flipped or rotated: tile the grid with "
                "mirrored or reflected copies")
    return None


def _scaled(inp: Grid, out: Grid) -> str | None:
    factors = _multiple(inp, out)
    if factors is None:
        return None
    kh, kw = factors
    if all(out[r][c] == inp[r // kh][c // kw] for r in range(len(out)) for c in range(len(out[0]))):
        return f"the input scaled up {kh}x{kw}: every input pixel becomes a {kh}x{kw} block (upscale, resize)"
    return None


def whole_grid_relation(pairs: Sequence) -> str | None:
    """'output is the input ...' when every train pair shows the same whole-grid relation."""
    grids = [(_grid(p.input), _grid(p.output)) for p in pairs]
    if not grids or any(not i or not i[0] or not o or not o[0] for i, o in grids):
        return None
    common = set(SYMMETRIES)
    for inp, out in grids:
        common &= _symmetry(inp, out)
    if common and any(inp != out for inp, out in grids):
        return "output is the input " + next(n for n in SYMMETRIES if n in common)
    for describe in (_scaled, _tiled):
        found = {describe(inp, out) for inp, out in grids}
        if len(found) == 1 and None not in found:
            return "output is " + found.pop()
    return None
