# concepts: line drawing, connect same-coloured pairs, drawing order
# description: The input has pairs of same-coloured pixels, each pair lying on the same row
#   or the same column. Connect each pair with a straight line in its colour. Draw the
#   horizontal lines first and the vertical lines afterwards, so vertical lines pass over
#   horizontal ones where they cross.
import numpy as np


def transform(grid):
    out = grid.copy()
    horizontal, vertical = [], []
    for color in np.unique(grid):
        if color == 0:
            continue
        rows, cols = np.nonzero(grid == color)
        if len(rows) != 2:
            continue
        (r1, r2), (c1, c2) = sorted(rows), sorted(cols)
        if r1 == r2:
            horizontal.append((color, r1, c1, c2))
        elif c1 == c2:
            vertical.append((color, c1, r1, r2))
    for color, r, c1, c2 in horizontal:
        out[r, c1:c2 + 1] = color
    for color, c, r1, r2 in vertical:
        out[r1:r2 + 1, c] = color
    return out
