"""The one plain-text table printer of the command line (runs, seeds, concepts, calls...).

A table fits the terminal: at its natural width when that fits, else its headers and then its
widest columns wrapped (each cell's text over several lines), else, when the columns would get
narrower than MIN_COLUMN, turned (a few records of many fields, `runs compare`'s: a column per
record, a row per field) when that fits, else one record per row ("column: value" lines, a
blank line between rows). The width
is the terminal's (`terminal_width`: COLUMNS, else the terminal's size); output that goes to a
file or a pipe, with COLUMNS unset, is not wrapped (a script reads one row a line).
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

GAP = "  "
MIN_COLUMN = 10        # a column wrapped narrower than this (or than its natural width) reads badly: stack instead


def cell(value: Any) -> str:
    """A value as table text: None "-", small floats with four decimals, other floats with two."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}" if 0 < abs(value) < 0.01 else f"{value:.2f}"
    return str(value)


def yes_no(value: Any) -> str:
    """A setting that is on or off as every runs list says it: yes, no, "-" (not recorded)."""
    return "-" if value is None else "yes" if value else "no"


def counted(n: Any, noun: str, plural: str | None = None) -> str:
    """A count with its noun agreeing: "1 task", "2 tasks", "0 concepts" (`plural`: when not noun + s)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def terminal_width() -> int | None:
    """The columns a table may take: COLUMNS when set, else the terminal's width when the output is
    a terminal; None (no limit) when it goes to a file or a pipe."""
    if os.environ.get("COLUMNS", "").strip().isdigit():
        return max(20, int(os.environ["COLUMNS"]))
    stream = sys.stdout
    try:
        if stream is not None and stream.isatty():
            return max(20, shutil.get_terminal_size().columns)
    except (AttributeError, ValueError, OSError):
        pass
    return None


def table(rows: Sequence[Sequence[Any]], header: Sequence[str], *, rule: bool = True, width: int | None = None,
          right: Sequence[int] = (), indent: str = "", turn: bool = True) -> str:
    """Left-aligned columns (those numbered in `right`: right-aligned) two spaces apart, a rule
    under the header (unless `rule=False`), fitted to `width` (default: `terminal_width()`) as the
    module docstring says; every line led by `indent` (within the width)."""
    if indent:
        width = terminal_width() if width is None else width
        inner = table(rows, header, rule=rule, width=None if width is None else max(20, width - len(indent)),
                      right=right)
        return "\n".join((indent + line).rstrip() for line in inner.split("\n"))
    cells = [[str(c) for c in header]] + [[cell(c) for c in row] for row in rows]
    natural = [max(len(r[i]) for r in cells) for i in range(len(header))]
    width = terminal_width() if width is None else width
    widths = natural if width is None else _fitted_cells(cells, natural, width)
    if widths is None:
        if len(rows) > 1 and turn:          # a few records of many fields: one column each, if that fits
            turned = [list(column) for column in zip(*cells)]
            natural = [max(len(r[i]) for r in turned) for i in range(len(turned[0]))]
            if _fitted_cells(turned, natural, width) is not None:
                return table(turned[1:], turned[0], rule=rule, width=width, turn=False)
        return stacked(cells, width) if rows else textwrap.fill(GAP.join(cells[0]), width)
    lines = []
    for n, row in enumerate(cells):
        parts = [textwrap.wrap(c, w, break_on_hyphens=False) or [""] if len(c) > w else [c] for c, w in zip(row, widths)]
        for k in range(max(len(p) for p in parts)):
            lines.append(GAP.join((p[k] if k < len(p) else "").rjust(w) if i in right else
                                  (p[k] if k < len(p) else "").ljust(w)
                                  for i, (p, w) in enumerate(zip(parts, widths))).rstrip())
        if n == 0 and rule:
            lines.append(GAP.join("-" * w for w in widths).rstrip())
    return "\n".join(lines)


def _fitted_cells(cells: Sequence[Sequence[str]], natural: list[int], width: int) -> list[int] | None:
    """`fitted`, its headers wrapped first: a column whose header is wider than its values is
    narrowed to its values (or its header's longest word) before any value is wrapped; then the
    values wrapped, no column narrower than its longest word (a run id is never cut) nor than
    MIN_COLUMN (or its natural width)."""
    columns = range(len(natural))
    values = [max([len(r[i]) for r in cells[1:]] + [_longest_word(cells[0][i])]) for i in columns]
    words = [max(min(natural[i], MIN_COLUMN), *(_longest_word(r[i]) for r in cells)) for i in columns]
    return fitted(natural, width, floor=values) or fitted(natural, width, floor=words)


def _longest_word(text: str) -> int:
    return max(map(len, text.split() or [""]))


def fitted(natural: Sequence[int], width: int, floor: Sequence[int] | None = None) -> list[int] | None:
    """Column widths within `width`: the widest columns narrowed first, none below `floor` (by
    default MIN_COLUMN, or its natural width); None when that cannot fit."""
    widths = list(natural)
    room = width - len(GAP) * (len(widths) - 1)
    floor = [min(w, MIN_COLUMN) for w in widths] if floor is None else [min(w, f) for w, f in zip(widths, floor)]
    if sum(floor) > room:
        return None
    excess = sum(widths) - room
    while excess > 0:                   # the widest down to the next widest, the tied ones in turn
        narrowable = [i for i in range(len(widths)) if widths[i] > floor[i]]
        widest = max(narrowable, key=lambda i: widths[i])
        below = max([widths[i] for i in narrowable if widths[i] < widths[widest]] + [floor[widest]])
        tied = sum(widths[i] == widths[widest] for i in narrowable) > 1
        step = 1 if tied else max(1, min(widths[widest] - below, excess))
        widths[widest] -= step
        excess -= step
    return widths


def stacked(cells: Sequence[Sequence[str]], width: int) -> str:
    """One record per row: each column's name, then its value wrapped beside it."""
    header, rows = cells[0], cells[1:]
    label = min(max(len(h) for h in header) + 1, width // 3)
    room = max(10, width - label - 1)
    blocks = []
    for row in rows:
        lines = []
        for name, value in zip(header, row):
            names = textwrap.wrap(f"{name}:", label, break_on_hyphens=False) or [""]
            values = textwrap.wrap(value, room, break_on_hyphens=False) or [""]
            for k in range(max(len(names), len(values))):
                lines.append(((names[k] if k < len(names) else "").ljust(label) + " "
                              + (values[k] if k < len(values) else "")).rstrip())
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def wrapped(text: str, indent: str = "", width: int | None = None) -> str:
    """A line of prose fitted to the terminal (`terminal_width`), its continuation lines indented
    by `indent` (plus its own leading spaces); unchanged when there is no limit."""
    width = terminal_width() if width is None else width
    if width is None or len(text) <= width:
        return text
    lead = text[: len(text) - len(text.lstrip())]
    return textwrap.fill(text.strip(), width, initial_indent=lead, subsequent_indent=lead + indent,
                         break_on_hyphens=False)


def fit_text(text: str, width: int | None = None) -> str:
    """Every line of `text` that is wider than the terminal wrapped (`wrapped`); a table's lines
    already fit and stay as they are."""
    width = terminal_width() if width is None else width
    if width is None:
        return text
    return "\n".join(wrapped(line, "  ", width) for line in text.split("\n"))


__all__ = ["table", "cell", "yes_no", "counted", "terminal_width", "fitted", "stacked", "wrapped", "fit_text"]
