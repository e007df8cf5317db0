# concepts: movement, step towards target
# description: The input holds one green cell and one yellow cell on black. The green cell moves
# a single step towards the yellow cell (diagonally if they differ in both row and column);
# the yellow cell stays put.
import numpy as np

MOVER, TARGET = 3, 4


def transform(grid):
    (r, c), = np.argwhere(grid == MOVER)
    (tr, tc), = np.argwhere(grid == TARGET)
    out = grid.copy()
    out[r, c] = 0
    out[r + np.sign(tr - r), c + np.sign(tc - c)] = MOVER
    return out
