# concepts: line drawing, connect same-coloured pairs, drawing order
# description: The input has pairs of same-coloured pixels, each pair lying on the same row
#   or the same column. Connect each pair with a straight line in its colour. Draw the
#   horizontal lines first and the vertical lines afterwards, so vertical lines pass over
#   horizontal ones where they cross.
from memory_helpers import connect_points_with_line, group_pixels_by_color


def transform(grid):
    horizontal, vertical = [], []
    for color, cells in group_pixels_by_color(grid, background=0).items():
        if len(cells) != 2:
            continue
        (r1, c1), (r2, c2) = cells
        if r1 == r2:
            horizontal.append((color, cells))
        elif c1 == c2:
            vertical.append((color, cells))
    out = grid
    for color, (start, end) in horizontal + vertical:  # verticals last: they cross over
        out = connect_points_with_line(out, start, end, color)
    return out
