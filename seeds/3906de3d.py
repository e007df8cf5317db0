# concepts: gravity, movement, per-column processing, slide until contact
# description: A blue block hangs from the top edge with notches cut into its underside, and
# red vertical segments stand below it. Each red segment slides straight up, as one rigid
# piece, until it touches the blue block (or the top edge), filling the notch above it.
import numpy as np

MOVING = 2


def transform(grid):
    out = grid.copy()
    for c in range(grid.shape[1]):
        rows = np.nonzero(grid[:, c] == MOVING)[0]
        if len(rows) == 0:
            continue
        out[rows, c] = 0
        shift = 0
        while rows.min() - shift - 1 >= 0 and out[rows.min() - shift - 1, c] == 0:
            shift += 1
        out[rows - shift, c] = MOVING
    return out
