# concepts: colour mapping, fixed colour substitution, pairwise swap
# description: The input is a small grid of vertical stripes. Every colour is replaced by its
# partner under one fixed substitution that swaps colours in pairs (1<->5, 2<->6, 3<->4, 8<->9);
# the layout is unchanged. To make the output, look each cell's colour up in that table.
import numpy as np

# The substitution is learnt from the examples: each pair of colours trades places.
SWAPS = [(1, 5), (2, 6), (3, 4), (8, 9)]


def transform(grid):
    mapping = {c: c for c in range(10)}
    for a, b in SWAPS:
        mapping[a], mapping[b] = b, a
    lookup = np.array([mapping[c] for c in range(10)])
    return lookup[grid]
