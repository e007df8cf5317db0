"""The expert-agent views on real ARC grids, checked by hand against the grids."""

from __future__ import annotations

import pytest

from arcmemo.core.tasks import Pair, load_tasks
from arcmemo_expert_agents.agents import (
    DEFAULT_AGENTS,
    DIFFERENCE,
    GRID,
    PIXEL,
    Agent,
    TaskViews,
    obj,
    plan_agents,
    render_puzzle,
    view_intro,
)
from arcmemo_expert_agents.objects import VARIANTS, ObjectVariant
from arcmemo_expert_agents.views import (
    LEGEND,
    View,
    difference_view,
    grid_view,
    object_view,
    pixel_view,
    task_view_text,
)


@pytest.fixture(scope="module")
def tasks():
    return load_tasks("training", ids=["d037b0a7", "2013d3e2", "a416b8f3", "c59eb873",
                                       "d0f5fe59", "6150a2bd"])


def test_grid_view_uses_letters_and_dots(tasks):
    # d037b0a7 example 1 output: 0 0 6 / 0 4 6 / 3 4 6
    assert grid_view(tasks.by_id("d037b0a7").train[0].output) == ". . f\n. d f\nc d f"
    assert grid_view([[1, 2, 3, 4, 5], [6, 7, 8, 9, 0]]) == "a b c d e\nf g h i ."
    assert "'.' = 0 (background)" in LEGEND and "'a' = 1" in LEGEND and "'i' = 9" in LEGEND
    assert "'$'" in LEGEND


def test_object_view_mono_colour(tasks):
    text = object_view(tasks.by_id("d037b0a7").train[0].output)
    assert text.split("\n") == [
        "3 objects",
        "object 1: tl=(0, 2) size=(3, 1) cell_count=3 colour=f",
        "    grid   shape",
        "    f      x",
        "    f      x",
        "    f      x",
        "object 2: tl=(1, 1) size=(2, 1) cell_count=2 colour=d",
        "    grid   shape",
        "    d      x",
        "    d      x",
        "object 3: tl=(2, 0) size=(1, 1) cell_count=1 colour=c",
        "    grid   shape",
        "    c      x",
    ]


def test_object_view_multi_colour_marks_non_object_cells(tasks):
    grid = tasks.by_id("2013d3e2").train[0].input
    text = object_view(grid, ObjectVariant(multicolor=True))
    lines = text.split("\n")
    assert lines[0] == "1 object"
    assert lines[1] == "object 1: tl=(2, 2) size=(6, 6) cell_count=24 colours=d f g h"
    assert lines[3] == "    $ $ g g $ $   . . x x . ."
    assert lines[5] == "    g h d d h g   x x x x x x"


def test_object_view_variants_count_objects(tasks):
    grid = tasks.by_id("2013d3e2").train[0].input
    counts = {v.name: int(object_view(grid, v).split(" ")[0]) for v in VARIANTS}
    assert counts == {
        "object[mono,none]": 13, "object[mono,row]": 18, "object[mono,col]": 18,
        "object[mono,color]": 4, "object[mono,diag]": 10,
        "object[multi,none]": 1, "object[multi,row]": 6, "object[multi,col]": 6,
        "object[multi,diag]": 1,
    }
    by_colour = object_view(grid, ObjectVariant(constraint="color"))
    # all 8 'g' cells are one object even though they do not touch
    assert "object 1: tl=(2, 2) size=(6, 6) cell_count=8 colour=g" in by_colour
    assert object_view([[0, 0], [0, 0]]) == "no objects (the grid is all background)"


def test_object_variant_calls_match_the_helper_arguments():
    assert ObjectVariant().call() == "get_objects(grid)"
    assert ObjectVariant(True, "diag").call() == "get_objects(grid, multicolor=True, diag=True)"
    assert ObjectVariant(False, "row").call() == "get_objects(grid, by_row=True)"
    assert len(VARIANTS) == 9 and len({v.name for v in VARIANTS}) == 9
    with pytest.raises(ValueError, match="constraint"):
        ObjectVariant(constraint="diagonal")


def test_pixel_view(tasks):
    assert pixel_view(tasks.by_id("d037b0a7").train[0].output).split("\n") == [
        "f (3 cells): (0, 2) (1, 2) (2, 2)",
        "d (2 cells): (1, 1) (2, 1)",
        "c (1 cell): (2, 0)",
    ]
    assert pixel_view([[0]]) == "no coloured cells (the grid is all background)"


def test_difference_view_same_size(tasks):
    assert difference_view(tasks.by_id("d037b0a7").train[0]).split("\n") == [
        "same size 3x3; 3 of 9 cells change.",
        "changed cells (the output letter where a cell changes, '-' where it stays):",
        "- - -",
        "- - f",
        "- d f",
        "changes by colour:",
        "  . -> f at (1, 2) (2, 2)",
        "  . -> d at (2, 1)",
    ]
    grid = ((1, 2), (3, 4))
    assert difference_view(Pair(grid, grid)) == "same size 2x2; the output is identical to the input."


def test_difference_view_size_changes(tasks):
    tiled = difference_view(tasks.by_id("a416b8f3").train[0])     # the input twice, side by side
    assert "size changes from 3x3 (input) to 3x6 (output)." in tiled
    assert "the input appears inside the output with its top-left at (0, 0) (0, 3)." in tiled
    cropped = difference_view(tasks.by_id("2013d3e2").train[0])
    assert "the output appears inside the input with its top-left at (2, 2)." in cropped
    scaled = difference_view(tasks.by_id("c59eb873").train[0])
    assert "every cell scaled to a 2x2 block" in scaled
    assert "colour counts: input .:2 a:1 b:1 e:5; output .:8 a:4 b:4 e:20" in scaled


def test_task_view_text_covers_every_grid(tasks):
    task = tasks.by_id("a416b8f3")
    keys = set(task_view_text(task, View("pixel")))
    assert keys == {("input", 0), ("output", 0), ("input", 1), ("output", 1), ("input", 2),
                    ("output", 2), ("test", 0)}
    assert set(task_view_text(task, DIFFERENCE)) == {("difference", i) for i in range(3)}
    with pytest.raises(ValueError, match="ObjectVariant"):
        View("object")
    with pytest.raises(ValueError, match="view kind"):
        View("symmetry")


def test_default_agents_order_and_count():
    names = [a.name for a in DEFAULT_AGENTS]
    assert names[:4] == ["grid+object[mono,none]", "grid+pixel", "grid+object[mono,diag]",
                         "grid+difference"]
    assert len(names) == 20 and len(set(names)) == 20
    assert all(a.views[0] == GRID for a in DEFAULT_AGENTS)


def test_render_puzzle_shows_each_view_per_grid(tasks):
    task = tasks.by_id("d037b0a7")
    tv = TaskViews(task)
    views = (GRID, obj(), DIFFERENCE)
    for v in views:
        tv.get(v)
    text = render_puzzle(tv, views)
    assert text.startswith("## Example 1\n\n### Input (3x3)\ngrid view:\n. . f\n. d .\nc . .")
    assert "object view (mono-colour):\n3 objects" in text
    assert "- object view (mono-colour): touching cells of the same colour" in view_intro(views)
    assert "### Difference view (input -> output)\nsame size 3x3; 3 of 9 cells change." in text
    assert "## Test input 1 (3x3)" in text and text.count("## Example") == 3
    assert "get_objects(grid)` returns these objects" in view_intro(views)


def test_views_too_long_are_dropped_and_noted(tasks):
    task = tasks.by_id("d0f5fe59")              # 16x10 and 12x12 grids: big object views
    tv = TaskViews(task)
    grid_tokens, object_tokens = tv.tokens(GRID), tv.tokens(obj())
    assert grid_tokens < object_tokens
    budget = (grid_tokens + object_tokens) // 2
    agents = [Agent((GRID, obj())), Agent((GRID, PIXEL)), Agent((GRID,))]
    planned, notes = plan_agents(tv, agents, budget)
    # the object view is dropped: the first agent becomes grid-only, the duplicate goes
    assert [p.name for p in planned][0] == "grid"
    assert [p.name for p in planned].count("grid") == 1
    assert any(n.startswith("view object[mono,none] dropped for task d0f5fe59: about "
                            f"{object_tokens} tokens") for n in notes)
    # an agent whose views together are too long loses its grid view first
    pixel_tokens = tv.tokens(PIXEL)
    assert pixel_tokens < grid_tokens
    planned, notes = plan_agents(tv, [Agent((GRID, PIXEL))], grid_tokens + 1)
    assert [p.name for p in planned] == ["pixel"]
    assert any(n.startswith("agent grid+pixel: grid view left out for task d0f5fe59") for n in notes)
    # nothing fits: no agents, every drop noted
    planned, notes = plan_agents(tv, [Agent((GRID, DIFFERENCE))], 1)
    assert planned == [] and any("skipped" in n for n in notes)


def test_difference_only_agent_is_skipped(tasks):
    tv = TaskViews(tasks.by_id("6150a2bd"))
    planned, notes = plan_agents(tv, [Agent((DIFFERENCE,))], 10_000)
    assert planned == [] and "only its difference view is left" in notes[0]
