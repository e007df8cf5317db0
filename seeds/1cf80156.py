# concepts: cropping, crop to bounding box
# description: The input is a large black grid with one coloured shape somewhere in it. The
# output is the shape alone: the grid cropped to the shape's bounding box.
import numpy as np


def transform(grid):
    rows, cols = np.nonzero(grid)
    return grid[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
