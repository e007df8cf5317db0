"""The ArcMemo authors' released code's renderings of PS memory, for a run whose protocol
follows it (run/protocol.py): what its select model reads and the hint its solver gets.

Both keep arcmemo's sections (render.py: structures, types, grid manipulation routines,
the other routines by subtype) and show every custom type, as the released code does.
Within a section the concepts keep the memory's order, as the released code keeps its
file's (`released_order`: the order they were added, so an imported file's order), a
routine without a subtype is in "misc routines", sorted among the subtypes as the released
code's "misc", and a section's line of names lists them sorted, as the released code's does.

- `collapsed_view` (selector_view "collapsed"): in each section the concepts used in
  COLLAPSE_BELOW or more puzzles in full, without their parameters' descriptions (and,
  outside structures and grid manipulation, without cues), then one line naming the
  others. For the paper's 270 concepts this is about a third of the full view's length.
- `released_hint` (hint_form "released"): the chosen concepts in full, then in each
  section one line naming the concepts not chosen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.views import render

COLLAPSE_BELOW = 2      # fewer puzzles than this: a concept is named, not shown
LOWER_USAGE = "lower usage concepts"
NOT_CHOSEN = "other concepts"
MISC = "misc routines"          # the released code's bucket of routines without a subtype
SECTIONS_WITH_CUES = (0, 2)    # structures and grid manipulation routines (render.section_of's order)


def _without_details(concept: Concept) -> Concept:
    """The concept as the collapsed view shows it: parameters by name and typing only, and cues
    only in the sections the select model starts from."""
    parameters = [{k: v for k, v in p.items() if k != "description"} for p in concept.parameters or []]
    cues = concept.cues if render.section_of(concept)[0] in SECTIONS_WITH_CUES else []
    return dataclasses.replace(concept, parameters=parameters, cues=cues)


def _listing(concepts: Iterable[Concept], shown: Callable[[Concept], str | None], title: str,
             custom_types: dict[str, str]) -> str:
    """render.listing of the concepts `shown` gives text for, each section ending with one line
    `- <title>: [names]` naming the section's others (the ones `shown` gives None)."""
    entries: list[tuple[tuple[int, str], str]] = []
    named: dict[tuple[int, str], list[str]] = {}
    for concept in sorted(concepts, key=released_order):
        text = shown(concept)
        if text is None:
            named.setdefault(_section(concept), []).append(concept.name)
        else:
            entries.append((_section(concept), text))
    entries += [(section, f"- {title}: [{', '.join(sorted(names))}]") for section, names in named.items()]
    return render.listing(entries, custom_types)


def _section(concept: Concept) -> tuple[int, str]:
    """render.section_of, but a routine without a subtype is the released code's "misc"."""
    if concept.kind != "structure" and not (concept.routine_subtype or "").strip():
        return (3, MISC)
    return render.section_of(concept)


def released_order(concept: Concept) -> tuple:
    """Where a concept stands in the released code's listings: its section, then the order it
    entered memory (the released code's file order; an imported file's concepts enter in it)."""
    number, heading = _section(concept)
    return (number, heading.lower(), heading, concept.id is None, concept.id or 0, concept.name)


def collapsed_view(concepts: Sequence[Concept], custom_types: dict[str, str]) -> str:
    """The whole memory as the released code's select model reads it (module docstring)."""
    def shown(concept: Concept) -> str | None:
        if len(concept.used_in or []) < COLLAPSE_BELOW:
            return None
        return render.entry(_without_details(concept))

    return _listing(concepts, shown, LOWER_USAGE, custom_types)


def released_hint(concepts: Sequence[Concept], chosen: Sequence[Concept], custom_types: dict[str, str],
                  *, others: bool = True) -> str:
    """The solver's hint as the released code gives it: `chosen` in full, every custom type, and
    (`others`) the names of the rest, by section. No concept chosen: no hint."""
    if not chosen:
        return ""
    taken = {c.id for c in chosen}
    pool = concepts if others else chosen
    return _listing(pool, lambda c: render.entry(c) if c.id in taken else None, NOT_CHOSEN, custom_types)


__all__ = ["collapsed_view", "released_hint", "released_order", "COLLAPSE_BELOW"]
