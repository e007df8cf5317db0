# concepts: symmetry completion, masked region, mirror symmetry, diagonal symmetry
# description: The input is a large pattern that is symmetric under left-right mirroring,
# top-bottom mirroring and transposition, except that its first two rows and columns fall
# outside the mirrored part (the mirror axis sits between indices 15 and 16 of a 30-wide grid).
# Some rectangles are painted over with maroon. Restore every maroon cell from a symmetric
# partner cell that is not maroon.
import numpy as np

MASK = 9


def transform(grid):
    out = grid.copy()
    h, w = out.shape
    span = h + 1  # partner of index i is span - i (axis between 15 and 16 for 30 rows)

    def partners(r, c):
        for pr, pc in ((r, span - c), (span - r, c), (span - r, span - c),
                       (c, r), (span - c, r), (c, span - r), (span - c, span - r)):
            if 0 <= pr < h and 0 <= pc < w:
                yield pr, pc

    changed = True
    while changed:
        changed = False
        for r, c in zip(*np.nonzero(out == MASK)):
            for pr, pc in partners(r, c):
                if out[pr, pc] != MASK:
                    out[r, c] = out[pr, pc]
                    changed = True
                    break
    return out
