"""The one plain-text table printer of the command line (runs, seeds, concepts, calls...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def cell(value: Any) -> str:
    """A value as table text: None "-", small floats with four decimals, other floats with two."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}" if 0 < abs(value) < 0.01 else f"{value:.2f}"
    return str(value)


def table(rows: Sequence[Sequence[Any]], header: Sequence[str], *, rule: bool = True) -> str:
    """Left-aligned columns two spaces apart, a rule under the header (unless `rule=False`)."""
    cells = [[str(c) for c in header]] + [[cell(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    if rule:
        lines.insert(1, "  ".join("-" * w for w in widths).rstrip())
    return "\n".join(lines)


__all__ = ["table", "cell"]
