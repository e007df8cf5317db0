# concepts: symmetry completion, masked region, mirror symmetry, diagonal symmetry
# description: The input is a large pattern that is symmetric under left-right mirroring,
# top-bottom mirroring and transposition, except that its first two rows and columns fall
# outside the mirrored part (the mirror axis sits between indices 15 and 16 of a 30-wide grid).
# Some rectangles are painted over with maroon. Restore every maroon cell from a symmetric
# partner cell that is not maroon.
from memory_helpers import restore_masked_cells_from_symmetry

MASK = 9


def transform(grid):
    span = grid.shape[0] + 1  # partner of index i is span - i (axis between 15 and 16 for 30 rows)
    symmetries = [lambda p: (p[0], span - p[1]), lambda p: (span - p[0], p[1]),
                  lambda p: (span - p[0], span - p[1]), lambda p: (p[1], p[0]),
                  lambda p: (span - p[1], p[0]), lambda p: (p[1], span - p[0]),
                  lambda p: (span - p[1], span - p[0])]
    return restore_masked_cells_from_symmetry(grid, MASK, symmetries)
