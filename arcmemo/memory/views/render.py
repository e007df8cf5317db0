"""Concepts -> prompt text.

PS memory is rendered in sections, in this order: structure concepts, types (custom
types), grid manipulation routines, then the other routines grouped by their subtype
(alphabetically, subtype-less ones last as "other routines"). Within a section concepts
are sorted by name, so the text depends only on the set of concepts. The full form
shows every field, implementation notes and cues included (small models lean on the
implementation notes most); concepts used in fewer than `collapse_below` tasks shrink
to their name; `compressed=True` gives one line per concept: name, parameter typing
and output typing.

OE lessons are numbered in the order given (callers map numbers back to concepts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from arcmemo.memory.schema.concept import Concept

GRID = "grid manipulation"


def section_of(concept: Concept) -> tuple[int, str]:
    """(order, heading) of the section a PS concept belongs to."""
    if concept.kind == "structure":
        return (0, "structure concepts")
    subtype = (concept.routine_subtype or "").strip()
    if subtype.lower() == GRID:
        return (2, "grid manipulation routines")
    if not subtype:
        return (4, "other routines")
    return (3, subtype if subtype.lower().endswith("routines") else f"{subtype} routines")


def _section_key(section: tuple[int, str]) -> tuple:
    return (section[0], section[1].lower(), section[1])


def order_key(concept: Concept) -> tuple:
    """Where a PS concept stands in a listing: its section, then its name."""
    return (*_section_key(section_of(concept)), concept.name.lower(), concept.name)


def _lines(text: str, indent: str) -> str:
    """Text whose continuation lines are indented to sit under the first."""
    return ("\n" + indent).join(line.rstrip() for line in str(text).strip().splitlines())


def _param(p: Mapping) -> str:
    head = p["name"] + (f" (type: {p['typing']})" if p.get("typing") else "")
    return head + (f": {p['description']}" if p.get("description") else "")


def _full(c: Concept) -> list[str]:
    out = [f"- concept: {c.name}"]
    if c.description:
        out.append(f"  description: {_lines(c.description, '    ')}")
    if c.output_typing:
        out.append(f"  output typing: {c.output_typing}")
    for title, items in (("parameters", [_param(p) for p in c.parameters or []]),
                         ("cues", c.cues or []), ("implementation", c.implementation or [])):
        if items:
            out.append(f"  {title}:")
            out.extend(f"    - {_lines(item, '      ')}" for item in items)
    return out


def _one_line(c: Concept) -> str:
    if c.kind == "structure" and not c.parameters:
        return f"- {c.name}"
    params = ", ".join(p["name"] + (f": {p['typing']}" if p.get("typing") else "") for p in c.parameters or [])
    line = f"- {c.name}({params})"
    return line + (f" -> {c.output_typing}" if c.output_typing else "")


def name_entry(c: Concept) -> str:
    """A PS concept collapsed to its name in a listing."""
    return f"- concept: {c.name}"


def entry(c: Concept, *, compressed: bool = False, collapse_below: int = 0) -> str:
    """One PS concept's lines in a listing (see the module docstring for the forms)."""
    if compressed:
        return _one_line(c)
    if len(c.used_in or []) < collapse_below:
        return name_entry(c)
    return "\n".join(_full(c))


def type_entry(name: str, definition: str) -> str:
    """One custom type's line in a listing."""
    return f"- {name} := {_lines(definition, '  ')}"


TYPES_SECTION = (1, "types")


def listing(entries: Iterable[tuple[tuple[int, str], str]], custom_types: Mapping[str, str] | None = None) -> str:
    """The sectioned text of (section, entry) pairs given in `order_key` order, with a
    section for `custom_types` (sorted by name) when there are any."""
    sections: dict[tuple[int, str], list[str]] = {}
    for section, text in entries:
        sections.setdefault(section, []).append(text)
    if custom_types:
        sections[TYPES_SECTION] = [type_entry(name, d) for name, d in sorted(custom_types.items())]
    blocks = ["\n".join([f"## {key[1]}", *sections[key]]) for key in sorted(sections, key=_section_key)]
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def render_ps(concepts: Iterable[Concept], custom_types: Mapping[str, str] | None = None, *,
              compressed: bool = False, collapse_below: int = 0) -> str:
    """PS concepts (and custom types) as sectioned prompt text; see the module docstring."""
    return listing(((section_of(c), entry(c, compressed=compressed, collapse_below=collapse_below))
                    for c in sorted(concepts, key=order_key)), custom_types)


def render_oe(concepts: Iterable[Concept]) -> str:
    """Numbered lessons: `N. situation: ...` / `   suggestion: ...`, blank line between."""
    blocks = []
    for i, c in enumerate(concepts, 1):
        pad = " " * (len(str(i)) + 2)
        blocks.append(f"{i}. situation: {_lines(c.situation or '', pad + '  ')}\n"
                      f"{pad}suggestion: {_lines(c.suggestion or '', pad + '  ')}")
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def render_sheet(concepts: Iterable[Concept]) -> str:
    """The cheatsheet text(s) as they are."""
    texts = [c.description.strip() for c in concepts if c.description and c.description.strip()]
    return "\n\n".join(texts) + ("\n" if texts else "")


def referenced_types(concepts: Iterable[Concept], custom_types: Mapping[str, str]) -> dict[str, str]:
    """The custom types whose names occur in the typing fields of `concepts` (for a short prompt)."""
    typings = " ".join(
        " ".join([c.output_typing or ""] + [p.get("typing") or "" for p in c.parameters or []]) for c in concepts)
    return {name: d for name, d in sorted(custom_types.items())
            if re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", typings)}


def render(concepts: Iterable[Concept], fmt: str, **kw) -> str:
    """Dispatch on format: "ps" (render_ps keywords), "oe", "sheet" (which ignore the PS keywords,
    so one call site can render any format)."""
    if fmt == "ps":
        return render_ps(concepts, **kw)
    if fmt == "oe":
        return render_oe(concepts)
    if fmt == "sheet":
        return render_sheet(concepts)
    raise ValueError(f"render: unknown format {fmt!r} (expected ps, oe or sheet)")


__all__ = ["render", "render_ps", "render_oe", "render_sheet", "referenced_types", "section_of", "order_key",
           "entry", "name_entry", "type_entry", "listing"]
