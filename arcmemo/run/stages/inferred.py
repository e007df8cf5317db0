"""What a task's train pairs say about the arguments a helper would need: values the probe
(probe.py) can try that no type enumerates.

A `color` parameter may take any colour the task shows, an `int` a small count; but a
colour table, a scale factor of 5, an output size or a shift are facts of one task. They
are read from the train pairs (and, for colours, the test inputs), never from a test
output, each only when every train pair agrees:

- `mapping`: the colour -> colour table when inputs and outputs have the same shapes,
  every input colour always becomes the same output colour (only the colours that change
  are kept), and every colour of the test inputs is one the train inputs show: a colour
  the table never saw could become anything (aabf363d recolours a shape by a marker's
  colour; its table from the train pairs is wrong on the test input's new colour);
- `factors`: the whole ratio between output and input sizes (an enlargement) or input and
  output sizes (a reduction), the same for height and width in every pair;
- `shape`: the output's (height, width) when every train output has it;
- `offset`: the (rows, columns) by which the non-background cells moved, when inputs and
  outputs have the same shapes and every pair moved them alike.

A fact the pairs do not agree on is None (or empty): the probe then cannot fill a required
parameter of that kind and does not try the helper.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Grid = Sequence[Sequence[int]]


@dataclass(frozen=True)
class TaskFacts:
    """One task's inferable argument values (module docstring)."""

    colors: tuple[int, ...] = ()
    mapping: dict[int, int] | None = None
    factors: tuple[int, ...] = ()
    shape: tuple[int, int] | None = None
    offset: tuple[int, int] | None = None


def _shape(grid: Grid) -> tuple[int, int]:
    return len(grid), len(grid[0]) if grid else 0


def task_colors(task: Any) -> list[int]:
    """The colours in the task's train grids and test inputs (what a colour parameter may be)."""
    grids = [g for pair in task.train for g in (pair.input, pair.output)] + list(task.test_inputs)
    return sorted({int(v) for g in grids for row in g for v in row})


def color_table(pairs: Sequence[tuple[Grid, Grid]], test_inputs: Sequence[Grid] = ()) -> dict[int, int] | None:
    """The colour -> colour table every pair follows cell by cell (the changed colours only);
    None when shapes differ, a colour goes two ways, nothing changes, or a test input holds a
    colour no train input does."""
    table: dict[int, int] = {}
    for source, target in pairs:
        if _shape(source) != _shape(target):
            return None
        for row_in, row_out in zip(source, target):
            for a, b in zip(row_in, row_out):
                if table.setdefault(int(a), int(b)) != int(b):
                    return None
    if any(int(v) not in table for grid in test_inputs for row in grid for v in row):
        return None
    changed = {a: b for a, b in sorted(table.items()) if a != b}
    return changed or None


def scale_factors(pairs: Sequence[tuple[Grid, Grid]]) -> tuple[int, ...]:
    """The whole factor (> 1) by which every pair's output is larger, or smaller, than its input
    in both directions; () when the pairs do not agree on one."""
    found = []
    for big, small in ((1, 0), (0, 1)):        # output larger than input, then input larger than output
        ratios = set()
        for pair in pairs:
            (bh, bw), (sh, sw) = _shape(pair[big]), _shape(pair[small])
            if not sh or not sw or bh % sh or bw % sw or bh // sh != bw // sw:
                ratios = set()
                break
            ratios.add(bh // sh)
        if len(ratios) == 1 and min(ratios) > 1:
            found.append(ratios.pop())
    return tuple(found)


def common_shape(outputs: Sequence[Grid]) -> tuple[int, int] | None:
    """The (height, width) all the train outputs share, or None."""
    shapes = {_shape(g) for g in outputs}
    return shapes.pop() if len(shapes) == 1 else None


def _background(grid: Grid) -> int:
    return Counter(int(v) for row in grid for v in row).most_common(1)[0][0]


def _corner(grid: Grid, background: int) -> tuple[int, int] | None:
    """The top-left corner of the bounding box of the cells that are not `background`."""
    cells = [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if int(v) != background]
    return (min(r for r, _ in cells), min(c for _, c in cells)) if cells else None


def shift(pairs: Sequence[tuple[Grid, Grid]]) -> tuple[int, int] | None:
    """The (rows, columns) every pair's content moved by (its non-background cells' bounding
    box, the input's most common colour being the background); None when the pairs differ,
    shapes change, or nothing moved."""
    moves = set()
    for source, target in pairs:
        if _shape(source) != _shape(target) or not source or not source[0]:
            return None
        background = _background(source)
        before, after = _corner(source, background), _corner(target, background)
        if before is None or after is None:
            return None
        moves.add((after[0] - before[0], after[1] - before[1]))
    if len(moves) != 1:
        return None
    move = moves.pop()
    return move if move != (0, 0) else None


def task_facts(task: Any) -> TaskFacts:
    """What the task's train pairs (and test inputs, for colours) say (module docstring)."""
    pairs = [(pair.input, pair.output) for pair in task.train]
    return TaskFacts(colors=tuple(task_colors(task)), mapping=color_table(pairs, task.test_inputs),
                     factors=scale_factors(pairs),
                     shape=common_shape([o for _, o in pairs]), offset=shift(pairs))


__all__ = ["TaskFacts", "task_facts", "task_colors", "color_table", "scale_factors", "common_shape", "shift"]
