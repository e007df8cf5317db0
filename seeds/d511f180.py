# concepts: colour mapping, swap two colours
# description: The input is a grid of many colours. Grey and light blue trade places: every
# grey cell becomes light blue and every light-blue cell becomes grey; other colours are kept.
import numpy as np

A, B = 5, 8


def transform(grid):
    out = grid.copy()
    out[grid == A] = B
    out[grid == B] = A
    return out
