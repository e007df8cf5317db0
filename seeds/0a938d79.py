# concepts: pattern continuation, repeating stripes, line drawing
# description: The input is a long thin grid with two coloured pixels. Each pixel becomes a
#   full stripe across the short side of the grid (a column when the grid is wider than tall,
#   a row otherwise). The two stripes then repeat, alternating colours with the same spacing,
#   all the way to the far end of the grid.
import numpy as np


def transform(grid):
    transposed = grid.shape[0] > grid.shape[1]
    g = grid.T if transposed else grid  # work with vertical stripes along the long axis
    (r1, c1), (r2, c2) = sorted(zip(*np.nonzero(g)), key=lambda p: p[1])
    colors = [g[r1, c1], g[r2, c2]]
    gap = c2 - c1
    out = np.zeros_like(g)
    for k, c in enumerate(range(c1, g.shape[1], gap)):
        out[:, c] = colors[k % 2]
    return out.T if transposed else out
