# concepts: tiling, self-similar grid, input as a placement mask
# description: The input is a small grid with one colour on black. The output is the input
#   scaled up by its own size: it is split into blocks the size of the input, one block per
#   input cell. A block holds a copy of the whole input where that input cell is coloured,
#   and stays black where the cell is black.
import numpy as np


def transform(grid):
    h, w = grid.shape
    out = np.zeros((h * h, w * w), dtype=int)
    for r in range(h):
        for c in range(w):
            if grid[r, c] != 0:
                out[r * h:(r + 1) * h, c * w:(c + 1) * w] = grid
    return out
