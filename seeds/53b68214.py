# concepts: pattern continuation, period with offset, extend grid
# description: The input is a shape that repeats downwards, each repetition possibly shifted
#   sideways by a fixed amount (a straight bar, a zigzag, a staircase). The output is a
#   square grid as wide as the input: continue the repetition down to the bottom, letting
#   cells that move past the side edge drop off.
import numpy as np


def shifted_period(grid):
    """Smallest (rows, shift) with grid[r + rows, c] == grid[r, c - shift] everywhere."""
    h, w = grid.shape
    for p in range(1, h):
        for s in sorted(range(-w + 1, w), key=abs):
            ok = True
            for r in range(h - p):
                for c in range(w):
                    src = grid[r, c - s] if 0 <= c - s < w else 0
                    if grid[r + p, c] != src:
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                return p, s
    return h, 0


def transform(grid):
    h, w = grid.shape
    p, s = shifted_period(grid)
    out = np.zeros((w, w), dtype=int)
    out[:h] = grid
    for r in range(h, w):
        for c in range(w):
            out[r, c] = out[r - p, c - s] if 0 <= c - s < w else 0
    return out
