"""Keeping a selection prompt under a token budget when memory outgrows the context.

The budgets come from `budgets_for`: shares of the reading model's context window as
models.yaml (or the embedded server) states it: 30% for the selection prompt (select
model), 18% for the hint (solver model). A context of 32k or less (the embedded models,
an endpoint model models.yaml does not list, whose stated default is 32k) is capped at
the defaults, 6,000 and 3,000 tokens, which leave such a model room for the puzzle, its
answer and the retries; a model of unknown context (a test double) gets the defaults.
So o4-mini (200k) gets 60,000 and 36,000: the paper's 270-concept memory (about 45k
tokens in full) is shown to it whole. They are counted in the model's tokens
(arcmemo.llm.counting). When the memory does not fit, the concepts shown are those
whose words best match a short text description of the puzzle derived from its grids
alone (`describe_grids`: dimensions, colours, size relation, a few visible regularities),
or a caption (arcmemo.memory.views.lexical ranks them).
"""

from __future__ import annotations

from arcmemo.core.tasks import Task
from arcmemo.selection.relations import whole_grid_relation
from arcmemo.selection.types import DEFAULT_HINT_BUDGET, DEFAULT_TOKEN_BUDGET, MIN_HINT_BUDGET, MIN_TOKEN_BUDGET

TOKEN_SHARE = 0.30              # of a known context window, for the selection prompt
HINT_SHARE = 0.18               # of a known context window, for the hint
SMALL_CONTEXT = 32768           # up to this context the defaults cap the shares


def budgets_for(llm, token_budget: int | None = None, hint_budget: int | None = None) -> tuple[int, int]:
    """(token_budget, hint_budget): the given ones, else shares of the models' context windows
    (module docstring), never below the minimums."""
    def sized(given: int | None, default: int, role: str, share: float, minimum: int) -> int:
        if given is not None:
            return given
        window = llm.context_window(role) if llm is not None else None
        if window is None:
            return default
        part = int(window * share)
        return max(minimum, part if window > SMALL_CONTEXT else min(default, part))

    return (sized(token_budget, DEFAULT_TOKEN_BUDGET, "select", TOKEN_SHARE, MIN_TOKEN_BUDGET),
            sized(hint_budget, DEFAULT_HINT_BUDGET, "solver", HINT_SHARE, MIN_HINT_BUDGET))


COLOR_NAMES = {
    0: "black", 1: "blue", 2: "red", 3: "green", 4: "yellow",
    5: "grey", 6: "magenta", 7: "orange", 8: "azure", 9: "maroon",
}


def _colors(grid) -> set[int]:
    return {v for row in grid for v in row}


def _dims(grid) -> tuple[int, int]:
    return len(grid), len(grid[0]) if grid else 0


def _has_divider(grid) -> bool:
    """A full row or column of one non-background colour inside the grid."""
    h, w = _dims(grid)
    if h < 3 or w < 3:
        return False
    for r in range(1, h - 1):
        row = grid[r]
        if row[0] != 0 and all(v == row[0] for v in row):
            return True
    for c in range(1, w - 1):
        col = [grid[r][c] for r in range(h)]
        if col[0] != 0 and all(v == col[0] for v in col):
            return True
    return False


def _symmetric(grid) -> bool:
    rows = [tuple(r) for r in grid]
    return rows == rows[::-1] or all(r == r[::-1] for r in rows)


def _components(grid) -> int:
    """Number of 4-connected single-colour objects that are not background (0)."""
    h, w = _dims(grid)
    seen = [[False] * w for _ in range(h)]
    count = 0
    for r in range(h):
        for c in range(w):
            if seen[r][c] or grid[r][c] == 0:
                continue
            count += 1
            color, stack = grid[r][c], [(r, c)]
            seen[r][c] = True
            while stack:
                y, x = stack.pop()
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < h and 0 <= nx < w and not seen[ny][nx] and grid[ny][nx] == color:
                        seen[ny][nx] = True
                        stack.append((ny, nx))
    return count


def describe_grids(task: Task) -> str:
    """A few sentences about the puzzle computed from its grids (no model call).

    Worded in the vocabulary relevance cues tend to use, so a lexical match has something
    to grip: a whole-grid relation (flipped, rotated, tiled, scaled: see relations.py),
    sizes ("same size", "smaller", "scaled up"), colours added/removed, dividers, symmetry,
    object counts.
    """
    notes: list[str] = []
    whole = whole_grid_relation(task.train)
    if whole:
        notes.append(whole)
    relations = set()
    for pair in task.train:
        (hi, wi), (ho, wo) = _dims(pair.input), _dims(pair.output)
        if (hi, wi) == (ho, wo):
            relations.add("output grid is the same size as the input grid")
        elif ho <= hi and wo <= wi:
            relations.add("output grid is smaller than the input grid: crop, extract or select a region or object")
        elif ho >= hi and wo >= wi:
            if hi and wi and ho % hi == 0 and wo % wi == 0:
                relations.add(
                    f"output grid is larger, an integer multiple ({ho // hi}x{wo // wi}) of the input: "
                    "scale up, tile or repeat the pattern"
                )
            else:
                relations.add("output grid is larger than the input grid: extend or draw beyond")
        else:
            relations.add("output dimensions differ from the input (reshaped)")
    notes.extend(sorted(relations))
    sizes = ", ".join(f"{'x'.join(map(str, _dims(p.input)))} -> {'x'.join(map(str, _dims(p.output)))}" for p in task.train)
    notes.append(f"example sizes: {sizes}")

    cin = set().union(*(_colors(p.input) for p in task.train)) if task.train else set()
    cout = set().union(*(_colors(p.output) for p in task.train)) if task.train else set()
    notes.append("input colors: " + ", ".join(COLOR_NAMES.get(c, str(c)) for c in sorted(cin)))
    if cout - cin:
        notes.append("new colors appear in the output: " + ", ".join(COLOR_NAMES.get(c, str(c)) for c in sorted(cout - cin)))
    if cin - cout:
        removed = ", ".join(COLOR_NAMES.get(c, str(c)) for c in sorted(cin - cout))
        notes.append("colors removed or deleted in the output: " + removed)
    same = [p for p in task.train if _dims(p.input) == _dims(p.output)]
    if same:
        changed = sum(
            a != b for p in same for ra, rb in zip(p.input, p.output) for a, b in zip(ra, rb)
        )
        total = sum(len(p.input) * len(p.input[0]) for p in same)
        if changed and changed / total < 0.25:
            notes.append("only a few pixels change: recolor, fill or draw on top of the input")
        elif changed:
            notes.append("many pixels change between input and output")
    if any(_has_divider(p.input) for p in task.train):
        notes.append("divider lines span the grid and split it into regions")
    if any(_symmetric(p.output) for p in task.train) and not all(_symmetric(p.input) for p in task.train):
        notes.append("outputs show mirror symmetry (reflection)")
    counts = [_components(p.input) for p in task.train]
    if counts:
        notes.append(f"inputs contain about {min(counts)}-{max(counts)} separate objects")
    if 0 in cin:
        notes.append("black background")
    return "; ".join(notes)
