# concepts: counting, object extraction, output size from count, diagonal line
# description: The input has several separate light-blue blobs on black. Count the blobs; the
# output is an NxN black square (N = number of blobs) with light blue along its main diagonal.
import numpy as np
from scipy import ndimage


def transform(grid):
    colour = grid[grid != 0][0]
    _, n = ndimage.label(grid != 0, structure=np.ones((3, 3)))  # diagonal touching joins a blob
    out = np.zeros((n, n), dtype=grid.dtype)
    np.fill_diagonal(out, colour)
    return out
