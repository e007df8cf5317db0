# concepts: tiling, input as a placement mask, most frequent colour
# description: The input is a 3x3 grid of colours. Find the colour that occurs most often.
#   The output is 9x9, split into 3x3 blocks matching the input cells: a block gets a copy of
#   the input where the input cell has the most frequent colour, and is black otherwise.
import numpy as np


def transform(grid):
    h, w = grid.shape
    colors, counts = np.unique(grid, return_counts=True)
    majority = colors[np.argmax(counts)]
    out = np.zeros((h * h, w * w), dtype=int)
    for r in range(h):
        for c in range(w):
            if grid[r, c] == majority:
                out[r * h:(r + 1) * h, c * w:(c + 1) * w] = grid
    return out
