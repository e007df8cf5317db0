# concepts: flood fill, enclosed regions, background reachable from the border
# description: The input has green outlines drawn on black, some of which close off pockets
#   of black cells. Black cells that cannot be reached from the grid border by moving up,
#   down, left or right through black cells are enclosed; colour them yellow.
import numpy as np
from scipy import ndimage


def transform(grid):
    out = grid.copy()
    labels, n = ndimage.label(grid == 0)  # 4-connected black regions
    border = set(labels[0, :]) | set(labels[-1, :]) | set(labels[:, 0]) | set(labels[:, -1])
    for k in range(1, n + 1):
        if k not in border:
            out[labels == k] = 4
    return out
