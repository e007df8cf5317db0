# concepts: scaling, counting colours, upscale factor from the input
# description: The input is a 3x3 grid with several colours on black. Count the distinct
#   non-black colours; scale the grid up by that factor, so each cell becomes a square block
#   of its colour with that side length.
from memory_helpers import count_colors, scale_grid


def transform(grid):
    return scale_grid(grid, count_colors(grid, background=0))
