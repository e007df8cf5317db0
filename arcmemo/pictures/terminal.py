"""Rows of panels in the terminal: coloured cells with rich, or digits when output is not a terminal.

A cell is two characters wide (about square). A cell that differs from the expected grid
shows `××` over its colour; in plain text it is its digit followed by `*`. rich is imported
only to draw colours: printing to a pipe or a file starts without it (about 40 ms).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, Group
    from rich.text import Text

from arcmemo.pictures.palette import COLOURS, ink_on
from arcmemo.pictures.panels import Panel, resolve

DIFF_NOTE = "cells marked × (* in plain text) differ from the expected output"


def _rich_panel(panel: Panel | None) -> Group | Text:
    from rich.console import Group
    from rich.text import Text

    if panel is None:
        return Text("")
    part = resolve(panel)
    lines = [Text(part.title, style="bold")]
    if part.grid is None:
        lines.append(Text(f"({part.missing})", style="dim"))
    for r, row in enumerate(part.grid or ()):
        line = Text()
        for c, value in enumerate(row):
            colour = COLOURS[value]
            marked = part.wrong_shape or (r, c) in part.differs
            line.append("××" if marked else "  ", style=f"bold {ink_on(colour)} on {colour}")
        lines.append(line)
    return Group(*lines)


def _plain_panel(panel: Panel | None) -> list[str]:
    if panel is None:
        return [""]
    part = resolve(panel)
    lines = [part.title]
    if part.grid is None:
        return lines + [f"({part.missing})"]
    for r, row in enumerate(part.grid):
        lines.append(" ".join(f"{v}{'*' if part.wrong_shape or (r, c) in part.differs else ' '}"
                              for c, v in enumerate(row)).rstrip())
    return lines


def plain_text(rows: Sequence[Sequence[Panel | None]], gap: int = 4) -> str:
    """The panels of each row side by side as digits."""
    blocks = []
    for row in rows:
        panels = [_plain_panel(p) for p in row]
        widths = [max(len(line) for line in lines) for lines in panels]
        height = max(len(lines) for lines in panels)
        blocks.append("\n".join(
            (" " * gap).join((lines[i] if i < len(lines) else "").ljust(w) for lines, w in zip(panels, widths)).rstrip()
            for i in range(height)))
    return "\n\n".join(blocks)


def _has_marks(rows: Sequence[Sequence[Panel | None]]) -> bool:
    return any(p is not None and p.expected is not None for row in rows for p in row)


def print_rows(rows: Sequence[Sequence[Panel | None]], console: Console | None = None) -> None:
    """Print the rows: colours on a terminal, digits otherwise (pipes, CI logs)."""
    if console is None and not sys.stdout.isatty() and not os.environ.get("FORCE_COLOR"):
        _write_plain(rows, sys.stdout)
        return
    from rich.columns import Columns
    from rich.console import Console
    from rich.text import Text

    console = console or Console()
    if not console.is_terminal:
        _write_plain(rows, console.file)
        return
    for row in rows:
        console.print(Columns([_rich_panel(p) for p in row], padding=(0, 4)))
        console.print()
    if _has_marks(rows):
        console.print(Text(DIFF_NOTE, style="dim"))


def _write_plain(rows: Sequence[Sequence[Panel | None]], file) -> None:
    file.write(plain_text(rows) + "\n")
    if _has_marks(rows):
        file.write(DIFF_NOTE + "\n")
