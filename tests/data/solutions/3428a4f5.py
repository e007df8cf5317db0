# concepts: grid splitting, overlay, logical xor, divider line
# description: The input is two equal panels stacked vertically, separated by a yellow row.
#   Lay the panels on top of each other: a cell is green where exactly one of the two panels
#   is coloured at that position, and black where both or neither are.
import numpy as np


def transform(grid):
    divider = next(r for r in range(grid.shape[0]) if np.all(grid[r] == 4))
    top, bottom = grid[:divider], grid[divider + 1:]
    return np.where((top != 0) ^ (bottom != 0), 3, 0)
