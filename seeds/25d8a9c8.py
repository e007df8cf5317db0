# concepts: colour mapping, row classification, uniform row
# description: The input is a small grid of coloured rows. A row made of a single colour is
# painted grey in the output; any row that mixes colours becomes black. The row is the unit:
# the output colour depends only on whether that row is uniform.
import numpy as np

UNIFORM, MIXED = 5, 0


def transform(grid):
    out = np.zeros_like(grid)
    for r in range(grid.shape[0]):
        out[r, :] = UNIFORM if len(np.unique(grid[r])) == 1 else MIXED
    return out
