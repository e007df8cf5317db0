# concepts: object extraction, sorting objects, recolour by rank
# description: The input shows four vertical grey bars of different heights standing on the
# bottom edge. Rank the bars by height and recolour them: the tallest becomes blue, the next
# red, then green, and the shortest yellow.
import numpy as np
from scipy import ndimage

RANK_COLOURS = [1, 2, 3, 4]  # tallest first


def transform(grid):
    labels, n = ndimage.label(grid != 0)
    objects = [labels == i for i in range(1, n + 1)]
    objects.sort(key=lambda mask: int(mask.sum()), reverse=True)
    out = np.zeros_like(grid)
    for rank, mask in enumerate(objects):
        out[mask] = RANK_COLOURS[rank]
    return out
