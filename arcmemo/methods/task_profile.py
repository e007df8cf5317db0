"""A puzzle's profile: what its train pairs show, in a few lines of words that lexical matching
(memory/views/lexical.py) can compare, computed from the grids alone (no model is asked).

ReasoningBank and DC-RS retrieve past items by how similar their source puzzle is to the new
one; the papers embed the task text with an embedding model, which arcmemo does not have
offline. A profile stands in for it: both sides are described by the same function, so two
puzzles that share rare traits (an output cropped from the input, a colour table, divider
lines) match on rare words. Each trait is one solid word (`samesize`, `colourmap`) because
the lexical matcher keeps only letter runs and drops common words such as "same"; numbers
are shown for a reader but do not match. A trait is named when it holds for every train pair.

Test inputs and test outputs are not read: the profile of a puzzle is the same whether it is
being solved or was solved long ago.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
from scipy import ndimage

from arcmemo.core.gridtext import dims
from arcmemo.core.tasks import Task

COLOUR_NAMES = ("black", "blue", "red", "green", "yellow", "grey", "magenta", "orange", "azure", "maroon")
FEW_CHANGES, MANY_CHANGES = 0.1, 0.5        # fractions of cells an output changes
TINY_SIDE, LARGE_SIDE = 5, 20
EIGHT_NEIGHBOURS = np.ones((3, 3), dtype=int)


def _pairs(task: Task) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(np.array(p.input, dtype=np.int8), np.array(p.output, dtype=np.int8)) for p in task.train]


def _every(pairs, test: Callable[[np.ndarray, np.ndarray], bool]) -> bool:
    return bool(pairs) and all(test(i, o) for i, o in pairs)


def _background(grid: np.ndarray) -> int:
    values, counts = np.unique(grid, return_counts=True)
    return int(values[np.argmax(counts)])


def _objects(grid: np.ndarray, background: int) -> int:
    """Connected groups of cells not of the background colour (8 neighbours, any colours)."""
    return int(ndimage.label(grid != background, structure=EIGHT_NEIGHBOURS)[1])


def _contains(big: np.ndarray, small: np.ndarray) -> bool:
    (h, w), (sh, sw) = big.shape, small.shape
    if sh > h or sw > w or small.shape == big.shape:
        return False
    windows = np.lib.stride_tricks.sliding_window_view(big, small.shape)
    return bool((windows == small).all(axis=(2, 3)).any())


def _views(grid: np.ndarray) -> dict[str, list[np.ndarray]]:
    return {"mirrored": [np.fliplr(grid), np.flipud(grid)], "rotated": [np.rot90(grid, k) for k in (1, 2, 3)],
            "transposed": [grid.T]}


def _is_view(i: np.ndarray, o: np.ndarray, kind: str) -> bool:
    return any(v.shape == o.shape and (v == o).all() for v in _views(i)[kind]) and not (
        i.shape == o.shape and (i == o).all())


def _tiled(i: np.ndarray, o: np.ndarray) -> bool:
    """The output is made of copies of the input (each as is, mirrored or rotated), more than one."""
    (h, w), (oh, ow) = i.shape, o.shape
    if oh % h or ow % w or (oh, ow) == (h, w):
        return False
    views = [i] + [v for vs in _views(i).values() for v in vs if v.shape == i.shape]
    return all(any((o[r:r + h, c:c + w] == v).all() for v in views) for r in range(0, oh, h) for c in range(0, ow, w))


def _scaled(small: np.ndarray, big: np.ndarray) -> bool:
    """`big` is `small` with every cell blown up to a block of one size (more than one cell)."""
    (h, w), (bh, bw) = small.shape, big.shape
    if bh % h or bw % w or (bh, bw) == (h, w):
        return False
    return bool((np.kron(small, np.ones((bh // h, bw // w), dtype=np.int8)) == big).all())


def _colour_map(pairs) -> bool:
    """Same sizes, and each input colour always becomes one output colour (not all itself)."""
    table: dict[int, int] = {}
    for i, o in pairs:
        if i.shape != o.shape:
            return False
        for a, b in zip(i.ravel().tolist(), o.ravel().tolist(), strict=True):
            if table.setdefault(a, b) != b:
                return False
    return any(a != b for a, b in table.items())


def _dividers(grid: np.ndarray) -> bool:
    """A full row or column of one non-background colour inside the grid (not its border)."""
    if min(grid.shape) < 3:
        return False
    bg = _background(grid)
    inner = [grid[r, :] for r in range(1, grid.shape[0] - 1)] + [grid[:, c] for c in range(1, grid.shape[1] - 1)]
    return any(line[0] != bg and (line == line[0]).all() for line in inner)


def _symmetric(grid: np.ndarray) -> bool:
    return bool((grid == np.fliplr(grid)).all() or (grid == np.flipud(grid)).all())


def _count_word(n: int) -> str:
    return "noobjects" if n == 0 else "singleobject" if n == 1 else "fewobjects" if n <= 4 else "manyobjects"


def _size_words(pairs) -> list[str]:
    words = []
    if _every(pairs, lambda i, o: i.shape == o.shape):
        words.append("samesize")
    elif _every(pairs, lambda i, o: o.size < i.size):
        words.append("outputsmaller")
    elif _every(pairs, lambda i, o: o.size > i.size):
        words.append("outputlarger")
    else:
        words.append("resized")
    if len({o.shape for _, o in pairs}) == 1 and len({i.shape for i, _ in pairs}) > 1:
        words.append("fixedoutputsize")
    if _every(pairs, lambda i, o: o.shape == (1, 1)):
        words.append("onecelloutput")
    sides = [s for i, o in pairs for s in (*i.shape, *o.shape)]
    if sides and max(sides) <= TINY_SIDE:
        words.append("tinygrids")
    elif sides and max(sides) >= LARGE_SIDE:
        words.append("largegrids")
    return words


def _relation_words(pairs) -> list[str]:
    checks: list[tuple[str, Callable[[np.ndarray, np.ndarray], bool]]] = [
        ("cropped", lambda i, o: _contains(i, o)),
        ("mirrored", lambda i, o: _is_view(i, o, "mirrored")),
        ("rotated", lambda i, o: _is_view(i, o, "rotated")),
        ("transposed", lambda i, o: _is_view(i, o, "transposed")),
        ("tiled", _tiled),
        ("scaledup", _scaled),
        ("scaleddown", lambda i, o: _scaled(o, i)),
    ]
    return [word for word, test in checks if _every(pairs, test)]


def _change_words(pairs) -> list[str]:
    if not _every(pairs, lambda i, o: i.shape == o.shape):
        return []
    words = []
    share = max(float((i != o).mean()) for i, o in pairs)
    words.append("fewchanges" if share < FEW_CHANGES else "manychanges" if share > MANY_CHANGES else "somechanges")
    if _colour_map(pairs):
        words.append("colourmap")
    elif _every(pairs, lambda i, o: ((i != _background(i)) == (o != _background(i))).all() and (i != o).any()):
        words.append("recolour")
    if _every(pairs, lambda i, o: (i != o).any() and (i[i != o] == _background(i)).all()):
        words.append("onlyadds")
    if _every(pairs, lambda i, o: (i != o).any() and (o[i != o] == _background(i)).all()):
        words.append("onlyremoves")
    return words


def _colour_words(pairs) -> list[str]:
    used = sorted({int(v) for i, o in pairs for v in np.unique(np.concatenate([i.ravel(), o.ravel()]))})
    words = [COLOUR_NAMES[v] for v in used]
    backgrounds = {_background(i) for i, _ in pairs}
    if len(backgrounds) == 1:
        words.append(COLOUR_NAMES[backgrounds.pop()] + "background")
    if _every(pairs, lambda i, o: bool(set(np.unique(o).tolist()) - set(np.unique(i).tolist()))):
        words.append("newcolour")
    if _every(pairs, lambda i, o: bool(set(np.unique(i).tolist()) - set(np.unique(o).tolist()))):
        words.append("lostcolour")
    return words


def _object_words(pairs) -> list[str]:
    counts = [(_objects(i, _background(i)), _objects(o, _background(i))) for i, o in pairs]   # the input's background
    typical = Counter(_count_word(n) for n, _ in counts).most_common(1)[0][0]
    words = [typical]
    if all(a == b for a, b in counts):
        words.append("objectcountkept")
    elif all(b < a for a, b in counts):
        words.append("fewerobjects")
    elif all(b > a for a, b in counts):
        words.append("moreobjects")
    return words


def _shape_words(pairs) -> list[str]:
    words = []
    if _every(pairs, lambda i, o: _dividers(i)):
        words.append("dividerlines")
    if _every(pairs, lambda i, o: _symmetric(o)) and not _every(pairs, lambda i, o: _symmetric(i)):
        words.append("symmetricoutput")
    return words


def _sizes(task: Task) -> str:
    return ", ".join(f"{dims(p.input)}->{dims(p.output)}" for p in task.train[:3]) + (
        ", ..." if len(task.train) > 3 else "")


def profile_lines(task: Task) -> list[tuple[str, list[str]]]:
    """(heading, words) of the traits the train pairs share; a heading with none is left out."""
    pairs = _pairs(task)
    if not pairs:
        return []
    groups = [("size", _size_words(pairs)), ("relation", _relation_words(pairs)), ("change", _change_words(pairs)),
              ("colours", _colour_words(pairs)), ("objects", _object_words(pairs)), ("shape", _shape_words(pairs))]
    return [(heading, words) for heading, words in groups if words]


def task_profile(task: Task) -> str:
    """The puzzle's profile as text: one line per group of traits, the sizes of its first pairs."""
    lines = [f"{heading}: {' '.join(words)}" for heading, words in profile_lines(task)]
    if task.train:
        lines.append(f"sizes: {_sizes(task)}")
    return "\n".join(lines)


__all__ = ["task_profile", "profile_lines", "COLOUR_NAMES"]
