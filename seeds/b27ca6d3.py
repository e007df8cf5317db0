# concepts: draw border around object, object size filter, enclosure
# description: The input has red pixels on black; some are lone pixels and some form
#   two-cell bars (touching up/down or left/right). Draw a green frame in the black cells
#   around the bounding box of every two-cell bar, one cell thick; lone pixels are left alone.
import numpy as np
from scipy import ndimage


def transform(grid):
    out = grid.copy()
    h, w = grid.shape
    labels, n = ndimage.label(grid != 0)
    for k in range(1, n + 1):
        rows, cols = np.nonzero(labels == k)
        if len(rows) != 2:
            continue
        r0, r1 = max(rows.min() - 1, 0), min(rows.max() + 1, h - 1)
        c0, c1 = max(cols.min() - 1, 0), min(cols.max() + 1, w - 1)
        frame = out[r0:r1 + 1, c0:c1 + 1]
        frame[frame == 0] = 3
    return out
