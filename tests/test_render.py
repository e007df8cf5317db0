"""Prompt rendering of PS concepts (sections, collapsing, compressed form) and OE lessons."""

from __future__ import annotations

import json
import random

import pytest
from shared_data import PS_MEMORY, needs_reference, reference_file

from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.schema.merge_rule import normalize
from arcmemo.memory.views.render import referenced_types, render, render_oe, render_ps, render_sheet


def ps(name, **fields) -> Concept:
    data = normalize({"name": name, **fields})
    return Concept(**data, content_hash="")


def lesson(situation, suggestion) -> Concept:
    return Concept(**normalize({"format": "oe", "situation": situation, "suggestion": suggestion}), content_hash="")


CONCEPTS = [
    ps("recolor object", kind="routine", routine_subtype="grid manipulation", output_typing="grid",
       description="recolor an object by a scheme",
       parameters=[{"name": "object", "typing": "object", "description": "what to recolor"},
                   {"name": "scheme", "typing": "dict[color, color]"}],
       cues=["colors swap between input and output"], implementation=["grid[mask] = new_color"],
       used_in=["a", "b", "c"]),
    ps("split grid", kind="structure", description="grid divided into regions",
       cues=["divider lines span the grid"], used_in=["a", "b"]),
    ps("extract objects", kind="routine", routine_subtype="intermediate", output_typing="list[object]",
       parameters=[{"name": "grid", "typing": "grid"},
                   {"name": "criteria", "typing": "selection criteria"}],
       implementation=["scipy.ndimage.label on the non-background mask"], used_in=["a", "b", "c", "d"]),
    ps("is largest", kind="routine", routine_subtype="selection criteria", output_typing="bool",
       description="the object with the most pixels", used_in=["z"]),
    ps("mystery", kind="routine", description="no subtype given", used_in=["a", "b"]),
]
TYPES = {"selection criteria": "Callable[[object], bool]", "direction": 'Literal["up", "down"]'}


def test_full_form_sections_and_fields():
    text = render_ps(CONCEPTS, TYPES)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## structure concepts", "## types", "## grid manipulation routines",
                        "## intermediate routines", "## selection criteria routines", "## other routines"]
    block = text.split("## grid manipulation routines\n")[1].split("\n\n")[0]
    assert block == (
        "- concept: recolor object\n"
        "  description: recolor an object by a scheme\n"
        "  output typing: grid\n"
        "  parameters:\n"
        "    - object (type: object): what to recolor\n"
        "    - scheme (type: dict[color, color])\n"
        "  cues:\n"
        "    - colors swap between input and output\n"
        "  implementation:\n"
        "    - grid[mask] = new_color")
    assert '- direction := Literal["up", "down"]' in text
    assert "- scipy.ndimage.label on the non-background mask" in text  # notes always in the full form
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_low_usage_concepts_collapse_to_their_names():
    text = render_ps(CONCEPTS, collapse_below=3)
    assert "- concept: is largest\n" in text and "the object with the most pixels" not in text
    assert "- concept: split grid\n" in text and "divider lines" not in text
    assert "grid[mask] = new_color" in text  # 3 uses: kept in full
    assert "## types" not in text


def test_compressed_form_is_one_line_per_concept():
    text = render_ps(CONCEPTS, TYPES, compressed=True)
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(lines) == len(CONCEPTS) + len(TYPES)
    assert "- recolor object(object: object, scheme: dict[color, color]) -> grid" in lines
    assert "- extract objects(grid: grid, criteria: selection criteria) -> list[object]" in lines
    assert "- split grid" in lines and "- mystery()" in lines
    assert "implementation" not in text and "cues" not in text and "description" not in text


def test_output_does_not_depend_on_input_order():
    shuffled = CONCEPTS[:]
    random.Random(1).shuffle(shuffled)
    for kw in ({}, {"compressed": True}, {"collapse_below": 2}):
        assert render_ps(shuffled, TYPES, **kw) == render_ps(CONCEPTS, TYPES, **kw)


def test_multiline_text_stays_indented():
    c = ps("multi", kind="routine", description="line one\nline two", implementation=["step 1\nstep 2"])
    text = render_ps([c])
    assert "  description: line one\n    line two" in text
    assert "    - step 1\n      step 2" in text


def test_oe_lessons_are_numbered_in_given_order():
    text = render_oe([lesson("rows are uniform", "work per column"), lesson("grid is scaled", "find blocks\nand map")])
    assert text == ("1. situation: rows are uniform\n"
                    "   suggestion: work per column\n\n"
                    "2. situation: grid is scaled\n"
                    "   suggestion: find blocks\n"
                    "     and map\n")
    assert render_oe([]) == ""


def test_render_dispatch_and_sheet():
    sheet = Concept(**normalize({"format": "sheet", "name": "cheatsheet", "description": "tips\n"}), content_hash="")
    assert render([sheet], "sheet") == render_sheet([sheet]) == "tips\n"
    assert render(CONCEPTS, "ps", compressed=True) == render_ps(CONCEPTS, compressed=True)
    assert render([lesson("s", "g")], "oe", compressed=True) == render_oe([lesson("s", "g")])
    with pytest.raises(ValueError, match="unknown format"):
        render(CONCEPTS, "xml")


def test_referenced_types_only_those_used():
    assert referenced_types(CONCEPTS, TYPES) == {"selection criteria": "Callable[[object], bool]"}


@needs_reference(PS_MEMORY)
def test_arcmemo_release_renders_every_concept():
    raw = json.loads(reference_file(PS_MEMORY).read_text())
    concepts = [Concept(**normalize(c, source="import", join_split_notes=True), content_hash="")
                for c in raw["concepts"].values()]
    full = render_ps(concepts, raw["custom_types"])
    short = render_ps(concepts, raw["custom_types"], compressed=True)
    assert all(f"- concept: {c.name}\n" in full for c in concepts)
    assert len(short) < len(full) / 3
