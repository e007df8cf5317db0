"""Grids and puzzles as prompt text: one row of digits per line, with dimensions."""

from __future__ import annotations

from collections.abc import Sequence

from arcmemo.core.tasks import Task


def format_grid(grid: Sequence[Sequence[int]]) -> str:
    """Rows of digits, no separators: compact and easy for a model to index."""
    return "\n".join("".join(str(int(v)) for v in row) for row in grid)


def dims(grid: Sequence[Sequence[int]]) -> str:
    return f"{len(grid)}x{len(grid[0]) if len(grid) else 0}"


def format_task(task: Task, *, with_test: bool = True) -> str:
    """The puzzle as text: every train pair (input/output) and the test inputs, with dimensions."""
    parts = []
    for i, pair in enumerate(task.train, 1):
        parts.append(f"Example {i} input ({dims(pair.input)}):\n{format_grid(pair.input)}")
        parts.append(f"Example {i} output ({dims(pair.output)}):\n{format_grid(pair.output)}")
    if with_test:
        for i, grid in enumerate(task.test_inputs, 1):
            parts.append(f"Test input {i} ({dims(grid)}):\n{format_grid(grid)}")
    return "\n\n".join(parts)
