"""Grids and puzzles as prompt text: the one renderer every prompt that shows a grid uses.

Two styles (the `grid_text` setting, `--grid-text`):

- `digits` (arcmemo's): one row per line, one digit per cell, no separators: compact, and
  a model can index cells by character;
- `numpy` (the ArcMemo authors' released code): the grid as numpy prints it, rows in
  brackets with ", " between the numbers (`np.array2string(grid, separator=", ")`).

Either way a puzzle labels each grid with its shape (rows x columns). The style is a
per-run choice: the run's `grid_text` (the `grid_text` setting, declared with every other in
config.py, or its protocol's choice: run/config.py) is put in force once for this
process when the run opens its prompts (`use_grid_text`, done by run/prompting.py
PromptSetup), and every `format_grid` / `format_task` without an explicit `style` then
writes that style. Prompts that describe the grid format say it through the built-in
template variables `grid_note` and `grid_layout` (`grid_note()`, `grid_layout()`), so their
wording follows the style.

Why a value in force rather than an argument: grids are written by some twenty renderers in
six packages and by every solver plugin (which calls `format_task` through solverkit and
knows nothing of the run), all on the run's threads; passing the style down would put it in
the plugin contract and every step's signature, for a choice that is one per run. It is set
in one place, from the one settings system, the same way as the templates in force (the
user's prompt files), and a run records it in its config.json.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from arcmemo.core.config import GRID_TEXTS, default_of
from arcmemo.core.inforce import InForce

if TYPE_CHECKING:
    from arcmemo.core.tasks import Task

DEFAULT_GRID_TEXT = default_of("grid_text")
NUMPY_LINE_WIDTH = 120          # as the released code prints them: a 30-wide ARC row fits on one line

_COLOURS = "0 black, 1 blue, 2 red, 3 green, 4 yellow, 5 grey, 6 magenta, 7 orange, 8 azure, 9 maroon"
_NOTES = {
    "digits": ("Grids are written one row per line, one digit per cell; each digit is a colour "
               f"({_COLOURS}). 0 is normally the background."),
    "numpy": ("Grids are written as numpy arrays, one row per line with commas between the cells, and their "
              f"shape (rows x columns) beside them; each number is a colour ({_COLOURS}). 0 is normally the "
              "background."),
}
_LAYOUTS = {
    "digits": "A grid is written one row per line, one digit per cell.",
    "numpy": "A grid is written as a numpy array, one row per line, with its shape (rows x columns) beside it.",
}

_style = InForce(DEFAULT_GRID_TEXT)     # the style of this process's run


def check_grid_text(style: str) -> str:
    """`style` if it is a grid text style; ValueError naming the styles otherwise."""
    if style not in GRID_TEXTS:
        raise ValueError(f"grid text must be one of {', '.join(GRID_TEXTS)}, not {style!r}")
    return style


def grid_text() -> str:
    """The grid text style in force (DEFAULT_GRID_TEXT unless a run set another)."""
    return _style.value


def use_grid_text(style: str) -> AbstractContextManager[str]:
    """Put `style` in force for this process until the block ends (a run's tasks and threads all
    write grids the same way), then restore the one before."""
    return _style.set(check_grid_text(style))


def format_grid(grid: Sequence[Sequence[int]], style: str | None = None) -> str:
    """A grid as text in `style` (default: the style in force)."""
    if check_grid_text(style or grid_text()) == "numpy":
        import numpy as np

        return np.array2string(np.asarray(grid, dtype=int), separator=", ", max_line_width=NUMPY_LINE_WIDTH,
                               threshold=sys.maxsize)
    return "\n".join(map(_digits, grid))


_CELLS = bytes(range(10))
_DIGIT_OF = bytes.maketrans(_CELLS, b"0123456789")


def _digits(row: Sequence[int]) -> str:
    """A row as digits: through bytes when it is a list or tuple of 0-9 (several times faster:
    every prompt writes whole puzzles), else cell by cell."""
    if type(row) in (list, tuple):
        try:
            cells = bytes(row)
        except (TypeError, ValueError):         # not ints, or not 0-255
            cells = None
        if cells is not None and not cells.translate(None, _CELLS):
            return cells.translate(_DIGIT_OF).decode("ascii")
    return "".join(str(int(v)) for v in row)


def grid_note(style: str | None = None) -> str:
    """How grids are written in `style`, with the colours: the template variable $grid_note."""
    return _NOTES[check_grid_text(style or grid_text())]


def grid_layout(style: str | None = None) -> str:
    """One sentence on how a grid is written in `style`: the template variable $grid_layout."""
    return _LAYOUTS[check_grid_text(style or grid_text())]


def dims(grid: Sequence[Sequence[int]]) -> str:
    return f"{len(grid)}x{len(grid[0]) if len(grid) else 0}"


def format_task(task: Task, *, with_test: bool = True, style: str | None = None) -> str:
    """The puzzle as text: every train pair (input/output) and the test inputs, each with its shape."""
    parts = []
    for i, pair in enumerate(task.train, 1):
        parts.append(f"Example {i} input ({dims(pair.input)}):\n{format_grid(pair.input, style)}")
        parts.append(f"Example {i} output ({dims(pair.output)}):\n{format_grid(pair.output, style)}")
    if with_test:
        for i, grid in enumerate(task.test_inputs, 1):
            parts.append(f"Test input {i} ({dims(grid)}):\n{format_grid(grid, style)}")
    return "\n\n".join(parts)


__all__ = ["GRID_TEXTS", "DEFAULT_GRID_TEXT", "check_grid_text", "grid_text", "use_grid_text", "format_grid",
           "grid_note", "grid_layout", "dims", "format_task"]
