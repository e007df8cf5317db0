# concepts: grid splitting, overlay, logical xor, divider line
# description: The input is two equal panels stacked vertically, separated by a yellow row.
#   Lay the panels on top of each other: a cell is green where exactly one of the two panels
#   is coloured at that position, and black where both or neither are.
from memory_helpers import overlay_panels, split_grid


def transform(grid):
    top, bottom = split_grid(grid, scheme="dividers")   # at the yellow row
    return overlay_panels([top, bottom], combine="xor", on_color=3, off_color=0)
