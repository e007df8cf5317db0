# concepts: pattern continuation, vertical period, recolour
# description: The input is a blue pattern made of rows that repeat with some period from top
#   to bottom. Continue the repetition downwards until the grid is one and a half times as
#   tall, and recolour blue to red.
import numpy as np


def row_period(grid):
    h = grid.shape[0]
    for p in range(1, h + 1):
        if all(np.array_equal(grid[r], grid[r % p]) for r in range(h)):
            return p
    return h


def transform(grid):
    h, w = grid.shape
    p = row_period(grid)
    new_h = h * 3 // 2
    out = np.array([grid[r % p] for r in range(new_h)])
    out[out == 1] = 2
    return out
