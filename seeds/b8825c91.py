# concepts: symmetry completion, masked region, mirror symmetry
# description: The input is a square pattern symmetric under left-right and top-bottom
# mirroring, but a few patches have been overwritten with yellow. Restore each yellow cell with
# the colour of a mirrored partner cell (horizontal, vertical or both) that is not yellow.
import numpy as np
from memory_helpers import flip_grid

MASK = 4


def transform(grid):
    out = grid
    # each yellow cell takes its mirror partner's colour: left-right, then top-bottom, then both
    for mirrored in (flip_grid(grid, "horizontal"), flip_grid(grid, "vertical"),
                     flip_grid(flip_grid(grid, "horizontal"), "vertical")):
        out = np.where((out == MASK) & (mirrored != MASK), mirrored, out)
    return out
