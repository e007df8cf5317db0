# concepts: denoising, isolated pixels, connected components with diagonals
# description: The input has pixels of one colour on black; some touch others (also
#   diagonally) and some stand alone. Remove every pixel that has no coloured neighbour among
#   its eight surrounding cells; keep the rest unchanged.
from memory_helpers import remove_noise_pixels


def transform(grid):
    # a pixel with no coloured cell among its eight neighbours is noise; by default the helper
    # finds them as 8-connected objects of one cell (extract, filter, erase objects)
    return remove_noise_pixels(grid)
