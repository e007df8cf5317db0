"""The expert-agents helper library (arc_helpers): every docstring example holds, each
primitive does what it says on real ARC grids, and the module imports in the sandbox."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from arcmemo.core.tasks import load_tasks
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import run_on_pairs
from arcmemo_expert_agents import primitives as P
from arcmemo_expert_agents.library import (
    MODULE_NAME,
    describe_helpers,
    helper_example,
    helper_functions,
    helper_modules,
)
from arcmemo_expert_agents.solver import system_prompt


@pytest.fixture(scope="module")
def tasks():
    return load_tasks("training", ids=["6150a2bd", "2013d3e2", "d0f5fe59", "0d3d703e",
                                       "d037b0a7", "a416b8f3"])


def plain(value):
    """Arrays, tuples and dicts as plain lists/dicts of ints, for comparing with literals."""
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, np.integer):
        return int(value)
    return value


def L(grid):
    return np.asarray(grid).tolist()


# -- the description the model reads ------------------------------------------------------

@pytest.mark.parametrize("name", helper_functions())
def test_docstring_example_holds(name):
    call, expected = helper_example(name)
    namespace = {n: getattr(P, n) for n in P.__all__}
    got = eval(call, namespace)          # our own docstrings
    assert plain(got) == plain(ast.literal_eval(expected)), f"{name}: {call} gave {plain(got)}"


def test_description_lists_every_helper_with_its_example_and_is_in_the_prompt():
    text = describe_helpers()
    names = helper_functions()
    assert len(names) >= 25
    for name in names:
        call, expected = helper_example(name)
        assert f"- {name}(" in text and f"{call} -> {expected}" in text
    assert "get_objects(grid, diag=False, by_row=False, by_col=False, by_color=False, multicolor=False" in text
    assert text in system_prompt()


def test_every_public_name_is_exported_and_documented():
    for name in helper_functions():
        assert (P.__dict__[name].__doc__ or "").strip(), name
    for required in ("get_objects", "crop_grid", "tight_fit", "rotate_clockwise", "horizontal_flip",
                     "vertical_flip", "fill_row", "fill_col", "fill_rect", "fill_between_coords",
                     "replace", "change_object_color", "combine_object", "object_contains_color",
                     "on_same_line"):
        assert required in helper_functions()


# -- objects -------------------------------------------------------------------------------

def test_get_objects_on_d0f5fe59_finds_the_four_shapes(tasks):
    grid = tasks.by_id("d0f5fe59").train[0].input
    objs = P.get_objects(grid)
    assert [o["tl"] for o in objs] == [(1, 1), (6, 4), (10, 1), (12, 7)]
    assert [o["size"] for o in objs] == [(4, 3), (3, 3), (3, 4), (2, 2)]
    assert [o["cell_count"] for o in objs] == [8, 6, 6, 4]
    first = objs[0]
    assert L(first["grid"]) == [[-1, 8, 8], [-1, 8, 8], [8, 8, 8], [-1, 8, -1]]
    assert L(first["shape"]) == [[0, 1, 1], [0, 1, 1], [1, 1, 1], [0, 1, 0]]
    # the output of d0f5fe59: one diagonal cell per object
    out = P.empty_grid(len(objs), len(objs))
    for k in range(len(objs)):
        out = P.fill_value(out, (k, k), P.get_object_color(objs[k]))
    assert L(out) == [list(r) for r in tasks.by_id("d0f5fe59").train[0].output]


def test_get_objects_variants_on_2013d3e2(tasks):
    grid = tasks.by_id("2013d3e2").train[0].input   # a 6x6 multi-colour emblem at (2, 2)
    count = lambda **kw: len(P.get_objects(grid, **kw))  # noqa: E731
    assert count() == 13                          # 4 g pairs, 4 f singles, 4 h pairs, 1 d block
    assert count(diag=True) == 10                 # the h pairs join into one diagonal ring
    assert count(by_row=True) == 18 and count(by_col=True) == 18
    assert count(multicolor=True) == 1 and count(multicolor=True, diag=True) == 1
    assert count(multicolor=True, by_row=True) == 6    # one run per row 2..7
    by_colour = P.get_objects(grid, by_color=True)
    assert [(o["tl"], P.get_object_color(o), o["cell_count"]) for o in by_colour] == [
        ((2, 2), 7, 8), ((3, 3), 6, 4), ((3, 3), 8, 8), ((4, 4), 4, 4)]
    (emblem,) = P.get_objects(grid, multicolor=True, more_info=False)
    assert set(emblem) == {"tl", "grid"} and emblem["tl"] == (2, 2)
    assert L(P.fill_object(None, emblem, align=True))[:3] == [[0, 0, 7, 7, 0, 0], [0, 6, 8, 8, 6, 0],
                                                               [7, 8, 4, 4, 8, 7]]


def test_get_objects_background_and_empty_grid():
    assert P.get_objects([[0, 0], [0, 0]]) == []
    objs = P.get_objects([[7, 7, 1], [7, 2, 7]], background=7)
    assert [(o["tl"], P.get_object_color(o)) for o in objs] == [((0, 2), 1), ((1, 1), 2)]


def test_object_helpers_change_colour_shift_combine():
    a = {"tl": (0, 0), "grid": np.array([[3, 3], [3, -1]])}
    b = {"tl": (1, 1), "grid": np.array([[5, 5]])}
    red = P.change_object_color(a, "b")            # letters work: 'b' = 2
    assert L(red["grid"]) == [[2, 2], [2, -1]] and L(a["grid"]) == [[3, 3], [3, -1]]
    moved = P.shift_object(b, 1, -1)
    assert moved["tl"] == (2, 0) and b["tl"] == (1, 1)
    both = P.combine_object(a, b)
    assert both["tl"] == (0, 0) and L(both["grid"]) == [[3, 3, -1], [3, 5, 5]]
    assert "cell_count" not in both                 # bare objects in, bare object out
    (full,) = P.get_objects([[3, 3], [3, 0]])        # with more_info, the result has it too
    both = P.combine_object(full, b)
    assert both["cell_count"] == 5 and L(both["shape"]) == [[1, 1, 0], [1, 1, 1]]
    assert both["size"] == (2, 3)
    painted = P.fill_object(P.empty_grid(3, 3), moved)
    assert L(painted) == [[0, 0, 0], [0, 0, 0], [5, 5, 0]]
    off_grid = P.fill_object(P.empty_grid(2, 2), {"tl": (1, 1), "grid": [[4, 4], [4, 4]]})
    assert L(off_grid) == [[0, 0], [0, 4]]


# -- grids -----------------------------------------------------------------------------------

def test_rotate_and_flips_on_6150a2bd(tasks):
    for pair in tasks.by_id("6150a2bd").train:
        assert L(P.rotate_clockwise(pair.input, 180)) == L(pair.output)
        assert L(P.vertical_flip(P.horizontal_flip(pair.input))) == L(pair.output)
    g = [[1, 2, 3], [4, 5, 6]]
    assert L(P.rotate_clockwise(g)) == [[4, 1], [5, 2], [6, 3]]
    assert L(P.rotate_clockwise(g, 270)) == [[3, 6], [2, 5], [1, 4]]
    assert L(P.rotate_clockwise(g, 360)) == g
    with pytest.raises(ValueError, match="multiple of 90"):
        P.rotate_clockwise(g, 45)


def test_tight_fit_and_crop_solve_2013d3e2(tasks):
    for pair in tasks.by_id("2013d3e2").train:
        fitted = P.tight_fit(pair.input)
        assert fitted.shape == (6, 6)
        assert L(P.crop_grid(fitted, (0, 0), (2, 2))) == L(pair.output)
    assert P.tight_fit([[0, 0], [0, 0]]).shape == (0, 0)


def test_replace_color_chain_solves_0d3d703e(tasks):
    table = {3: 4, 1: 5, 2: 6, 8: 9, 5: 1, 6: 2, 4: 3, 9: 8}
    for pair in tasks.by_id("0d3d703e").train:
        grid = np.asarray(pair.input)
        out = grid.copy()
        for old, new in table.items():              # recolour by the input's cells
            out[grid == old] = P.replace_color(grid, old, new)[grid == old]
        assert L(out) == L(pair.output)


def test_replace_subgrid():
    g = [[1, 1, 1], [0, 1, 1]]
    assert L(P.replace(g, [[1, 1]], [[2, 2]])) == [[2, 2, 1], [0, 2, 2]]   # no overlapping matches
    assert L(P.replace(g, [[9]], [[2]])) == g
    with pytest.raises(ValueError, match="same shape"):
        P.replace(g, [[1, 1]], [[2]])


def test_fill_functions_are_inclusive_clipped_and_pure(tasks):
    base = np.zeros((4, 5), dtype=int)
    assert L(P.fill_row(base, 1, 3, start_col=1, end_col=3))[1] == [0, 3, 3, 3, 0]
    assert L(P.fill_row(base, 0, 3, end_col=99))[0] == [3] * 5
    assert [r[4] for r in L(P.fill_col(base, 4, "c", start_row=2))] == [0, 0, 3, 3]
    rect = P.fill_rect(base, (2, 3), (1, 1), 7)              # corners in any order
    assert L(rect)[1] == [0, 7, 7, 7, 0] and L(rect)[2] == [0, 7, 7, 7, 0] and L(rect)[3] == [0] * 5
    line = P.fill_between_coords(base, (0, 4), (3, 1), 2)    # anti-diagonal
    assert [(r, c) for r in range(4) for c in range(5) if line[r, c]] == [(0, 4), (1, 3), (2, 2), (3, 1)]
    row_line = P.fill_between_coords(base, (3, 0), (3, 2), 1)
    assert L(row_line)[3] == [1, 1, 1, 0, 0]
    assert not base.any()                                    # nothing mutated the input
    # d037b0a7: each colour drips down its column
    pair = tasks.by_id("d037b0a7").train[0]
    out = np.asarray(pair.input)
    for colour, cells in P.get_pixel_coords(pair.input).items():
        for r, c in cells:
            out = P.fill_col(out, c, colour, start_row=r)
    assert L(out) == L(pair.output)


def test_pixel_coords_and_colour_counts(tasks):
    grid = tasks.by_id("d037b0a7").train[0].output
    assert P.get_pixel_coords(grid) == {6: [(0, 2), (1, 2), (2, 2)], 4: [(1, 1), (2, 1)], 3: [(2, 0)]}
    assert P.most_common_color(grid) == 6 and P.least_common_color(grid) == 3
    assert P.count_color(grid, 0) == 3 and P.count_color(grid, "f") == 3
    assert P.get_size(tasks.by_id("a416b8f3").train[1].input) == (4, 3)


def test_conditions():
    obj = {"tl": (0, 1), "grid": [[2, -1], [2, 5]]}
    assert P.object_contains_color(obj, 5) and not P.object_contains_color(obj, 3)
    assert P.object_contains_color(obj, "e")
    assert P.on_same_line((2, 0), (2, 9), "row") and not P.on_same_line((2, 0), (3, 9), "row")
    assert P.on_same_line((0, 3), (7, 3), "col")
    assert P.on_same_line((3, 3), (1, 5), "diag") and not P.on_same_line((3, 3), (1, 4), "diag")
    with pytest.raises(ValueError, match="line_type"):
        P.on_same_line((0, 0), (1, 1), "diagonal")
    assert P.same_shape(obj, {"tl": (5, 5), "grid": [[1, -1], [1, 1]]})
    assert not P.same_shape(obj, {"tl": (5, 5), "grid": [[1, 1], [1, 1]]})
    assert P.touches_border(obj, np.zeros((3, 3))) and not P.touches_border(
        {"tl": (1, 1), "grid": [[1]]}, np.zeros((3, 3)))


def test_bad_colour_letter_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown colour letter 'z'"):
        P.fill_value([[0]], (0, 0), "z")


# -- inside the sandbox ------------------------------------------------------------------------

def test_helpers_import_in_the_sandbox_and_solve_2013d3e2(tasks):
    program = (
        "from arc_helpers import *\n\n"
        "def transform(grid):\n"
        "    emblem = get_objects(grid, multicolor=True, diag=True)[0]\n"
        "    return crop_grid(fill_object(grid, emblem, align=True), (0, 0), (2, 2))\n"
    )
    modules = helper_modules()
    assert list(modules) == [MODULE_NAME] and "def get_objects" in modules[MODULE_NAME]
    check = run_on_pairs(get_sandbox(), program, list(tasks.by_id("2013d3e2").train), modules=modules)
    assert check.passed_all, [o.message for o in check.outcomes]
