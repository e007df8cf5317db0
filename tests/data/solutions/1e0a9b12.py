# concepts: gravity, movement, per-column processing
# description: The input has coloured cells scattered over black. Gravity pulls every coloured
# cell straight down: in each column the coloured cells fall to the bottom, keeping their
# top-to-bottom order, with the black cells collecting above them.
import numpy as np


def transform(grid):
    out = np.zeros_like(grid)
    h = grid.shape[0]
    for c in range(grid.shape[1]):
        cells = grid[:, c][grid[:, c] != 0]
        out[h - len(cells):, c] = cells
    return out
