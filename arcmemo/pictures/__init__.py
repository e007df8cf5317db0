"""Grids as pictures: one layout (layout.py) drawn as SVG for pages (svg.py, drawsvg), PNG for
vision models and files (png.py, Pillow), or coloured cells in the terminal (terminal.py, rich);
charts of runs (plots.py, matplotlib, the [plots] extra).

    svg(task_rows(task), columns=True)    # a puzzle for a page (each pair's input above its output)
    svg(attempt_rows(inputs, predictions, answers))   # attempts against the truth, differences outlined
    task_images(task)                     # PNGs for a vision model; image_part(png) to send one
"""

from arcmemo.pictures.layout import Panel, lay_out
from arcmemo.pictures.palette import COLOURS, NAMES
from arcmemo.pictures.puzzles import attempt_rows, pair_rows, png, svg, task_rows
from arcmemo.pictures.vision import image_part, task_images

__all__ = ["Panel", "lay_out", "COLOURS", "NAMES", "attempt_rows", "pair_rows", "png", "svg", "task_rows",
           "image_part", "task_images"]
