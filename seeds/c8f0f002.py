# concepts: colour mapping, recolour one colour
# description: The input mixes three colours (blue, light blue and orange). Every orange cell
# becomes grey in the output; all other cells stay as they are.
import numpy as np

SOURCE, TARGET = 7, 5


def transform(grid):
    out = grid.copy()
    out[grid == SOURCE] = TARGET
    return out
