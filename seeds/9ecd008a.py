# concepts: symmetry completion, masked region, cropping
# description: The input is a square pattern symmetric under left-right and top-bottom
# mirroring, with one rectangular patch blanked out in black. The output is just the missing
# patch: recover each blanked cell from its mirrored partner and crop to the patch.
import numpy as np

HOLE = 0


def transform(grid):
    h, w = grid.shape
    rows, cols = np.nonzero(grid == HOLE)
    r0, r1, c0, c1 = rows.min(), rows.max(), cols.min(), cols.max()
    patch = np.zeros((r1 - r0 + 1, c1 - c0 + 1), dtype=grid.dtype)
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            for pr, pc in ((r, w - 1 - c), (h - 1 - r, c), (h - 1 - r, w - 1 - c)):
                if grid[pr, pc] != HOLE:
                    patch[r - r0, c - c0] = grid[pr, pc]
                    break
    return patch
