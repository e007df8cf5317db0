# concepts: flood fill, enclosed regions, background reachable from the border
# description: The input has green outlines drawn on black, some of which close off pockets
#   of black cells. Black cells that cannot be reached from the grid border by moving up,
#   down, left or right through black cells are enclosed; colour them yellow.
from memory_helpers import fill_enclosed_regions


def transform(grid):
    # 4-connected black pockets that cannot reach the border turn yellow
    return fill_enclosed_regions(grid, background=0, fill_color=4, connectivity=4)
