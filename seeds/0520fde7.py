# concepts: grid splitting, overlay, logical and, divider line
# description: The input is two equal panels separated by a grey column. Lay the panels on top
#   of each other: a cell is red where both panels are coloured at that position, and black
#   everywhere else.
import numpy as np


def transform(grid):
    divider = next(c for c in range(grid.shape[1]) if np.all(grid[:, c] == 5))
    left, right = grid[:, :divider], grid[:, divider + 1:]
    return np.where((left != 0) & (right != 0), 2, 0)
