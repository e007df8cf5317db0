# concepts: tiling, rotation, rotational symmetry
# description: The input is a small square pattern. The output is twice as wide and tall and
#   is made of four copies arranged around the centre with four-fold rotational symmetry:
#   top-left is the input, top-right is it rotated a quarter turn clockwise, bottom-right a
#   half turn, bottom-left a quarter turn counter-clockwise.
import numpy as np


def transform(grid):
    top = np.concatenate([grid, np.rot90(grid, -1)], axis=1)
    bottom = np.concatenate([np.rot90(grid, 1), np.rot90(grid, 2)], axis=1)
    return np.concatenate([top, bottom], axis=0)
