"""A command's options under headings in its --help, through cloup's option groups.

cloup (a maintained click extension) is imported only by the commands that group their
options (solve, select, sweep), so the read-only commands do not load it at start-up.
"""

from __future__ import annotations

from collections.abc import Callable

import cloup

# the first column as wide as click's own (30), the help beside it wrapped at the terminal's width
FORMATTER = cloup.HelpFormatter.settings(col1_max_width=30, col_spacing=2)


class GroupedCommand(cloup.Command):
    """A click command whose options are shown under their option groups' headings (ungrouped ones,
    and --help, under "Other options")."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_settings", FORMATTER)
        super().__init__(*args, **kwargs)


def grouped(groups: dict[str, list[Callable[[Callable], Callable]]]) -> Callable[[Callable], Callable]:
    """Add each heading's options (click option decorators, one or several options each) to a
    command, in order, under that heading."""
    def decorate(fn: Callable) -> Callable:
        for title, options in reversed(groups.items()):
            fn = cloup.option_group(title, *options)(fn)
        return fn
    return decorate


__all__ = ["GroupedCommand", "grouped"]
