"""Keeping a selection prompt under a token budget when memory outgrows the context.

The budgets themselves come from `budgets_for`: fixed defaults, or shares of the model's
context window when it is known (the embedded models). Three tools: a cheap token
estimate (no tokenizer dependency), a short text description of a puzzle derived from
its grids alone (dimensions, colours, size relation, a few visible regularities) to
match against when there is no caption, and a lexical ranking of concepts by how many
of the puzzle description's words appear in their names, cues and descriptions
(idf-weighted, so "grid" and "color" count for little).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from arcmemo.core.tasks import Task
from arcmemo.selection.relations import whole_grid_relation
from arcmemo.selection.types import DEFAULT_HINT_BUDGET, DEFAULT_TOKEN_BUDGET, MIN_HINT_BUDGET, MIN_TOKEN_BUDGET

CHARS_PER_TOKEN = 3.5
TOKEN_SHARE = 0.30              # of a known context window, for the selection prompt
HINT_SHARE = 0.18               # of a known context window, for the hint


def budgets_for(llm, token_budget: int | None = None, hint_budget: int | None = None) -> tuple[int, int]:
    """(token_budget, hint_budget): the given ones, else the defaults, capped for a model
    whose context window is known (the embedded ones, 8k) to shares of it that leave room
    for the puzzle, the answer and the solver's retries."""
    def sized(given: int | None, default: int, role: str, share: float, minimum: int) -> int:
        if given is not None:
            return given
        window = llm.context_window(role) if llm is not None else None
        return default if window is None else max(minimum, min(default, int(window * share)))

    return (sized(token_budget, DEFAULT_TOKEN_BUDGET, "select", TOKEN_SHARE, MIN_TOKEN_BUDGET),
            sized(hint_budget, DEFAULT_HINT_BUDGET, "solver", HINT_SHARE, MIN_HINT_BUDGET))


def estimate_tokens(text: str) -> int:
    """Rough token count: ~3.5 characters per token (English prose and digit grids alike).

    Deliberately on the high side for prose so a prompt estimated under budget is under it.
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def messages_tokens(messages: Sequence[dict]) -> int:
    return sum(estimate_tokens(m.get("content") or "") + 4 for m in messages)


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


_WORD = re.compile(r"[a-z]+")
STOPWORDS = frozenset(
    "a an the of to in on at by for with and or is are be it its this that these those as from into "
    "if then than when where which each every all any some no not only same other one two there their "
    "may might can could should would will was were has have had do does use used using like e g eg "
    "such via per more most less".split()
)


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def terms(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]


def concept_text(concept) -> str:
    """The words of a concept a lexical match looks at."""
    data = concept.to_data() if hasattr(concept, "to_data") else dict(concept)
    parts = [data.get("name") or "", data.get("description") or "", data.get("situation") or "",
             data.get("suggestion") or "", data.get("routine_subtype") or ""]
    parts.extend(data.get("cues") or [])
    return " ".join(str(p) for p in parts)


def rank_lexical(query: str, concepts: Sequence, text_of: Callable = concept_text) -> list:
    """Concepts ordered by idf-weighted overlap with the query; ties by usage, then id."""
    query_terms = set(terms(query))
    docs = [set(terms(text_of(c))) for c in concepts]
    df: Counter = Counter()
    for d in docs:
        df.update(d & query_terms)
    n = max(len(docs), 1)
    idf = {t: math.log((n + 1) / (df[t] + 0.5)) for t in query_terms}

    def usage(c) -> int:
        return len(getattr(c, "used_in", None) or [])

    scored = [
        (-sum(idf[t] for t in d & query_terms), -usage(c), getattr(c, "id", i), c)
        for i, (c, d) in enumerate(zip(concepts, docs))
    ]
    scored.sort(key=lambda s: s[:3])
    return [s[3] for s in scored]


def fit_prefix(ranked: Sequence, fits: Callable[[Sequence], bool]) -> int:
    """The largest n such that fits(ranked[:n]) (fits must be monotone); 0 if none fit."""
    lo, hi = 0, len(ranked)
    if fits(ranked):
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(ranked[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo


def keep_order(subset: Iterable, universe: Sequence) -> list:
    """subset re-ordered as in universe (memory order), so renders stay stable."""
    wanted = {id(c) for c in subset}
    return [c for c in universe if id(c) in wanted]
