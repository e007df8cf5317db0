# concepts: pattern continuation, period with offset, extend grid
# description: The input is a shape that repeats downwards, each repetition possibly shifted
#   sideways by a fixed amount (a straight bar, a zigzag, a staircase). The output is a
#   square grid as wide as the input: continue the repetition down to the bottom, letting
#   cells that move past the side edge drop off.
from memory_helpers import continue_periodic_pattern, find_repetition_period


def transform(grid):
    period, shift = find_repetition_period(grid, axis="rows", allow_shift=True)
    width = grid.shape[1]
    return continue_periodic_pattern(grid, period, shift, (width, width))
