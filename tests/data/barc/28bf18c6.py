from common import *

import numpy as np
import random

# concepts:
# cropping, copying, horizontal tiling

# description:
# In the input you will see a single small shape on a black background.
# To make the output, crop the shape to its bounding box and place two copies of it side by
# side, left and right.


def main(input_grid):
    # the grid is indexed [x, y]: x runs along the width
    sprite = crop(input_grid, background=Color.BLACK)
    width, height = sprite.shape

    output_grid = np.full((2 * width, height), Color.BLACK)
    blit_sprite(output_grid, sprite, x=0, y=0, background=Color.BLACK)
    blit_sprite(output_grid, sprite, x=width, y=0, background=Color.BLACK)
    return output_grid


def generate_input():
    # not needed for the fixture: BARC seeds carry a random generator here
    raise NotImplementedError("generate_input is a stub in this fixture")


# ============= remove below this point for prompting =============

if True:  # runs at import time: ingest must cut the file at the marker above
    verify_transform(main, "28bf18c6")
    visualize(main, generate_input)
