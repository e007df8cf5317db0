# concepts: pattern continuation, horizontal period, extend grid
# description: The input has a horizontal band of colours that repeats with some period from
#   left to right. The output is twice as wide; continue the repeating band to the new right
#   edge, keeping the black rows black.
import numpy as np


def transform(grid):
    h, w = grid.shape
    period = next(p for p in range(1, w + 1)
                  if all(np.array_equal(grid[:, c], grid[:, c % p]) for c in range(w)))
    return np.stack([grid[:, c % period] for c in range(2 * w)], axis=1)
