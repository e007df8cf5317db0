# concepts: object extraction, sorting objects, gravity, stacking
# description: The input shows horizontal bars of different colours and distinct lengths
# scattered above a full-width light-blue floor row. In the output the bars are stacked on the
# floor, pushed against the right edge, ordered by length: the longest bar rests directly on
# the floor and each shorter bar sits on the one below it.
import numpy as np

FLOOR = 8


def transform(grid):
    h, w = grid.shape
    out = np.zeros_like(grid)
    floor_rows = [r for r in range(h) if (grid[r] == FLOOR).all()]
    floor = floor_rows[-1]
    out[floor] = FLOOR
    # each bar is a single colour on a single row: (length, colour)
    bars = []
    for r in range(floor):
        colours = [c for c in np.unique(grid[r]) if c != 0]
        for c in colours:
            bars.append((int((grid[r] == c).sum()), int(c)))
    bars.sort(reverse=True)
    for k, (length, colour) in enumerate(bars):
        out[floor - 1 - k, w - length:] = colour
    return out
