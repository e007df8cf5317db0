# concepts: cropping, object extraction, select largest, crop to bounding box
# description: The input has several single-coloured shapes on black. The output is the
# largest shape (most cells), cropped to its bounding box.
import numpy as np
from scipy import ndimage


def transform(grid):
    best = None
    for colour in np.unique(grid):
        if colour == 0:
            continue
        labels, n = ndimage.label(grid == colour, structure=np.ones((3, 3)))
        for i in range(1, n + 1):
            mask = labels == i
            if best is None or mask.sum() > best.sum():
                best = mask
    rows, cols = np.nonzero(best)
    crop = grid[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    return np.where(best[rows.min():rows.max() + 1, cols.min():cols.max() + 1], crop, 0)
