# concepts: counting, object extraction, filter objects by shape
# description: The input has blue and red 2x2 squares plus stray single blue and red cells.
# Count the blue 2x2 squares (ignoring lone blue cells). The output is a 1x5 row: that many
# blue cells from the left, the rest black.
import numpy as np
from scipy import ndimage

COUNTED, WIDTH = 1, 5


def transform(grid):
    labels, n = ndimage.label(grid == COUNTED)
    squares = 0
    for i in range(1, n + 1):
        rows, cols = np.nonzero(labels == i)
        if len(rows) == 4 and np.ptp(rows) == 1 and np.ptp(cols) == 1:
            squares += 1
    out = np.zeros((1, WIDTH), dtype=grid.dtype)
    out[0, :squares] = COUNTED
    return out
