"""The released code's texts a protocol choice puts in a prompt: the collapsed selector view,
the released hint form, and the last-attempt feedback."""

from __future__ import annotations

import pytest

from arcmemo.core.tasks import Pair, Task
from arcmemo.memory.store import Memory
from arcmemo.methods import select
from arcmemo.sandbox import get_sandbox
from arcmemo.selection import SelectionSettings
from arcmemo.selection.views import collapsed_view, released_hint
from arcmemo.solverkit import run_program
from arcmemo.solverkit.feedback import last_attempt_feedback

CONCEPTS = [
    {"name": "framed region", "kind": "structure", "used_in": ["a", "b"], "description": "a box drawn in one colour",
     "parameters": [{"name": "frame", "typing": "color", "description": "the colour of the frame"}],
     "cues": ["a rectangle outline"], "implementation": ["find the outline's corners"]},
    {"name": "flood fill", "kind": "routine", "routine_subtype": "grid manipulation", "used_in": ["c"],
     "description": "fill a region", "cues": ["an enclosed area changes colour"]},
    {"name": "pick colour", "kind": "routine", "routine_subtype": "colour selection", "used_in": ["a", "c", "d"],
     "description": "choose the fill colour", "output_typing": "palette entry",
     "parameters": [{"name": "rule", "typing": "str", "description": "how the colour is chosen"}],
     "cues": ["the fill colour differs per puzzle"], "implementation": ["count colours"]},
    {"name": "mirror", "kind": "routine", "routine_subtype": "grid manipulation", "used_in": ["e", "f"],
     "description": "flip the grid", "parameters": [{"name": "axis", "typing": "str",
                                                     "description": "horizontal or vertical"}]},
]
TYPES = {"palette entry": "int", "unused kind": "list[int]"}


@pytest.fixture
def memory(tmp_path):
    with Memory(str(tmp_path / "memory.db")) as mem:
        for concept in CONCEPTS:
            mem.merge({"format": "ps", **concept}, source="import", actor="test")
        for name, definition in TYPES.items():
            mem.add_custom_type(name, definition, actor="test")
        yield mem


def section(text: str, heading: str) -> str:
    return text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_collapsed_view_shows_used_concepts_without_parameter_descriptions_and_names_the_rest(memory):
    text = collapsed_view(memory.list("ps"), memory.custom_types())
    structures = section(text, "structure concepts")
    assert "- concept: framed region" in structures and "frame (type: color)" in structures
    assert "the colour of the frame" not in text and "how the colour is chosen" not in text
    assert "a rectangle outline" in structures                                  # structures keep their cues
    grid = section(text, "grid manipulation routines")
    assert "- concept: mirror" in grid and "- lower usage concepts: [flood fill]" in grid
    assert "fill a region" not in text                                          # used once: its name alone
    colour = section(text, "colour selection routines")
    assert "- concept: pick colour" in colour and "the fill colour differs" not in colour   # no cues here
    types = section(text, "types")
    assert "palette entry := int" in types and "unused kind := list[int]" in types  # every custom type


# in the order a released memory file lists them (not alphabetical): the released code keeps it
RELEASED_FILE = [
    {"name": "zigzag band", "kind": "structure", "used_in": ["a", "b"], "description": "a band that zigzags"},
    {"name": "lone pixel", "kind": "structure", "used_in": ["a"], "description": "one pixel alone"},
    {"name": "anchor cell", "kind": "structure", "used_in": ["a", "b", "c"], "description": "a fixed cell"},
    {"name": "Big box", "kind": "structure", "used_in": ["d"], "description": "a large box"},
    {"name": "zone split", "kind": "routine", "routine_subtype": "zoning", "used_in": ["a", "b"]},
    {"name": "rotate", "kind": "routine", "used_in": ["a", "b"], "description": "turn the grid"},
    {"name": "pick colour", "kind": "routine", "routine_subtype": "colour selection", "used_in": ["a", "c"]},
    {"name": "colour by size", "kind": "routine", "routine_subtype": "colour selection", "used_in": ["b", "c"]},
]


def test_the_collapsed_view_keeps_the_released_files_order(tmp_path):
    with Memory(str(tmp_path / "released.db")) as mem:
        for concept in RELEASED_FILE:
            mem.merge({"format": "ps", **concept}, source="import", actor="test")
        text = collapsed_view(mem.list("ps"), mem.custom_types())
        hint = released_hint(mem.list("ps"), [c for c in mem.list("ps") if c.name in ("pick colour", "colour by size")],
                             mem.custom_types())
    # as the released code's to_string: each section's concepts in file order, the names of the others
    # sorted, a routine without a subtype under "misc", sorted among the subtypes
    assert [line.removeprefix("- concept: ") for line in text.splitlines() if line.startswith("- concept: ")] == [
        "zigzag band", "anchor cell", "pick colour", "colour by size", "rotate", "zone split"]
    assert "- lower usage concepts: [Big box, lone pixel]" in section(text, "structure concepts")
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## structure concepts", "## colour selection routines", "## misc routines", "## zoning routines"]
    assert section(hint, "colour selection routines").index("pick colour") < \
        section(hint, "colour selection routines").index("colour by size")
    assert "- other concepts: [Big box, anchor cell, lone pixel, zigzag band]" in section(hint, "structure concepts")


def test_the_released_hint_has_the_chosen_in_full_every_type_and_the_others_by_section(memory):
    concepts = memory.list("ps")
    chosen = [c for c in concepts if c.name == "pick colour"]
    hint = released_hint(concepts, chosen, memory.custom_types())
    assert "how the colour is chosen" in hint and "the fill colour differs per puzzle" in hint   # in full
    assert "unused kind := list[int]" in hint                                   # every type, needed or not
    assert "- other concepts: [flood fill, mirror]" in section(hint, "grid manipulation routines")
    assert "- other concepts: [framed region]" in section(hint, "structure concepts")
    assert "other concepts" not in released_hint(concepts, chosen, memory.custom_types(), others=False)
    assert released_hint(concepts, [], memory.custom_types()) == ""


def task() -> Task:
    return Task(id="t", train=[Pair(((1, 0), (0, 1)), ((2, 0), (0, 2))), Pair(((1, 1),), ((2, 2),))],
                test_inputs=[((0, 1),)])


def test_ps_selection_reads_the_collapsed_view_and_hands_the_released_hint(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", "```yaml\n- pick colour\n```")
    settings = SelectionSettings(mode="ps", view="collapsed", hint_form="released", other_names=True,
                                 token_budget=20_000, hint_budget=5_000)
    selection = select(task(), memory, settings, fake_llm)
    (call,) = fake_model.calls_for("select_ps")
    assert collapsed_view(memory.list("ps"), memory.custom_types()) in call.prompt
    assert selection.stats["form"] == "collapsed" and selection.stats["view"] == "collapsed"
    concepts = memory.list("ps")
    assert selection.hint == released_hint(concepts, [c for c in concepts if c.name == "pick colour"],
                                           memory.custom_types())
    # the same selection in arcmemo's forms: every field, and the flat list of other names
    fake_model.queue("select_ps", "```yaml\n- pick colour\n```")
    plain = select(task(), memory, SelectionSettings(mode="ps", other_names=True, token_budget=20_000,
                                                     hint_budget=5_000, pass_index=1), fake_llm)
    assert "the colour of the frame" in fake_model.calls_for("select_ps")[-1].prompt
    assert "unused kind" not in plain.hint and "- other concepts: [" not in plain.hint


def test_last_attempt_feedback_quotes_the_answer_and_every_mismatched_output():
    program = "def transform(grid):\n    return [[9 for v in row] for row in grid]"
    run = run_program(get_sandbox(), task(), program)
    text = last_attempt_feedback(task(), 2, f"My idea.\n```python\n{program}\n```", run=run)
    assert text.startswith("### Your last answer (attempt 2)") and "My idea." in text and program in text
    assert "- Example 1 (2x2):\n99\n99" in text and "- Example 2 (1x2):\n99" in text   # every mismatch
    outcomes = text.split("### How it did")[1].split("### Now")[0]
    assert "X = wrong" not in outcomes and "20\n02" not in outcomes and "22" not in outcomes   # no expected grid
    crash = run_program(get_sandbox(), task(), "def transform(grid):\n    raise ValueError('no rule')")
    text = last_attempt_feedback(task(), 1, "```python\n...\n```", run=crash)
    assert "Example 1: your program raised an exception." in text and "no rule" in text
    unread = last_attempt_feedback(task(), 1, "no code here", problem="no ```python block")
    assert "the answer could not be used: no ```python block" in unread
