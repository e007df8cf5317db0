"""A small helper library in the style of BARC's `common.py` (test fixture, written here).

Grids follow BARC's convention: numpy arrays indexed [x, y], x being the column.
Seed files use it with `from common import *`.
"""

import numpy as np
from scipy import ndimage


class Color:
    BLACK = 0
    BLUE = 1
    RED = 2
    GREEN = 3
    YELLOW = 4
    GREY = 5
    GRAY = 5
    PINK = 6
    ORANGE = 7
    TEAL = 8
    MAROON = 9
    ALL_COLORS = [BLACK, BLUE, RED, GREEN, YELLOW, GREY, PINK, ORANGE, TEAL, MAROON]
    NOT_BLACK = [BLUE, RED, GREEN, YELLOW, GREY, PINK, ORANGE, TEAL, MAROON]


def find_connected_components(grid, background=Color.BLACK, connectivity=4, monochromatic=True):
    """Objects of the grid, each returned as a full-size grid holding only that object.

    connectivity is 4 (edges) or 8 (edges and corners); monochromatic=True splits touching
    objects of different colours.
    """
    if connectivity not in (4, 8):
        raise ValueError(f"find_connected_components: connectivity must be 4 or 8, got {connectivity}")
    structure = np.ones((3, 3), dtype=int) if connectivity == 8 else None
    components = []
    if monochromatic:
        masks = [grid == color for color in np.unique(grid) if color != background]
    else:
        masks = [grid != background]
    for mask in masks:
        labels, count = ndimage.label(mask, structure=structure)
        for k in range(1, count + 1):
            component = np.full_like(grid, background)
            component[labels == k] = grid[labels == k]
            components.append(component)
    return components


def bounding_box(grid, background=Color.BLACK):
    """(x, y, width, height) of the non-background cells; raises on an empty grid."""
    xs, ys = np.nonzero(grid != background)
    if len(xs) == 0:
        raise ValueError("bounding_box: the grid has no non-background cell")
    return int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def crop(grid, background=Color.BLACK):
    """The smallest sub-grid containing every non-background cell."""
    x, y, width, height = bounding_box(grid, background)
    return grid[x:x + width, y:y + height].copy()


def blit_sprite(grid, sprite, x, y, background=Color.BLACK):
    """Copy the sprite's non-background cells onto grid with its corner at (x, y), in place.

    Cells falling outside the grid are dropped.
    """
    for dx in range(sprite.shape[0]):
        for dy in range(sprite.shape[1]):
            gx, gy = x + dx, y + dy
            if sprite[dx, dy] != background and 0 <= gx < grid.shape[0] and 0 <= gy < grid.shape[1]:
                grid[gx, gy] = sprite[dx, dy]
    return grid


def object_position(obj, background=Color.BLACK):
    """(x, y) of the top-left corner of the object's bounding box."""
    x, y, _, _ = bounding_box(obj, background)
    return x, y


def draw_line(grid, x, y, length=None, color=Color.BLUE, direction=(1, 0)):
    """Draw from (x, y) stepping by direction (dx, dy) until the edge or `length` cells."""
    dx, dy = direction
    drawn = 0
    while 0 <= x < grid.shape[0] and 0 <= y < grid.shape[1] and (length is None or drawn < length):
        grid[x, y] = color
        x, y, drawn = x + dx, y + dy, drawn + 1
    return grid
