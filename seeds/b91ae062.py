# concepts: scaling, counting colours, upscale factor from the input
# description: The input is a 3x3 grid with several colours on black. Count the distinct
#   non-black colours; scale the grid up by that factor, so each cell becomes a square block
#   of its colour with that side length.
import numpy as np


def transform(grid):
    factor = len(set(np.unique(grid).tolist()) - {0})
    return np.kron(grid, np.ones((factor, factor), dtype=int))
