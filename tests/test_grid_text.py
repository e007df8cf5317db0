"""The grid text styles (core/gridtext.py): arcmemo's digits and the released code's numpy arrays,
one renderer, a style in force per run that every prompt follows."""

from __future__ import annotations

import numpy as np
import pytest

from arcmemo.core.gridtext import (
    check_grid_text,
    format_grid,
    format_task,
    grid_layout,
    grid_note,
    grid_text,
    use_grid_text,
)
from arcmemo.core.tasks import load_tasks
from arcmemo.prompts import render_prompt
from arcmemo.run.config import RunConfig

GRID = [[0, 1, 2], [3, 4, 5]]


def test_digits_are_one_row_per_line_and_numpy_is_what_numpy_prints():
    assert format_grid(GRID) == "012\n345"
    assert format_grid(GRID, "numpy") == "[[0, 1, 2],\n [3, 4, 5]]"
    wide = np.arange(900).reshape(30, 30) % 10               # the largest ARC grid: no "..." summary, a row a line
    text = format_grid(wide.tolist(), "numpy")
    assert text == np.array2string(wide, separator=", ", max_line_width=120, threshold=10_000)
    assert "..." not in text and len(text.splitlines()) == 30


@pytest.mark.parametrize("grid", [
    [[7, 0, 9], [1, 2, 3]], [(0, 5), (9, 9)], [[1, 2], [3, 12]], [[True, False]], [[1.0, 2.0]], [[-1, 3]],
    [[300, 1]], np.array([[1, 2], [3, 4]]), [np.array([1, 2])], [(np.int64(3), 4)], [[]], []])
def test_digits_are_each_cell_as_its_integer_whatever_holds_the_grid(grid):
    assert format_grid(grid, "digits") == "\n".join("".join(str(int(v)) for v in row) for row in grid)


def test_a_puzzle_labels_every_grid_with_its_shape_in_either_style():
    task = load_tasks("training", ids=["0d3d703e"]).tasks[0]
    numpy = format_task(task, style="numpy")
    assert numpy.startswith("Example 1 input (3x3):\n[[3, 1, 2],\n [3, 1, 2],\n [3, 1, 2]]")
    assert f"Test input 1 (3x3):\n{format_grid(task.test_inputs[0], 'numpy')}" in numpy
    assert format_task(task).startswith("Example 1 input (3x3):\n312\n312\n312")


def test_the_style_in_force_is_what_every_renderer_and_template_writes_and_is_restored():
    task = load_tasks("training", ids=["0d3d703e"]).tasks[0]
    digits_prompt = render_prompt("select_ps", memory="m", puzzle=format_task(task))
    with pytest.raises(RuntimeError), use_grid_text("numpy"):
        assert grid_text() == "numpy" and format_grid(GRID) == format_grid(GRID, "numpy")
        numpy_prompt = render_prompt("select_ps", memory="m", puzzle=format_task(task))
        assert format_grid(GRID, "digits") == "012\n345"          # an explicit style wins
        raise RuntimeError
    assert grid_text() == "digits" and format_grid(GRID) == "012\n345"
    assert grid_note("digits") in digits_prompt and grid_note("numpy") not in digits_prompt
    assert grid_note("numpy") in numpy_prompt and "[[3, 1, 2]," in numpy_prompt
    assert "one digit per cell" in grid_layout("digits") and "numpy array" in grid_layout("numpy")
    assert all("7 orange" in grid_note(style) for style in ("digits", "numpy"))


def test_an_unknown_style_is_refused():
    with pytest.raises(ValueError, match="grid text must be one of digits, numpy, not 'hex'"):
        check_grid_text("hex")
    with pytest.raises(ValueError, match="not 'hex'"):
        RunConfig(grid_text="hex")
