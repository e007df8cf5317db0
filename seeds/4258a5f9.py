# concepts: draw around pixels, neighbourhood ring, surround
# description: The input has scattered grey pixels on black. Surround each grey pixel with a
#   ring of blue in the eight cells around it (clipped at the grid edge); the grey pixels
#   stay grey.
import numpy as np


def transform(grid):
    out = grid.copy()
    h, w = grid.shape
    for r, c in zip(*np.nonzero(grid == 5)):
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                rr, cc = r + dr, c + dc
                if 0 <= rr < h and 0 <= cc < w and out[rr, cc] == 0:
                    out[rr, cc] = 1
    return out
