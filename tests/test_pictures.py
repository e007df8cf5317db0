"""The grid renderer: known grids give the expected cell colours in SVG (parsed) and PNG (decoded
with Pillow), differing cells are crossed, pictures fit a width, and the vision pictures carry no answers."""

from __future__ import annotations

import base64
import io
import re
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from arcmemo.core.tasks import Pair, Task
from arcmemo.pictures import (
    COLOURS,
    Panel,
    attempt_rows,
    image_part,
    lay_out,
    png,
    svg,
    task_images,
    task_rows,
    thumbnail_png,
)
from arcmemo.pictures.layout import MAX_CELL, READABLE_CELL, fitted, largest_cell, place, resolve_rows
from arcmemo.pictures.palette import DIFF_FRAME, GRID_LINE, rgb
from arcmemo.pictures.png import to_png
from arcmemo.pictures.puzzles import THUMBNAIL_CELL
from arcmemo.pictures.svg import to_svg

SVG = "{http://www.w3.org/2000/svg}"
GRID = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 0, 1))  # every colour once (0 and 1 twice), 4 rows x 3 cols


def _svg_cells(text: str) -> list[list[tuple[float, float, str]]]:
    """Per grid in the SVG: (x, y, fill) of its cells, in document order."""
    root = ET.fromstring(text)
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "cells"]
    return [[(float(r.get("x")), float(r.get("y")), r.get("fill")) for r in g.iter(f"{SVG}rect")] for g in groups]


def _pixel(image: Image.Image, x: float, y: float) -> tuple[int, int, int]:
    return image.getpixel((int(x), int(y)))[:3]


def test_svg_cells_have_the_palette_colours_row_by_row():
    text = to_svg(lay_out([[Panel("a grid", GRID)]], cell=10))
    (cells,) = _svg_cells(text)
    assert [fill for _, _, fill in cells] == [COLOURS[v] for row in GRID for v in row]
    assert COLOURS[:3] == ("#000000", "#0074D9", "#FF4136")  # black, blue, red: the ARC palette
    xs = sorted({x for x, _, _ in cells})
    ys = sorted({y for _, y, _ in cells})
    assert len(xs) == 3 and len(ys) == 4 and xs[1] - xs[0] == 10 and ys[1] - ys[0] == 10
    root = ET.fromstring(text)
    grid = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "grid")
    assert (grid.get("data-rows"), grid.get("data-cols")) == ("4", "3")
    assert [t.text for t in root.iter(f"{SVG}text")] == ["a grid"]
    lines = next(p for p in root.iter(f"{SVG}path") if p.get("class") == "lines")
    assert lines.get("d").count("M") == (4 + 1) + (3 + 1)   # every row and column boundary


def test_png_pixels_have_the_palette_colours():
    scene = lay_out([[Panel("a grid", GRID)]], cell=10)
    image = Image.open(io.BytesIO(to_png(scene)))
    assert image.format == "PNG" and image.size == (scene.width, scene.height)
    (grid,) = scene.grids
    for x, y, value, _, _ in grid.cells():
        assert _pixel(image, x + 5, y + 5) == rgb(COLOURS[value])
    assert _pixel(image, 1, 1) == (255, 255, 255)      # the page around it


def test_differing_cells_are_crossed_and_keep_their_colour():
    expected = ((1, 1, 1), (1, 1, 4))
    got = ((1, 1, 1), (1, 2, 1))
    rows = [[Panel("attempt", got, expected), Panel("expected", expected)]]
    scene = lay_out(rows, cell=24)
    attempt, truth = scene.grids
    assert attempt.differs == {(1, 1), (1, 2)} and not truth.differs
    assert [t.text for t in scene.texts] == ["attempt (2 cells differ)", "expected"]
    image = Image.open(io.BytesIO(to_png(scene)))
    x, y = attempt.x + 24, attempt.y + 24                       # top-left of cell (1, 1), red
    assert _pixel(image, x + 12, y + 12) == (255, 255, 255)     # the × in white ink: red is dark
    for corner in ((x + 3, y + 12), (x + 12, y + 3), (x + 20, y + 12), (x + 12, y + 20)):
        assert _pixel(image, *corner) == rgb(COLOURS[2])        # around the ×, the cell keeps its colour
    blue = attempt.x + 48
    assert _pixel(image, blue + 12, y + 12) == (255, 255, 255) and _pixel(image, blue + 4, y + 12) == rgb(COLOURS[1])
    assert _pixel(image, attempt.x + 12, attempt.y + 12) == rgb(COLOURS[1])   # an equal cell is not marked
    root = ET.fromstring(to_svg(scene))
    marks = [p for p in root.iter(f"{SVG}path") if p.get("class") == "differs"]
    assert len(marks) == 1 and marks[0].get("stroke") == "#FFFFFF" and marks[0].get("d").count("M") == 4
    yellow = lay_out([[Panel("attempt", ((4,),), ((1,),))]], cell=24)
    assert {c.ink for c in yellow.grids[0].crosses()} == {"#000000"}       # black ink on a light colour


def test_wrong_shape_missing_and_invalid_predictions():
    expected = ((1, 2), (3, 4))
    rows = attempt_rows([((0,),)], [[[[5, 5, 5]], None, [[1, 99]]]], [expected])
    scene = lay_out(rows)
    titles = [t.text for t in scene.texts]
    assert titles == ["Test 1 input", "Attempt 1 (1x3, expected 2x2)", "Attempt 2", "Attempt 3", "Expected"]
    wrong = scene.grids[1]
    frame = wrong.frame()
    assert wrong.wrong_shape and not list(wrong.crosses()) and frame.colour == DIFF_FRAME
    assert frame.x < wrong.x and frame.x + frame.w > wrong.x + wrong.width           # around the grid, not on it
    assert [p.text for p in scene.placeholders] == ["no grid", "not a grid"]
    root = ET.fromstring(to_svg(scene))
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "missing"]) == 2
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "wrong-shape"]) == 1


def _square(side: int, value: int = 2) -> tuple:
    return tuple(tuple((value + r + c) % 10 for c in range(side)) for r in range(side))


def test_fitted_cells_fill_the_width_and_stay_readable_by_banding():
    small = Task("s", tuple(Pair(_square(3), _square(3, 7)) for _ in range(4)), (_square(3),))
    scene = fitted(task_rows(small), 1100, columns=True, together=2)
    assert {g.cell for g in scene.grids} == {MAX_CELL} and scene.width <= 1100
    assert len({g.y for g in scene.grids}) == 2                         # inputs above outputs, one band
    big = Task("b", tuple(Pair(_square(30), _square(30, 5)) for _ in range(3)), (_square(30),))
    scene = fitted(task_rows(big, [_square(30, 1)]), 1100, columns=True, together=2)
    assert scene.width <= 1100 and min(g.cell for g in scene.grids) >= READABLE_CELL
    by_band = sorted({g.y for g in scene.grids})
    assert len(by_band) > 2                                            # cut into bands to stay readable
    for grid in scene.grids:                                           # each output right below its input
        if grid.grid[0][0] == 7:                                       # (an output of _square(30, 5))
            above = [g for g in scene.grids if g.x == grid.x and g.y < grid.y]
            assert above and above[-1].grid[0][0] == 2
    one_wide = fitted([[Panel("t", _square(30))]], 400)
    assert one_wide.grids[0].cell == largest_cell(resolve_rows([[Panel("t", _square(30))]]), 400) == 13  # 4+390+4


def test_thumbnail_is_the_first_example_untitled():
    task = _task()
    image = Image.open(io.BytesIO(thumbnail_png(task, 160, 64)))
    assert image.width <= 160 and image.height <= 64
    grid_in, grid_out = place(resolve_rows([[Panel("", task.train[0].input), Panel("", task.train[0].output)]]),
                              THUMBNAIL_CELL, titles=False).grids
    assert image.size == (grid_out.x + grid_out.width + 1, grid_in.height + 2)        # no title above
    assert _pixel(image, grid_in.x + 5, grid_in.y + 5) == rgb(COLOURS[1])
    assert _pixel(image, grid_out.x + 15, grid_out.y + 5) == rgb(COLOURS[1])
    big = Task("b", (Pair(_square(30), _square(30)),), (_square(30),))
    image = Image.open(io.BytesIO(thumbnail_png(big, 160, 64)))
    assert image.height <= 64 and image.width <= 160
    tiny = place(resolve_rows([[Panel("", _square(30))]]), 2, titles=False).grids[0]
    assert tiny.line_width == 0 and not list(tiny.lines())                # cells too small for grid lines


def test_titles_are_escaped_in_svg():
    text = svg([[Panel("<script>alert(1)</script> & co", GRID)]], inline=True)
    assert "<script>" not in text and "&lt;script&gt;" in text and text.startswith("<svg")
    ET.fromstring(text)   # well-formed


def _task() -> Task:
    return Task("t1", (Pair(((1, 0),), ((0, 1),)), Pair(((2, 2), (0, 0)), ((0, 0), (2, 2)))), (((3, 0), (0, 3)),))


def test_task_rows_put_each_output_below_its_input():
    task = _task()
    scene = lay_out(task_rows(task), columns=True)
    titles = {t.text: (t.x, t.y) for t in scene.texts}
    assert titles["Example 1 input"][0] == titles["Example 1 output"][0]
    assert titles["Example 1 input"][1] < titles["Example 1 output"][1]
    assert "Test 1 answer" not in titles
    with_answer = [t.text for t in lay_out(task_rows(task, [((1,),)]), columns=True).texts]
    assert "Test 1 answer" in with_answer


def test_task_images_one_png_per_pair_and_test_input():
    task = _task()
    images = task_images(task, cell=10)
    assert len(images) == len(task.train) + len(task.test_inputs) == 3
    decoded = [Image.open(io.BytesIO(b)) for b in images]
    assert all(d.format == "PNG" for d in decoded)
    # the test picture holds one grid: the input, drawn in its colours
    test_scene = lay_out([[Panel("Test 1 input", task.test_inputs[0])]], cell=10)
    assert decoded[2].size == (test_scene.width, test_scene.height)
    grid = test_scene.grids[0]
    assert _pixel(decoded[2], grid.x + 5, grid.y + 5) == rgb(COLOURS[3])
    # the first pair's picture shows input and output side by side
    pair = lay_out([[Panel("Example 1 input", task.train[0].input), Panel("Example 1 output", task.train[0].output)]],
                   cell=10)
    assert decoded[0].size == (pair.width, pair.height)
    out = pair.grids[1]
    assert _pixel(decoded[0], out.x + 15, out.y + 5) == rgb(COLOURS[1])


def test_image_part_is_an_openai_data_url():
    data = png([[Panel("x", GRID)]])
    part = image_part(data, detail="high")
    assert part["type"] == "image_url" and part["image_url"]["detail"] == "high"
    url = part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == data
    assert "detail" not in image_part(data)["image_url"]
    with pytest.raises(ValueError, match="not a PNG"):
        image_part(b"GIF89a...")


def test_bad_cell_size_is_refused():
    with pytest.raises(ValueError, match="cell size"):
        lay_out([[Panel("x", GRID)]], cell=1)


def test_inline_svg_fetches_nothing():
    text = svg(task_rows(_task()), columns=True)
    urls = set(re.findall(r"https?://[^\"'\s)>]+", text))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}   # namespace names only


def test_a_grid_line_keeps_red_and_orange_apart():
    scene = lay_out([[Panel("red beside orange", ((2, 7),))]], cell=READABLE_CELL)
    (grid,) = scene.grids
    image = Image.open(io.BytesIO(to_png(scene)))
    y = grid.y + grid.cell // 2
    assert _pixel(image, grid.x + grid.cell - 2, y) == rgb(COLOURS[2])
    assert _pixel(image, grid.x + grid.cell, y) == rgb(GRID_LINE)            # the line between them
    assert _pixel(image, grid.x + grid.cell + 2, y) == rgb(COLOURS[7])
    assert grid.line_width >= 1
