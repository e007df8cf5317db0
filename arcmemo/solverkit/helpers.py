"""Helpers from memory as a solver sees them: the module its programs may import, and how the
prompt shows them.

The run layer builds a task's `MemoryHelpers` from the concepts memory selection offered
(their verified helpers and the helpers those call) and hands it over in `Hint.helpers`;
the sandbox makes `module` importable as `memory_helpers` and reports which of its
functions a program called. The prompt shows each offered helper's signature and
docstring, never its body: the model is to call it, not rewrite it; and the calls the
run found to give every train output when it tried them (run/stages/probe.py), if any.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.helpermodule import MODULE, import_line
from arcmemo.prompts import render_prompt


@dataclass(frozen=True)
class OfferedHelper:
    """One helper shown to the model."""

    name: str
    signature: str      # "rotate_grid(grid, quarter_turns)"
    doc: str            # its docstring: a summary line, more lines, an `Example:` line
    concept: str        # the concept it implements


@dataclass
class MemoryHelpers:
    """The helpers offered for one task: `module` is their source (dependencies included)."""

    module: str
    offered: list[OfferedHelper] = field(default_factory=list)
    name: str = MODULE
    # calls the run tried on the train inputs that gave every train output ("rotate_grid(grid, 2)")
    fits: list[str] = field(default_factory=list)

    def modules(self) -> dict[str, str]:
        """The `modules=` mapping for the sandbox."""
        return {self.name: self.module}

    def names(self) -> list[str]:
        return [h.name for h in self.offered]


def helpers_section(helpers: MemoryHelpers | None) -> str:
    """The prompt section listing the offered helpers and how to import them ("" for none)."""
    if helpers is None or not helpers.offered:
        return ""
    entries = []
    for h in helpers.offered:
        lines = [line.strip() for line in h.doc.strip().splitlines() if line.strip()]
        entries.append(f"- {h.signature}: " + "\n    ".join(lines))
    return render_prompt("helpers", import_line=import_line(helpers.names()), listing="\n".join(entries)).strip()


def fits_section(helpers: MemoryHelpers | None) -> str:
    """The prompt section naming the calls that gave every train output ("" for none)."""
    if helpers is None or not helpers.fits:
        return ""
    return render_prompt("helper_fits", calls="\n".join(f"    {call}" for call in helpers.fits)).strip()


def memory_section(hint: Any, render_hint: Callable[[str], str]) -> str:
    """What a solver's prompt shows from memory ("" for nothing): the calls found to give every
    train output first (the strongest evidence memory has), then the hint in the solver's own
    words (`render_hint(text)`), then the helpers its programs may import."""
    helpers = getattr(hint, "helpers", None)
    text = (getattr(hint, "text", "") or "").strip()
    parts = [fits_section(helpers), render_hint(text) if text else "", helpers_section(helpers)]
    return "".join(f"\n{part}\n" for part in parts if part)


def sandbox_modules(helpers: MemoryHelpers | None, others: dict[str, str] | None = None) -> dict[str, str]:
    """The modules a program may import: `others` (a solver's own library) plus the memory's helpers."""
    return {**(others or {}), **(helpers.modules() if helpers is not None else {})}


__all__ = ["MemoryHelpers", "OfferedHelper", "helpers_section", "fits_section", "memory_section", "sandbox_modules"]
