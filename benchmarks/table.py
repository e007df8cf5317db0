"""A plain-text table for the benchmarks' output."""

from __future__ import annotations

from collections.abc import Sequence


def print_table(header: Sequence[str], rows: Sequence[Sequence], *, right: bool = False) -> None:
    """Columns as wide as their widest cell, two spaces apart (right-aligned if `right`)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(v).rjust(w) if right else str(v).ljust(w) for v, w in zip(row, widths)).rstrip())
