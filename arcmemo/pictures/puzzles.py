"""Puzzles, attempts and answers as rows of panels, ready to be drawn (svg, png or terminal).

Answers (test outputs) appear only in pictures made for the user: the caption step's
pictures come from `task_rows` without outputs, and a `Task` holds none to leak.

The layout (layout.py) is imported by the functions that draw: rows printed in the terminal
(`tasks show`) need none of its classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arcmemo.core.tasks import Grid, Task
from arcmemo.pictures.panels import Panel
from arcmemo.pictures.png import to_png
from arcmemo.pictures.svg import to_svg

Rows = list[list[Panel | None]]
THUMBNAIL_CELL = 10


def pair_row(index: int, pair) -> list[Panel]:
    return [Panel(f"Example {index} input", pair.input), Panel(f"Example {index} output", pair.output)]


def test_row(index: int, grid: Grid, answer: Grid | None = None) -> list[Panel]:
    return [Panel(f"Test {index} input", grid)] + ([Panel(f"Test {index} answer", answer)] if answer else [])


def pair_rows(task: Task, answers: Sequence[Grid] | None = None) -> Rows:
    """The puzzle one pair per row (input beside output), then each test input (beside its
    answer, for the user, when given): for narrow displays such as a terminal."""
    rows = [pair_row(i, pair) for i, pair in enumerate(task.train, 1)]
    for j, grid in enumerate(task.test_inputs):
        rows.append(test_row(j + 1, grid, answers[j] if answers and j < len(answers) else None))
    return rows


def task_rows(task: Task, answers: Sequence[Grid] | None = None) -> Rows:
    """The puzzle for a page, pairs side by side: inputs in the top row, each output below its
    input, then the test inputs (with their answers below, for the user, when given).
    Draw with `columns=True`."""
    inputs = [Panel(f"Example {i} input", p.input) for i, p in enumerate(task.train, 1)]
    outputs: list[Panel | None] = [Panel(f"Example {i} output", p.output) for i, p in enumerate(task.train, 1)]
    inputs += [Panel(f"Test {j} input", g) for j, g in enumerate(task.test_inputs, 1)]
    if answers:
        outputs += [Panel(f"Test {j} answer", a) for j, a in enumerate(answers, 1)]
    return [inputs, outputs]


def attempt_rows(test_inputs: Sequence[Grid], predictions: Sequence[Sequence[Any]],
                 answers: Sequence[Grid] | None, sources: Sequence[Sequence[str]] | None = None) -> Rows:
    """Per test input: the input, each attempt (its cells that differ from the answer outlined),
    and the answer. `predictions[test][attempt]` as runs record them (None or [] = no grid);
    `sources[test][attempt]`: who made it ("memory's fit"), said in its title."""
    rows = []
    for j, grid in enumerate(test_inputs):
        answer = answers[j] if answers is not None and j < len(answers) else None
        attempts = predictions[j] if j < len(predictions) else []
        row = [Panel(f"Test {j + 1} input", grid)]
        made = list(sources[j]) if sources is not None and j < len(sources) else []
        row += [Panel(f"Attempt {a + 1}" + (f" · {made[a]}" if a < len(made) and made[a] else ""), attempt or None, answer)
                for a, attempt in enumerate(attempts or [None])]
        if answer is not None:
            row.append(Panel("Expected", answer))
        rows.append(row)
    return rows


def svg(rows: Rows, *, cell: int = 12, inline: bool = True, columns: bool = False) -> str:
    """Rows of panels as SVG (inline for HTML by default)."""
    from arcmemo.pictures.layout import lay_out

    return to_svg(lay_out(rows, cell, columns=columns), inline=inline)


def fitted_svg(rows: Rows, width: int, *, columns: bool = False, together: int = 1) -> str:
    """Rows of panels as inline SVG at most `width` pixels wide, cells as large as fit (layout.fitted):
    `together=2` keeps a puzzle's inputs above their outputs when its rows are cut into bands."""
    from arcmemo.pictures.layout import fitted

    return to_svg(fitted(rows, width, columns=columns, together=together), inline=True)


def png(rows: Rows, *, cell: int = 20, columns: bool = False) -> bytes:
    from arcmemo.pictures.layout import lay_out

    return to_png(lay_out(rows, cell, columns=columns))


def thumbnail_png(task: Task, width: int, height: int) -> bytes:
    """The first train pair, input beside output, untitled, as large as fits width x height."""
    from arcmemo.pictures.layout import largest_cell, place, resolve_rows

    parts = resolve_rows([[Panel("", task.train[0].input), Panel("", task.train[0].output)]])
    cell = largest_cell(parts, width, height, titles=False, largest=THUMBNAIL_CELL)
    return to_png(place(parts, cell, titles=False))
