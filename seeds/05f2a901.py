# concepts: movement, slide until contact, object extraction
# description: The input has a red shape and a light-blue 2x2 square lying in line with it
# (same rows or same columns). The red shape slides straight towards the square, in the
# direction of the square, until it touches it; the square stays where it is.
import numpy as np

MOVER, ANCHOR = 2, 8


def transform(grid):
    mover = np.argwhere(grid == MOVER)
    anchor = np.argwhere(grid == ANCHOR)
    # direction: along the axis on which the two objects' extents do not overlap
    dr = int(np.sign(anchor[:, 0].mean() - mover[:, 0].mean()))
    dc = int(np.sign(anchor[:, 1].mean() - mover[:, 1].mean()))
    rows_overlap = mover[:, 0].min() <= anchor[:, 0].max() and anchor[:, 0].min() <= mover[:, 0].max()
    step = (0, dc) if rows_overlap else (dr, 0)
    anchor_cells = {tuple(p) for p in anchor}
    pos = mover.copy()
    while True:
        nxt = pos + step
        if any(tuple(p) in anchor_cells for p in nxt):
            break
        pos = nxt
    out = grid.copy()
    out[grid == MOVER] = 0
    out[pos[:, 0], pos[:, 1]] = MOVER
    return out
