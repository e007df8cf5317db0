"""The module a program imports memory's helpers from: its name and the line that imports them.

The one fact about helpers every floor shares: the sandbox makes the helpers offered to a
task one importable module of this name, a solver's prompt shows the import line
(solverkit), and a helper's own source may import other helpers from it (the rules of its
source are memory/helpers/source.py's). The solver kit may not import memory, so the name
lives here.
"""

from __future__ import annotations

from collections.abc import Iterable

MODULE = "memory_helpers"


def import_line(names: Iterable[str]) -> str:
    """The line that imports these helpers: `from memory_helpers import a, b`."""
    return f"from {MODULE} import {', '.join(sorted(names))}"


__all__ = ["MODULE", "import_line"]
