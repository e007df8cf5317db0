# concepts: counting, output size from count
# description: The input is a small black grid with a few cells of one colour. The output is a
# single row whose length equals the number of coloured cells, filled with that colour.
import numpy as np


def transform(grid):
    cells = grid[grid != 0]
    return np.full((1, len(cells)), cells[0])
