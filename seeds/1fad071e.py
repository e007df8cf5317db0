# concepts: counting, object extraction, filter objects by shape
# description: The input has blue and red 2x2 squares plus stray single blue and red cells.
# Count the blue 2x2 squares (ignoring lone blue cells). The output is a 1x5 row: that many
# blue cells from the left, the rest black.
from memory_helpers import count_objects, extract_objects, filter_objects, render_count_as_grid

COUNTED, WIDTH = 1, 5


def transform(grid):
    blue = filter_objects(extract_objects(grid, background=0), lambda o: o["color"] == COUNTED)
    squares = count_objects(blue, lambda o: o["size"] == 4 and o["height"] == 2 and o["width"] == 2)
    return render_count_as_grid(squares, shape=(1, WIDTH), fill=COUNTED)
