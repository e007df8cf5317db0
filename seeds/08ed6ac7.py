# concepts: object extraction, sorting objects, recolour by rank
# description: The input shows four vertical grey bars of different heights standing on the
# bottom edge. Rank the bars by height and recolour them: the tallest becomes blue, the next
# red, then green, and the shortest yellow.
import numpy as np
from memory_helpers import extract_objects, recolor_objects_by_property, sort_objects

RANK_COLOURS = [1, 2, 3, 4]  # tallest first


def transform(grid):
    bars = sort_objects(extract_objects(grid, background=0), key="size", descending=True)
    rank = {id(bar): i for i, bar in enumerate(bars)}
    return recolor_objects_by_property(np.zeros_like(grid), bars, lambda bar: RANK_COLOURS[rank[id(bar)]])
