# concepts: object extraction, sorting objects, recolour by rank
# description: The input holds three straight grey line segments (horizontal or vertical) of
# different lengths. Recolour them by length: the longest becomes blue, the middle one yellow
# and the shortest red.
import numpy as np
from scipy import ndimage

RANK_COLOURS = [1, 4, 2]  # longest first


def transform(grid):
    labels, n = ndimage.label(grid != 0)
    segments = sorted((labels == i for i in range(1, n + 1)), key=lambda m: int(m.sum()), reverse=True)
    out = np.zeros_like(grid)
    for rank, mask in enumerate(segments):
        out[mask] = RANK_COLOURS[rank]
    return out
