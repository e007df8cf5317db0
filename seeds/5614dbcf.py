# concepts: denoising, downscaling, block majority
# description: The input is a 3x3 arrangement of solid 3x3 blocks (coloured or black),
#   sprinkled with grey noise pixels. Shrink each block to one cell holding the block's most
#   common colour, which ignores the noise.
import numpy as np


def transform(grid):
    n = 3
    h, w = grid.shape[0] // n, grid.shape[1] // n
    out = np.zeros((h, w), dtype=int)
    for r in range(h):
        for c in range(w):
            block = grid[r * n:(r + 1) * n, c * n:(c + 1) * n]
            colors, counts = np.unique(block, return_counts=True)
            out[r, c] = colors[np.argmax(counts)]
    return out
