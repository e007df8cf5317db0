# concepts: object extraction, counting, sorting objects, select largest
# description: The input has several single-coloured shapes. Find the shapes with the largest
# cell count (several may tie). The output has one column per tied shape, ordered from left to
# right by where the shapes lie in the input, each column filled with that shape's colour; the
# number of rows equals the largest cell count.
import numpy as np
from scipy import ndimage


def transform(grid):
    shapes = []  # (size, leftmost column, colour)
    for colour in np.unique(grid):
        if colour == 0:
            continue
        labels, n = ndimage.label(grid == colour, structure=np.ones((3, 3)))
        for i in range(1, n + 1):
            cols = np.nonzero(labels == i)[1]
            shapes.append((len(cols), int(cols.min()), int(colour)))
    biggest = max(s[0] for s in shapes)
    winners = sorted((s for s in shapes if s[0] == biggest), key=lambda s: s[1])
    return np.array([[s[2] for s in winners]] * biggest)
