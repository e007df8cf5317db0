# concepts: line drawing, connect two points, L-shaped path
# description: The input has one teal pixel and one red pixel. Connect them with a yellow
#   L-shaped path: go straight vertically from the teal pixel until reaching the red pixel's
#   row, then turn and go horizontally until touching the red pixel. The endpoints keep
#   their colours.
import numpy as np


def transform(grid):
    out = grid.copy()
    (tr, tc), = zip(*np.nonzero(grid == 8))
    (rr, rc), = zip(*np.nonzero(grid == 2))
    step = 1 if rr > tr else -1
    for r in range(tr + step, rr + step, step):
        out[r, tc] = 4
    step = 1 if rc > tc else -1
    for c in range(tc, rc, step):
        out[rr, c] = 4
    out[tr, tc] = 8
    out[rr, rc] = 2
    return out
