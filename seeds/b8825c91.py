# concepts: symmetry completion, masked region, mirror symmetry
# description: The input is a square pattern symmetric under left-right and top-bottom
# mirroring, but a few patches have been overwritten with yellow. Restore each yellow cell with
# the colour of a mirrored partner cell (horizontal, vertical or both) that is not yellow.
import numpy as np

MASK = 4


def transform(grid):
    out = grid.copy()
    h, w = out.shape
    for r, c in zip(*np.nonzero(grid == MASK)):
        for pr, pc in ((r, w - 1 - c), (h - 1 - r, c), (h - 1 - r, w - 1 - c)):
            if grid[pr, pc] != MASK:
                out[r, c] = grid[pr, pc]
                break
    return out
