# concepts: tiling, self-similar grid, input as a placement mask
# description: The input is a small grid with one colour on black. The output is the input
#   scaled up by its own size: it is split into blocks the size of the input, one block per
#   input cell. A block holds a copy of the whole input where that input cell is coloured,
#   and stays black where the cell is black.
from memory_helpers import tile_by_placement_mask


def transform(grid):
    return tile_by_placement_mask(grid, grid, place_if=lambda cell: cell != 0)
