# concepts: draw around pixels, neighbourhood ring, surround
# description: The input has scattered grey pixels on black. Surround each grey pixel with a
#   ring of blue in the eight cells around it (clipped at the grid edge); the grey pixels
#   stay grey.
from memory_helpers import surround_pixels


def transform(grid):
    return surround_pixels(grid, color=5, ring_color=1, include_diagonals=True)
