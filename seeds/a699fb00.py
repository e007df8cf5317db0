# concepts: line drawing, gap filling, pairs of pixels
# description: The input has blue pixels in rows, some of them two apart with one empty cell
#   between them. Fill every single empty cell that sits horizontally between two blue
#   pixels with red; everything else stays the same.
import numpy as np


def transform(grid):
    out = grid.copy()
    rows, cols = grid.shape
    for r in range(rows):
        for c in range(1, cols - 1):
            if grid[r, c] == 0 and grid[r, c - 1] == 1 and grid[r, c + 1] == 1:
                out[r, c] = 2
    return out
