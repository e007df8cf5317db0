"""Hand-written helpers of the annotated seeds' concepts.

Each function implements one PS concept of a seed annotation (`helper: NAME` in
`<task_id>.yaml`); the seeds' `transform`s import them from `memory_helpers`, the module
the sandbox builds from memory for a task. `arcmemo seed` stores each one with its
concept (its source: the function plus the imports it uses) once the seed's program,
run with the module built from its concepts' helpers, passes every pair of its task.

Objects (the `object` type) are dicts: `mask` (bool array of the grid's shape), `color`
(its most common colour), `colors`, `size` (cells), `bbox` (top, left, bottom, right,
inclusive), `position` (top, left), `height`, `width`.
"""

import numpy as np
from scipy import ndimage


def color_mapping(grid, mapping):
    """Replace every cell's colour through a colour -> colour table; colours not in it stay.

    Example: color_mapping(np.array([[1, 2], [2, 3]]), {2: 5}) -> [[1, 5], [5, 3]]
    """
    lookup = np.arange(10)
    for source, target in mapping.items():
        lookup[source] = target
    return lookup[np.asarray(grid)]


def rotate_grid(grid, quarter_turns):
    """Rotate the grid clockwise by a number of quarter turns (1 = 90 degrees, 2 = 180, 3 = 270).

    Example: rotate_grid(np.array([[1, 2], [3, 4]]), 1) -> [[3, 1], [4, 2]]
    """
    return np.rot90(np.asarray(grid), -int(quarter_turns))


def flip_grid(grid, axis):
    """Mirror the grid: "horizontal" swaps left and right, "vertical" swaps top and bottom,
    "diagonal" transposes (rows become columns), "antidiagonal" mirrors across the other diagonal.

    Example: flip_grid(np.array([[1, 2], [3, 4]]), "horizontal") -> [[2, 1], [4, 3]]
    """
    grid = np.asarray(grid)
    flips = {"horizontal": lambda g: g[:, ::-1], "vertical": lambda g: g[::-1, :],
             "diagonal": lambda g: g.T, "antidiagonal": lambda g: g[::-1, ::-1].T}
    if axis not in flips:
        raise ValueError(f"axis must be one of {', '.join(flips)}, not {axis!r}")
    return flips[axis](grid).copy()


def assemble_grid_from_blocks(blocks):
    """Join equally sized grids into one grid: a list of rows, each row a list of grids side by side.

    Example: assemble_grid_from_blocks([[np.array([[1]]), np.array([[2]])]]) -> [[1, 2]]
    """
    return np.block([[np.asarray(b) for b in row] for row in blocks])


def scale_grid(grid, factor):
    """Scale the grid up: every cell becomes a factor x factor block of its colour.

    Example: scale_grid(np.array([[1, 2]]), 2) -> [[1, 1, 2, 2], [1, 1, 2, 2]]
    """
    return np.kron(np.asarray(grid), np.ones((int(factor), int(factor)), dtype=int))


def count_colors(grid, background=0):
    """How many different colours the grid has, the background not counted.

    Example: count_colors(np.array([[0, 1], [2, 2]]), 0) -> 2
    """
    return len(set(np.unique(grid).tolist()) - {background})


def tile_by_placement_mask(tile, mask, place_if=None, fill=0):
    """A grid of mask-sized blocks of tile's size: a copy of tile where place_if(mask cell) holds
    (default: the cell is not 0), `fill` elsewhere.

    Example: tile_by_placement_mask(np.array([[1, 0]]), np.array([[1, 0]])) -> [[1, 0, 0, 0]]
    """
    tile, mask = np.asarray(tile), np.asarray(mask)
    th, tw = tile.shape
    out = np.full((mask.shape[0] * th, mask.shape[1] * tw), fill, dtype=int)
    for r in range(mask.shape[0]):
        for c in range(mask.shape[1]):
            if (place_if(mask[r, c]) if place_if is not None else mask[r, c] != 0):
                out[r * th:(r + 1) * th, c * tw:(c + 1) * tw] = tile
    return out


def extract_objects(grid, background=0, connectivity=4, by_color=True):
    """The connected groups of non-background cells, as object dicts (mask, color, colors, size,
    bbox, position, height, width), in reading order of their top-left cell. connectivity 4 joins
    cells sharing an edge, 8 also corners; by_color=False lets touching colours form one object.

    Example: [o["size"] for o in extract_objects(np.array([[1, 0, 2], [1, 0, 0]]))] -> [2, 1]
    """
    grid = np.asarray(grid)
    structure = np.ones((3, 3), dtype=int) if connectivity == 8 else None
    layers = [grid == c for c in np.unique(grid) if c != background] if by_color else [grid != background]
    objects = []
    for layer in layers:
        labels, n = ndimage.label(layer, structure=structure)
        for k in range(1, n + 1):
            mask = labels == k
            rows, cols = np.nonzero(mask)
            values, counts = np.unique(grid[mask], return_counts=True)
            top, left, bottom, right = int(rows.min()), int(cols.min()), int(rows.max()), int(cols.max())
            objects.append({"mask": mask, "color": int(values[np.argmax(counts)]),
                            "colors": [int(v) for v in values], "size": int(mask.sum()),
                            "bbox": (top, left, bottom, right), "position": (top, left),
                            "height": bottom - top + 1, "width": right - left + 1})
    return sorted(objects, key=lambda o: o["position"])


def touches_border(object, grid_shape):
    """Whether the object has a cell on the grid's outer edge.

    Example: touches_border({"bbox": (0, 1, 1, 1)}, (3, 3)) -> True
    """
    top, left, bottom, right = object["bbox"]
    return top == 0 or left == 0 or bottom == grid_shape[0] - 1 or right == grid_shape[1] - 1


def fill_enclosed_regions(grid, background, fill_color, connectivity=4):
    """Colour fill_color every background region that cannot reach the grid's edge (moving through
    background cells with the given connectivity): the pockets enclosed by shapes.

    Example: fill_enclosed_regions(np.array([[3, 3, 3], [3, 0, 3], [3, 3, 3]]), 0, 4) -> [[3, 3, 3], [3, 4, 3], [3, 3, 3]]
    """
    grid = np.asarray(grid)
    out = grid.copy()
    regions = extract_objects(np.where(grid == background, 1, 0), background=0, connectivity=connectivity)
    for region in regions:
        if not touches_border(region, grid.shape):
            out[region["mask"]] = fill_color
    return out


def filter_objects(objects, predicate):
    """The objects for which predicate(object) is true, in their order.

    Example: len(filter_objects([{"size": 1}, {"size": 4}], lambda o: o["size"] > 1)) -> 1
    """
    return [o for o in objects if predicate(o)]


def count_objects(objects, predicate=None):
    """How many objects there are (those satisfying predicate, when given).

    Example: count_objects([{"size": 1}, {"size": 4}], lambda o: o["size"] == 4) -> 1
    """
    return sum(1 for o in objects if predicate is None or predicate(o))


def render_count_as_grid(n, shape=None, fill=1):
    """A grid showing a count: n cells of colour fill, in reading order, the rest 0; shape
    (rows, cols) defaults to one row of n cells.

    Example: render_count_as_grid(2, (1, 4), 3) -> [[3, 3, 0, 0]]
    """
    rows, cols = shape if shape is not None else (1, max(int(n), 1))
    out = np.zeros(rows * cols, dtype=int)
    out[:int(n)] = fill
    return out.reshape(rows, cols)


def sort_objects(objects, key, descending=False):
    """The objects ordered by key(object), or by a dict key such as "size" when key is a string.

    Example: [o["size"] for o in sort_objects([{"size": 1}, {"size": 4}], "size", True)] -> [4, 1]
    """
    measure = (lambda o: o[key]) if isinstance(key, str) else key
    return sorted(objects, key=measure, reverse=descending)


def recolor_objects_by_property(grid, objects, color_of):
    """The grid with each object's cells painted color_of(object) (objects are painted in order).

    Example: recolor_objects_by_property(np.array([[5, 0]]), [{"mask": np.array([[True, False]])}], lambda o: 2) -> [[2, 0]]
    """
    out = np.array(grid, dtype=int)
    for o in objects:
        out[o["mask"]] = color_of(o)
    return out


def erase_objects(grid, objects, background=0):
    """The grid with the cells of the given objects set to background.

    Example: erase_objects(np.array([[5, 5]]), [{"mask": np.array([[True, False]])}]) -> [[0, 5]]
    """
    out = np.array(grid, dtype=int)
    for o in objects:
        out[o["mask"]] = background
    return out


def remove_noise_pixels(grid, is_noise=None):
    """The grid with noise pixels set to 0: is_noise(grid, (row, col)) decides; by default a pixel
    is noise when none of its eight neighbours is coloured.

    Example: remove_noise_pixels(np.array([[1, 0, 0], [0, 0, 1], [0, 0, 1]])) -> [[0, 0, 0], [0, 0, 1], [0, 0, 1]]
    """
    grid = np.asarray(grid)
    if is_noise is None:
        lone = filter_objects(extract_objects(grid, connectivity=8, by_color=False), lambda o: o["size"] == 1)
        return erase_objects(grid, lone)
    out = grid.copy()
    for r, c in zip(*np.nonzero(grid)):
        if is_noise(grid, (int(r), int(c))):
            out[r, c] = 0
    return out


def split_grid(grid, scheme="dividers"):
    """Cut the grid into panels. scheme "dividers": at the full rows or columns of one colour that
    appears nowhere else (the divider lines are dropped); an int n: into n equal parts along the
    longer side; a function: scheme(grid) returns the panels.

    Example: [p.tolist() for p in split_grid(np.array([[1, 4, 2], [0, 4, 1]]))] -> [[[1], [0]], [[2], [1]]]
    """
    grid = np.asarray(grid)
    if callable(scheme):
        return list(scheme(grid))
    if scheme != "dividers":
        return np.split(grid, int(scheme), axis=0 if grid.shape[0] >= grid.shape[1] else 1)
    for axis in ((0, 1) if grid.shape[0] >= grid.shape[1] else (1, 0)):
        lines = grid if axis == 0 else grid.T
        uniform = [i for i in range(lines.shape[0]) if lines[i, 0] != 0 and np.all(lines[i] == lines[i, 0])]
        for color in dict.fromkeys(int(lines[i, 0]) for i in uniform):
            dividers = [i for i in uniform if lines[i, 0] == color]
            if np.sum(grid == color) == len(dividers) * lines.shape[1]:
                cuts = [-1] + dividers + [lines.shape[0]]
                parts = [lines[a + 1:b] for a, b in zip(cuts, cuts[1:]) if b > a + 1]
                return [p if axis == 0 else p.T for p in parts]
    return [grid]


def overlay_panels(panels, combine, on_color, off_color=0):
    """Lay equally sized panels on top of each other: where combine holds for the cells at a
    position the output is on_color, elsewhere off_color. combine is "and", "or", "xor" (exactly
    one), "nor" (none) or "nand" on "the panel's cell is coloured (not 0)", or a function of the
    list of booleans.

    Example: overlay_panels([np.array([[1, 0]]), np.array([[1, 1]])], "xor", 3) -> [[0, 3]]
    """
    masks = np.array([np.asarray(p) != 0 for p in panels])
    rules = {"and": lambda m: m.all(axis=0), "or": lambda m: m.any(axis=0), "xor": lambda m: m.sum(axis=0) == 1,
             "nor": lambda m: ~m.any(axis=0), "nand": lambda m: ~m.all(axis=0)}
    if isinstance(combine, str):
        hold = rules[combine](masks)
    else:
        hold = np.array([[bool(combine(list(masks[:, r, c]))) for c in range(masks.shape[2])]
                         for r in range(masks.shape[1])])
    return np.where(hold, on_color, off_color)


def restore_masked_cells_from_symmetry(grid, mask_color, symmetries):
    """Fill every cell of mask_color from a symmetric partner that is not masked: symmetries are
    functions (row, col) -> (row, col); repeats until nothing changes (partners outside the grid
    are skipped).

    Example: restore_masked_cells_from_symmetry(np.array([[1, 9]]), 9, [lambda p: (p[0], 1 - p[1])]) -> [[1, 1]]
    """
    out = np.array(grid, dtype=int)
    h, w = out.shape
    changed = True
    while changed:
        changed = False
        for r, c in zip(*np.nonzero(out == mask_color)):
            for symmetry in symmetries:
                pr, pc = symmetry((int(r), int(c)))
                if 0 <= pr < h and 0 <= pc < w and out[pr, pc] != mask_color:
                    out[r, c] = out[pr, pc]
                    changed = True
                    break
    return out


def connect_points_with_line(grid, start, end, color, overwrite=True):
    """Draw a straight line (horizontal, vertical or diagonal) from start to end, both (row, col)
    and included; with overwrite=False only 0 cells are painted.

    Example: connect_points_with_line(np.zeros((1, 4), dtype=int), (0, 0), (0, 2), 5) -> [[5, 5, 5, 0]]
    """
    out = np.array(grid, dtype=int)
    (r0, c0), (r1, c1) = start, end
    steps = max(abs(r1 - r0), abs(c1 - c0))
    if steps and (r0 != r1 and c0 != c1) and abs(r1 - r0) != abs(c1 - c0):
        raise ValueError(f"{start} and {end} are not on one row, column or diagonal")
    dr, dc = int(np.sign(r1 - r0)), int(np.sign(c1 - c0))
    for i in range(steps + 1):
        r, c = r0 + i * dr, c0 + i * dc
        if overwrite or out[r, c] == 0:
            out[r, c] = color
    return out


def group_pixels_by_color(grid, background=0):
    """The positions (row, col) of each colour's cells, background left out, in reading order.

    Example: group_pixels_by_color(np.array([[0, 3], [3, 1]])) -> {1: [(1, 1)], 3: [(0, 1), (1, 0)]}
    """
    grid = np.asarray(grid)
    return {int(c): [(int(r), int(k)) for r, k in zip(*np.nonzero(grid == c))]
            for c in np.unique(grid) if c != background}


def select_object_by_criterion(objects, key, mode="max"):
    """The one object picked by key (a function of the object, or a dict key such as "size"):
    mode "max" or "min" the extreme one, "unique" the only object whose key no other shares.

    Example: select_object_by_criterion([{"size": 1}, {"size": 4}], "size")["size"] -> 4
    """
    measure = (lambda o: o[key]) if isinstance(key, str) else key
    if mode == "max":
        return max(objects, key=measure)
    if mode == "min":
        return min(objects, key=measure)
    values = [measure(o) for o in objects]
    unique = [o for o, v in zip(objects, values) if values.count(v) == 1]
    if len(unique) != 1:
        raise ValueError(f"{len(unique)} objects have a value no other shares, not exactly one")
    return unique[0]


def crop_to_bounding_box(grid, region, keep_only_object=False):
    """The smallest rectangle of the grid holding the region (an object, or a bool mask of the
    grid's shape); keep_only_object=True sets the cells outside the region to 0.

    Example: crop_to_bounding_box(np.array([[0, 0], [0, 7]]), np.array([[0, 0], [0, 7]]) != 0) -> [[7]]
    """
    grid = np.asarray(grid)
    mask = np.asarray(region["mask"] if isinstance(region, dict) else region, dtype=bool)
    rows, cols = np.nonzero(mask)
    box = (slice(rows.min(), rows.max() + 1), slice(cols.min(), cols.max() + 1))
    return np.where(mask[box], grid[box], 0) if keep_only_object else grid[box].copy()


def direction_toward_object(source, target):
    """The unit step (d_row, d_col) that moves source toward target along the axis on which
    they are apart (their rows overlap: sideways; otherwise up or down).

    Example: direction_toward_object({"bbox": (0, 0, 0, 0)}, {"bbox": (0, 3, 0, 3)}) -> (0, 1)
    """
    s_top, s_left, s_bottom, s_right = source["bbox"]
    t_top, t_left, t_bottom, t_right = target["bbox"]
    if s_top <= t_bottom and t_top <= s_bottom:
        return (0, 1 if t_left > s_right else -1)
    return (1 if t_top > s_bottom else -1, 0)


def slide_object_until_contact(grid, object, direction, stop=None):
    """Move the object step by step in direction (d_row, d_col) until the next step would overlap
    another coloured cell or leave the grid, or stop(grid, object) holds; the grid with it moved.

    Example: slide_object_until_contact(np.array([[2, 0, 0, 8]]), {"mask": np.array([[True, False, False, False]])}, (0, 1)) -> [[0, 0, 2, 8]]
    """
    grid = np.asarray(grid)
    mask = np.asarray(object["mask"], dtype=bool)
    colors = np.where(mask, grid, 0)
    rest = np.where(mask, 0, grid)
    dr, dc = direction
    h, w = grid.shape
    while True:
        rows, cols = np.nonzero(mask)
        rows, cols = rows + dr, cols + dc
        if rows.min() < 0 or cols.min() < 0 or rows.max() >= h or cols.max() >= w or np.any(rest[rows, cols] != 0):
            break
        mask = np.roll(mask, (dr, dc), axis=(0, 1))
        colors = np.roll(colors, (dr, dc), axis=(0, 1))
        if stop is not None and stop(np.where(mask, colors, rest), {**object, "mask": mask}):
            break
    return np.where(mask, colors, rest)


def surround_pixels(grid, color, ring_color, include_diagonals=True):
    """Paint ring_color into the 0 cells around every cell of colour color: its eight neighbours
    (only the four edge neighbours when include_diagonals=False), clipped at the grid's edge.

    Example: surround_pixels(np.array([[0, 0, 0], [0, 5, 0]]), 5, 1) -> [[1, 1, 1], [1, 5, 1]]
    """
    grid = np.asarray(grid)
    out = grid.copy()
    h, w = grid.shape
    steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
             if (dr or dc) and (include_diagonals or not (dr and dc))]
    for r, c in zip(*np.nonzero(grid == color)):
        for dr, dc in steps:
            rr, cc = r + dr, c + dc
            if 0 <= rr < h and 0 <= cc < w and out[rr, cc] == 0:
                out[rr, cc] = ring_color
    return out


def apply_gravity(grid, direction="down", background=0):
    """Let every non-background cell fall in direction ("down", "up", "left" or "right") to the edge
    or onto the cells below it, keeping the order of the cells in each column (or row).

    Example: apply_gravity(np.array([[1, 0], [0, 0], [2, 3]])) -> [[0, 0], [1, 0], [2, 3]]
    """
    grid = np.asarray(grid)
    turns = {"down": 0, "left": 1, "up": 2, "right": 3}[direction]
    turned = np.rot90(grid, turns)
    out = np.full_like(turned, background)
    for c in range(turned.shape[1]):
        cells = turned[:, c][turned[:, c] != background]
        out[turned.shape[0] - len(cells):, c] = cells
    return np.rot90(out, -turns)


def find_repetition_period(grid, axis="rows", allow_shift=True):
    """The smallest (period, shift) with which the grid repeats along axis ("rows": downwards,
    "cols": rightwards): cell (r + period, c) equals cell (r, c - shift) (0 beyond the edge);
    shift is 0 unless allow_shift. (size, 0) when nothing repeats.

    Example: find_repetition_period(np.array([[1, 0], [0, 1], [1, 0]]), "rows", False) -> (2, 0)
    """
    grid = np.asarray(grid) if axis == "rows" else np.asarray(grid).T
    h, w = grid.shape
    shifts = sorted(range(-w + 1, w), key=abs) if allow_shift else [0]
    for period in range(1, h):
        for shift in shifts:
            moved = np.zeros_like(grid[:h - period])
            if shift >= 0:
                moved[:, shift:] = grid[:h - period, :w - shift]
            else:
                moved[:, :shift] = grid[:h - period, -shift:]
            if np.array_equal(grid[period:], moved):
                return period, shift
    return h, 0


def continue_periodic_pattern(grid, period, shift, target_shape):
    """A grid of target_shape (rows, cols) starting with the input and continuing it downwards:
    row r copies row r - period moved right by shift (cells moved past an edge are dropped).

    Example: continue_periodic_pattern(np.array([[1, 0]]), 1, 1, (3, 2)) -> [[1, 0], [0, 1], [0, 0]]
    """
    grid = np.asarray(grid)
    h, w = grid.shape
    rows, cols = target_shape
    out = np.zeros((rows, cols), dtype=int)
    out[:min(h, rows), :min(w, cols)] = grid[:rows, :cols]
    for r in range(h, rows):
        for c in range(cols):
            src = c - shift
            out[r, c] = out[r - period, src] if 0 <= src < cols else 0
    return out
