# concepts: line drawing, full row and column lines, intersections
# description: The input has two single coloured pixels on a black background. From each
#   pixel draw a line across its whole row and its whole column in its own colour. Where a
#   line of one pixel crosses a line of the other pixel, colour the crossing cell red.
import numpy as np


def transform(grid):
    points = [(r, c, grid[r, c]) for r, c in zip(*np.nonzero(grid))]
    out = np.zeros_like(grid)
    owner = np.zeros(grid.shape, dtype=int)  # how many different pixels' lines cover a cell
    for r, c, color in points:
        covered = np.zeros(grid.shape, dtype=bool)
        covered[r, :] = True
        covered[:, c] = True
        owner += covered
        out[covered & (out == 0)] = color
    out[owner >= 2] = 2
    # the source pixels keep their own colour
    for r, c, color in points:
        out[r, c] = color
    return out
