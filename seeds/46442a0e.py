# concepts: tiling, rotation, rotational symmetry
# description: The input is a small square pattern. The output is twice as wide and tall and
#   is made of four copies arranged around the centre with four-fold rotational symmetry:
#   top-left is the input, top-right is it rotated a quarter turn clockwise, bottom-right a
#   half turn, bottom-left a quarter turn counter-clockwise.
from memory_helpers import assemble_grid_from_blocks, rotate_grid


def transform(grid):
    return assemble_grid_from_blocks([[grid, rotate_grid(grid, 1)],
                                      [rotate_grid(grid, 3), rotate_grid(grid, 2)]])
