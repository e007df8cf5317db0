# concepts: cropping, odd one out, crop to bounding box, grid splitting
# description: The input is split by black gutters into four noisy blocks. Three blocks share
# one colour and one block uses a different colour. The output is that odd block, cropped to
# the bounding box of its colour.
import numpy as np


def transform(grid):
    colours, counts = np.unique(grid[grid != 0], return_counts=True)
    odd = colours[np.argmin(counts)]  # the colour of a single block is the rarest
    rows, cols = np.nonzero(grid == odd)
    return grid[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
