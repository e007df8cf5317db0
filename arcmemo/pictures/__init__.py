"""Grids as pictures: one layout (layout.py) drawn as SVG for pages (svg.py, drawsvg), PNG for
vision models and files (png.py, Pillow), or coloured cells in the terminal (terminal.py, rich);
charts of runs (plots.py, matplotlib, the [plots] extra).

    svg(task_rows(task), columns=True)    # a puzzle for a page (each pair's input above its output)
    svg(attempt_rows(inputs, predictions, answers))   # attempts against the truth, differing cells marked ×
    fitted_svg(task_rows(task), 1100, columns=True, together=2)   # cells as large as fit 1100 px
    task_images(task)                     # PNGs for a vision model; image_part(png) to send one
"""

from arcmemo.core.lazy import lazy_exports
from arcmemo.pictures.palette import COLOURS, NAMES
from arcmemo.pictures.panels import Panel
from arcmemo.pictures.puzzles import attempt_rows, fitted_svg, pair_rows, png, svg, task_rows, thumbnail_png
from arcmemo.pictures.vision import image_part, task_images

# the layout's classes are built when first drawn with: printing in the terminal needs none
__getattr__, __dir__ = lazy_exports(__name__, {"arcmemo.pictures.layout": ["lay_out"]})

__all__ = ["Panel", "lay_out", "COLOURS", "NAMES", "attempt_rows", "fitted_svg", "pair_rows", "png", "svg",
           "task_rows", "thumbnail_png", "image_part", "task_images"]
