from common import *

import numpy as np
import random

# concepts:
# surrounding, neighbourhood ring, objects by colour

# description:
# In the input you will see single pixels of several colours on a black background.
# To make the output, surround every red pixel with a ring of blue pixels in the eight cells
# around it (cut off at the edge of the grid). Pixels of other colours are left alone.


def main(input_grid):
    output_grid = np.copy(input_grid)
    width, height = input_grid.shape

    pixels = find_connected_components(input_grid, background=Color.BLACK, connectivity=4, monochromatic=True)
    for pixel in pixels:
        x, y = object_position(pixel, background=Color.BLACK)
        if pixel[x, y] != Color.RED:
            continue
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                nx, ny = x + dx, y + dy
                if 0 <= nx < width and 0 <= ny < height and output_grid[nx, ny] == Color.BLACK:
                    output_grid[nx, ny] = Color.BLUE
    return output_grid


def generate_input():
    # not needed for the fixture: BARC seeds carry a random generator here
    raise NotImplementedError("generate_input is a stub in this fixture")


# ============= remove below this point for prompting =============

if True:  # runs at import time: ingest must cut the file at the marker above
    verify_transform(main, "dc1df850")
    visualize(main, generate_input)
