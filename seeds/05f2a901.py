# concepts: movement, slide until contact, object extraction
# description: The input has a red shape and a light-blue 2x2 square lying in line with it
# (same rows or same columns). The red shape slides straight towards the square, in the
# direction of the square, until it touches it; the square stays where it is.
from memory_helpers import direction_toward_object, extract_objects, slide_object_until_contact

MOVER, ANCHOR = 2, 8


def transform(grid):
    objects = extract_objects(grid, background=0, connectivity=4, by_color=True)
    mover = next(o for o in objects if o["color"] == MOVER)
    anchor = next(o for o in objects if o["color"] == ANCHOR)
    direction = direction_toward_object(mover, anchor)
    return slide_object_until_contact(grid, mover, direction)
