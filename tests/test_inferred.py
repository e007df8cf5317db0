"""Arguments the probe infers from a task's train pairs (run/stages/inferred.py): a colour table, a
scale factor, an output size, a shift; so a helper taking one (the shipped `color_mapping`)
can be tried, and fits real ARC training tasks."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from arcmemo.core.tasks import load_tasks
from arcmemo.memory.helpers.probing import candidate_calls
from arcmemo.memory.helpers.value import Helper
from arcmemo.memory.store import Memory
from arcmemo.memory.views.library import Library
from arcmemo.run.stages.inferred import TaskFacts, color_table, common_shape, scale_factors, shift, task_facts
from arcmemo.run.stages.prepared import Prepared, prepared
from arcmemo.run.stages.probe import probe
from arcmemo.sandbox import get_sandbox

ROOT = Path(__file__).resolve().parents[1]
SHIFT = '''import numpy as np


def shift_content(grid, offset):
    """Move every cell by (rows, columns); what leaves the grid is lost, what is uncovered is 0.

    Example: shift_content(np.array([[1, 0]]), (0, 1)) -> [[0, 1]]
    """
    grid = np.asarray(grid)
    out = np.zeros_like(grid)
    dr, dc = offset
    h, w = grid.shape
    out[max(dr, 0):h + min(dr, 0), max(dc, 0):w + min(dc, 0)] = grid[max(-dr, 0):h - max(dr, 0),
                                                                     max(-dc, 0):w - max(dc, 0)]
    return out
'''


@pytest.fixture(scope="module")
def training():
    return load_tasks("training", ids=["0d3d703e", "b1948b0a", "c8f0f002", "9172f3a0", "25ff71a9", "6150a2bd",
                                       "aabf363d"])


@pytest.fixture
def shipped(tmp_path):
    """The default memory (its helpers are the seeds'), opened from a copy."""
    shutil.copy(ROOT / "memory.db", tmp_path / "memory.db")
    with Memory(tmp_path / "memory.db") as memory:
        yield prepared(memory)


def test_a_colour_table_is_what_every_cell_of_every_pair_follows():
    assert color_table([([[1, 2], [2, 0]], [[5, 6], [6, 0]]), ([[1]], [[5]])]) == {1: 5, 2: 6}   # 0 stays: left out
    assert color_table([([[1, 1]], [[5, 6]])]) is None              # one colour two ways
    assert color_table([([[1]], [[5]]), ([[1]], [[6]])]) is None      # the pairs disagree
    assert color_table([([[1, 2]], [[1], [2]])]) is None            # another shape
    assert color_table([([[1, 2]], [[1, 2]])]) is None              # nothing changes
    assert color_table([([[1, 2]], [[5, 2]])], [[[2, 1]]]) == {1: 5}
    assert color_table([([[1, 2]], [[5, 2]])], [[[2, 7]]]) is None    # a test colour the table never saw


def test_sizes_and_shifts_are_inferred_only_when_every_pair_agrees():
    assert scale_factors([([[1]], [[1] * 3] * 3), ([[1, 2]], [[1] * 6] * 3)]) == (3,)
    assert scale_factors([([[1] * 4] * 2, [[1, 1]])]) == (2,)        # a reduction
    assert scale_factors([([[1]], [[1] * 2] * 2), ([[1]], [[1] * 3] * 3)]) == ()
    assert scale_factors([([[1]], [[1, 1]])]) == ()                  # not the same both ways
    assert common_shape([[[1, 2]], [[3, 4]]]) == (1, 2) and common_shape([[[1]], [[1, 2]]]) is None
    moved = [([[1, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 1, 0]]), ([[0, 2, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 2]])]
    assert shift(moved) == (1, 1)
    assert shift(moved[:1] + [([[0, 2, 0], [0, 0, 0]], [[0, 2, 0], [0, 0, 0]])]) is None


def test_facts_come_from_the_train_pairs_of_real_tasks(training):
    assert task_facts(training.by_id("b1948b0a")).mapping == {6: 2}
    assert task_facts(training.by_id("aabf363d")).mapping is None     # its test input brings a new colour
    assert task_facts(training.by_id("9172f3a0")).factors == (3,)
    assert task_facts(training.by_id("25ff71a9")).offset == (1, 0)
    assert task_facts(training.by_id("9172f3a0")).shape == (9, 9)
    assert task_facts(training.by_id("b1948b0a")).shape is None       # outputs of different sizes


def test_an_inferred_value_fills_a_parameter_no_type_enumerates():
    def concept(name, params):
        return SimpleNamespace(id=1, name=name, output_typing="grid", parameters=[{"name": n, "typing": t} for n, t in params],
                               helper=Helper(name, f"def {name}(grid, {params[1][0]}):\n    return grid\n"))

    table = concept("recolor", [("grid", "grid"), ("mapping", "color mapping")])
    assert candidate_calls(table, TaskFacts(colors=(0, 6))) == []            # no table: not tried
    assert candidate_calls(table, TaskFacts(colors=(0, 6), mapping={6: 2})) == ["recolor(grid, {6: 2})"]
    scale = concept("enlarge", [("grid", "grid"), ("factor", "int")])
    assert candidate_calls(scale, TaskFacts(factors=(5,))) == [f"enlarge(grid, {n})" for n in (1, 2, 3, 4, 5)]
    size = concept("resize", [("grid", "grid"), ("target_shape", "tuple[int, int]")])
    assert candidate_calls(size, TaskFacts(shape=(3, 3), offset=(1, 0))) == ["resize(grid, (3, 3))"]
    move = concept("move", [("grid", "grid"), ("offset", "tuple[int, int]")])
    assert candidate_calls(move, TaskFacts(shape=(3, 3), offset=(1, 0))) == ["move(grid, (1, 0))"]
    anything = concept("place", [("grid", "grid"), ("where", "tuple[int, int]")])   # which pair: not said
    assert candidate_calls(anything, TaskFacts(shape=(3, 3), offset=(1, 0))) == []


def test_the_shipped_colour_mapping_fits_real_recolouring_tasks(shipped, training):
    sandbox = get_sandbox()
    for task_id, table in [("0d3d703e", {1: 5, 2: 6, 3: 4, 4: 3, 5: 1, 6: 2, 8: 9, 9: 8}), ("b1948b0a", {6: 2}),
                           ("c8f0f002", {7: 5})]:
        fits, _ = probe(training.by_id(task_id), shipped, sandbox)
        assert [f.call for f in fits] == [f"color_mapping(grid, {table!r})"], task_id
    assert [f.call for f in probe(training.by_id("9172f3a0"), shipped, sandbox)[0]] == ["scale_grid(grid, 3)"]
    assert probe(training.by_id("6150a2bd"), shipped, sandbox)[0][0].call == "rotate_grid(grid, 2)"


def test_a_shift_helper_fits_a_task_whose_content_moves(training):
    concept = SimpleNamespace(id=7, name="shift content", output_typing="grid",
                              parameters=[{"name": "grid", "typing": "grid"}, {"name": "offset", "typing": "tuple[int, int]"}],
                              helper=Helper("shift_content", SHIFT))
    fits, tried = probe(training.by_id("25ff71a9"), Prepared(Library([concept])), get_sandbox())
    assert tried == 1 and [f.call for f in fits] == ["shift_content(grid, (1, 0))"]
