# concepts: gravity, movement, per-column processing
# description: The input has coloured cells scattered over black. Gravity pulls every coloured
# cell straight down: in each column the coloured cells fall to the bottom, keeping their
# top-to-bottom order, with the black cells collecting above them.
from memory_helpers import apply_gravity


def transform(grid):
    return apply_gravity(grid, direction="down", background=0)
