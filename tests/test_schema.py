"""One concept schema for every way in: Memory.add/merge/edit, import files, hand annotations
and model answers accept and refuse the same things (custom types, junk text, sizes)."""

from __future__ import annotations

import pytest

from arcmemo.abstraction.annotations import AnnotationError, load_annotation
from arcmemo.abstraction.validate import validate_concepts
from arcmemo.core.parsing import ParseError
from arcmemo.memory.errors import ConceptDataError, StoreError
from arcmemo.memory.io.imports import MemoryImportError, import_file
from arcmemo.memory.schema import rules as schema
from arcmemo.memory.store import Memory

ANNOTATION = "summary: s\npseudocode: p\nconcepts:\n{concepts}"


@pytest.fixture
def memory(tmp_path):
    m = Memory(tmp_path / "m.db")
    yield m
    m.close()


def _yaml_concept(name: str, typing: str) -> str:
    return (f"  - name: {name}\n    kind: routine\n    output_typing: \"{typing}\"\n"
            f"    parameters:\n      - {{name: g, typing: \"{typing}\"}}\n")


@pytest.mark.parametrize("typing, name, definition", [
    ("color-map := dict[color, color]", "color-map", "dict[color, color]"),
    ("2d grid := list[list[int]]", "2d grid", "list[list[int]]"),
    ("selection criteria := Callable[[object], bool]", "selection criteria", "Callable[[object], bool]"),
])
def test_one_custom_type_rule_on_every_path(memory, tmp_path, typing, name, definition):
    assert schema.split_custom_type(typing) == (name, definition)
    # the store (Memory.add, imports): the typing keeps its definition, the type is recorded
    memory.add({"name": "stored", "output_typing": typing}, actor="a")
    assert memory.custom_types() == {name: definition}
    # a model's answer: the typing becomes the type's name
    [answer] = validate_concepts([{"name": "answered", "kind": "routine", "output_typing": typing,
                                   "parameters": [{"name": "g", "typing": typing}]}], exists=lambda n: False)
    assert schema.split_custom_types([answer]) == {name: definition}
    assert answer["output_typing"] == name and answer["parameters"][0]["typing"] == name
    # a hand annotation
    path = tmp_path / "aaaaaaaa.yaml"
    path.write_text(ANNOTATION.format(concepts=_yaml_concept("annotated", typing)))
    annotation = load_annotation(path)
    assert annotation.custom_types == {name: definition} and annotation.concepts[0]["output_typing"] == name


@pytest.mark.parametrize("typing", ["list[symmetry := Callable[[position], position]]", "x :=", ":= int",
                                    "dict[a, b] := c"])
def test_a_typing_expression_before_colon_equals_is_not_a_definition(memory, typing):
    assert schema.split_custom_type(typing) is None
    memory.add({"name": "n", "output_typing": typing}, actor="a")
    assert memory.custom_types() == {} and memory.get("n").output_typing == typing.strip()


JUNK = "sort\x00 \u202eobjects\u2066 by\x07 size"


def test_junk_characters_are_cleaned_the_same_way_everywhere(memory, tmp_path):
    assert schema.normalize({"name": JUNK})["name"] == "sort objects by size"
    assert memory.add({"name": JUNK, "cues": ["a\x00b"]}, actor="a").name == "sort objects by size"
    assert memory.get("sort objects by size").cues == ["ab"]
    [answer] = validate_concepts([{"name": JUNK, "kind": "routine"}], exists=lambda n: False)
    assert answer["name"] == "sort objects by size"
    path = tmp_path / "compressed.json"  # JSON may carry a lone surrogate (YAML refuses one)
    path.write_text('{"concepts": {"lone \\ud800 surrogate \\u202e": {"cues": ["c\\u0000"]}}}')
    other = Memory(tmp_path / "other.db")
    assert import_file(other, path, actor="x").names == ["lone \ufffd surrogate"]
    assert other.get("lone \ufffd surrogate").cues == ["c"]
    with pytest.raises(ConceptDataError) as info:
        memory.add({"name": "\u202e\x00 \u2066"}, actor="a")   # nothing left of the name
    assert info.value.field == "name"


def test_sizes_are_capped_naming_the_field(memory, tmp_path):
    huge = "n" * 60_000
    cases = [({"name": huge}, "name"), ({"name": "x", "description": "d" * (schema.MAX_TEXT + 1)}, "description"),
             ({"name": "x", "cues": ["c"] * (schema.MAX_ITEMS + 1)}, "cues"),
             ({"name": "x", "implementation": ["i" * (schema.MAX_ITEM + 1)]}, "implementation[0]"),
             ({"name": "x", "parameters": [{"name": huge}]}, "parameters[0].name")]
    for data, field in cases:
        with pytest.raises(ConceptDataError) as info:
            memory.add(data, actor="a")
        assert info.value.field == field and "too" in str(info.value) and len(str(info.value)) < 300
    assert memory.revision() == 0
    with pytest.raises(ParseError, match=r"^concepts\[0\] \('n{20,}\.\.\.n{20,}'\)\.name: 60,000 characters is too long"):
        validate_concepts([{"name": huge, "kind": "routine"}], exists=lambda n: False)
    path = tmp_path / "big.yaml"
    path.write_text(f"arcmemo_memory: 1\nconcepts:\n- name: ok\n- name: {huge}\n")
    with pytest.raises(MemoryImportError) as info:
        import_file(memory, path, actor="x")
    assert (info.value.line, info.value.field) == (4, "concepts[1].name") and len(str(info.value)) < 300
    annotation = tmp_path / "aaaaaaaa.yaml"
    annotation.write_text(ANNOTATION.format(concepts=f"  - name: {huge}\n    kind: routine\n"))
    with pytest.raises(AnnotationError, match=r"aaaaaaaa\.yaml:4: concepts\[0\]\.name: 60,000 characters"):
        load_annotation(annotation)


def test_same_verdict_from_every_path(memory, tmp_path):
    """One malformed concept: the store, an import, an annotation and an answer name the same field."""
    bad = {"name": "x", "kind": "routine", "parameters": [{"typing": "int"}]}
    with pytest.raises(ConceptDataError) as stored:
        memory.add(bad, actor="a")
    with pytest.raises(ParseError) as answered:
        validate_concepts([bad], exists=lambda n: False)
    path = tmp_path / "aaaaaaaa.yaml"
    path.write_text(ANNOTATION.format(concepts="  - {name: x, kind: routine, parameters: [{typing: int}]}\n"))
    with pytest.raises(AnnotationError) as annotated:
        load_annotation(path)
    export = tmp_path / "in.yaml"
    export.write_text("arcmemo_memory: 1\nconcepts:\n- {name: x, kind: routine, parameters: [{typing: int}]}\n")
    with pytest.raises(MemoryImportError) as imported:
        import_file(memory, export, actor="x")
    assert stored.value.field == "parameters[0].name" and imported.value.field == "concepts[0].parameters[0].name"
    for exc in (stored, answered, annotated, imported):
        assert "parameters[0].name: a parameter needs a name" in str(exc.value)


def test_unknown_fields_are_listed_together_with_what_is_allowed():
    with pytest.raises(ConceptDataError) as info:
        schema.normalize({"name": "x", "colour": 1, "size": 2})
    assert info.value.field == "colour" and "unknown field(s) colour, size; allowed: format, name" in str(info.value)
    with pytest.raises(ConceptDataError, match=r"parameters\[0\]\.x: unknown field\(s\) x; allowed: name, typing"):
        schema.normalize({"name": "n", "parameters": [{"name": "p", "x": 1}]})


def test_store_errors_share_one_base(memory):
    memory.add({"name": "x"}, actor="a")
    for call in (lambda: memory.add({"name": "x"}, actor="a"), lambda: memory.edit("nope", {}, actor="a", reason=""),
                 lambda: memory.add({"name": 3j}, actor="a"), lambda: memory.add_custom_type("t", "", actor="a")):
        with pytest.raises(StoreError):
            call()


@pytest.mark.parametrize("content, problem", [
    (b"summary: s\npseudocode: p\nlessons:\n  - situation: 2024-13-45\n    suggestion: - 2024-13-45\n",
     "not valid YAML: line 5"),
    (b"summary: s\npseudocode: p\nconcepts:\n  - 2024-13-45\n", "aaaaaaaa.yaml:4: concepts[0]: expected a mapping"),
    (b"lessons: " + b"[" * 50_000 + b"]" * 50_000, "nested more than 100 levels deep"),
    (b"summary: caf\xe9\n", "aaaaaaaa.yaml:1: is not UTF-8 text"),
    (b"", "aaaaaaaa.yaml: the file is empty"),
])
def test_annotation_files_cannot_crash_loading(tmp_path, content, problem):
    path = tmp_path / "aaaaaaaa.yaml"
    path.write_bytes(content)
    with pytest.raises(AnnotationError) as info:
        load_annotation(path)
    assert problem in str(info.value) and len(str(info.value)) < 300, str(info.value)


def test_dates_in_an_annotation_are_text(tmp_path):
    path = tmp_path / "aaaaaaaa.yaml"
    path.write_text("lessons:\n  - situation: 2024-13-45\n    suggestion: 2024-01-02\n")
    assert load_annotation(path).lessons == [{"format": "oe", "situation": "2024-13-45", "suggestion": "2024-01-02"}]
