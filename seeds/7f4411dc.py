# concepts: denoising, keep solid rectangles, remove stray pixels
# description: The input has solid rectangles of one colour plus stray pixels of the same
#   colour, some lying alone and some stuck to a rectangle's edge. Keep only cells that belong
#   to a fully coloured 2x2 square; everything else becomes black, leaving clean rectangles.
import numpy as np


def transform(grid):
    h, w = grid.shape
    keep = np.zeros(grid.shape, dtype=bool)
    for r in range(h - 1):
        for c in range(w - 1):
            if np.all(grid[r:r + 2, c:c + 2] != 0):
                keep[r:r + 2, c:c + 2] = True
    return np.where(keep, grid, 0)
