"""Memory input says what it drops (issue 26, item 10): a concept given twice in one import file
is refused (or merged, each merge said), a number, list or mapping where text belongs is refused
with file, line and field, a typing that does not parse defines no custom type, and a write
creates at most so many custom types, the rest reported — by import, by the PS write of a solve
and by seed."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from shared_data import PS_MEMORY, needs_reference, reference_file

from arcmemo.abstraction import SolutionInput, write_ps
from arcmemo.abstraction.annotations import ingest_annotation, load_annotation
from arcmemo.cli import cli
from arcmemo.core.tasks import Pair, Task
from arcmemo.memory.io.imports import MemoryImportError, export_yaml, import_file
from arcmemo.memory.schema.typings import is_type, split_definition
from arcmemo.memory.store import MAX_NEW_TYPES, Memory

DUPLICATE = """\
arcmemo_memory: 1
concepts:
- name: recolor object
  kind: routine
  cues: [colors swap]
- name: crop grid
  kind: routine
- name: recolor object
  cues: [one color becomes another]
"""

JUNK_TYPINGS = "arcmemo_memory: 1\nconcepts:\n" + "".join(
    f"- name: step {i}\n  kind: routine\n  parameters:\n"
    f"  - {{name: mask, typing: 'mask {i} := the grid whose non-zero cells mark the objects of step {i}'}}\n"
    for i in range(300))


@pytest.fixture
def memory(tmp_path):
    m = Memory(tmp_path / "memory.db")
    yield m
    m.close()


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def nothing_written(memory: Memory) -> bool:
    return memory.revision() == 0 and memory.list() == [] and memory.custom_types() == {}


# -- a concept given twice ------------------------------------------------------------------------

def test_a_name_given_twice_refuses_the_file_naming_both_places(memory, tmp_path):
    path = write(tmp_path, "duplicate.yaml", DUPLICATE)
    with pytest.raises(MemoryImportError) as info:
        import_file(memory, path, actor="me")
    assert str(info.value) == (f"{path}:8: concepts[2]: ps concept 'recolor object' appears twice in this file (first "
                               "at line 3 (concepts[0])); give each concept once, or import with --on-duplicate "
                               "merge to merge the two")
    assert nothing_written(memory)


def test_merging_duplicates_says_so_per_concept(memory, tmp_path):
    path = write(tmp_path, "duplicate.yaml", DUPLICATE)
    result = import_file(memory, path, actor="me", on_duplicate="merge")
    assert result.merged_duplicates == ["ps concept 'recolor object' at line 8 (concepts[2]) merged into the one at "
                                        "line 3 (concepts[0])"]
    assert (result.added, len(memory.list())) == (2, 2)
    assert memory.get("recolor object").cues == ["colors swap", "one color becomes another"]


def test_the_command_refuses_or_merges_as_asked(tmp_path):
    path, db = write(tmp_path, "duplicate.yaml", DUPLICATE), tmp_path / "m.db"
    refused = CliRunner().invoke(cli, ["concepts", "import", str(path), "--db", str(db)])
    assert refused.exit_code == 1 and "appears twice in this file" in refused.output and "Traceback" not in refused.output
    merged = CliRunner().invoke(cli, ["concepts", "import", str(path), "--db", str(db), "--on-duplicate", "merge"])
    assert merged.exit_code == 0, merged.output
    assert "2 added" in merged.output and "merged: ps concept 'recolor object' at line 8" in merged.output


def test_a_lesson_given_twice_is_a_duplicate_too(memory, tmp_path):
    lesson = {"situation": "rows repeat", "suggestion": "tile them"}
    path = write(tmp_path, "lessons.json", json.dumps({"t1": [lesson], "t2": [dict(lesson)]}, indent=1))
    with pytest.raises(MemoryImportError, match=r"lessons\.json:\d+: t2\[0\]: this lesson appears twice in this file"):
        import_file(memory, path, actor="me")
    result = import_file(memory, path, actor="me", on_duplicate="merge")
    assert result.added == 1 and memory.list("oe")[0].used_in == ["t1", "t2"] and len(result.merged_duplicates) == 1


def test_a_json_key_given_twice_is_refused_at_its_line(memory, tmp_path):
    text = ('{"concepts": {\n  "recolor object": {"kind": "routine"},\n  "crop grid": {},\n'
            '  "recolor object": {"cues": ["x"]}\n}}\n')
    path = write(tmp_path, "compressed.json", text)
    with pytest.raises(MemoryImportError) as info:
        import_file(memory, path, actor="me")
    assert str(info.value) == (f"{path}:4: invalid JSON: the key 'recolor object' appears twice in one object "
                               "(give it once)")
    assert nothing_written(memory)


# -- nothing coerced ---------------------------------------------------------------------------

@pytest.mark.parametrize("field, value, line, where, got", [
    ("routine_subtype", "3", 5, "concepts[0].routine_subtype", "a number 3 (quote it to mean the text: '3')"),
    ("description", "2.5", 5, "concepts[0].description", "a number 2.5"),
    ("output_typing", "[grid, int]", 5, "concepts[0].output_typing", "a list ['grid', 'int']"),
    ("name", "{a: b}", 3, "concepts[0].name", "a mapping {'a': 'b'}"),
    ("cues", "[12]", 5, "concepts[0].cues[0]", "a number 12"),
    ("cues", "[use slicing: 'seq[::n]']", 5, "concepts[0].cues[0]", "a mapping (a ': ' inside an unquoted list item"),
    ("parameters", "[{name: n, typing: 4}]", 5, "concepts[0].parameters[0].typing", "a number 4"),
    ("parameters", "[{name: 7, typing: int}]", 5, "concepts[0].parameters[0].name", "a number 7"),
])
def test_a_value_that_is_not_text_is_refused_at_its_line(memory, tmp_path, field, value, line, where, got):
    entry = "- name: x\n  kind: routine\n" if field != "name" else ""
    text = f"arcmemo_memory: 1\nconcepts:\n{entry}  {field}: {value}\n".replace("concepts:\n  ", "concepts:\n- ")
    path = write(tmp_path, "coerced.yaml", text)
    with pytest.raises(MemoryImportError) as info:
        import_file(memory, path, actor="me")
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: {where}: expected text, got {got}"), message
    assert nothing_written(memory)


def test_a_custom_type_given_as_a_number_is_refused(memory, tmp_path):
    path = write(tmp_path, "types.yaml", "arcmemo_memory: 1\ncustom_types:\n  size: 3\nconcepts: []\n")
    with pytest.raises(MemoryImportError, match=r"types\.yaml:3: custom_types\.size: .*expected text, got a number 3"):
        import_file(memory, path, actor="me")


# -- typings ------------------------------------------------------------------------------------

def test_typings_that_do_not_parse_create_no_types(memory, tmp_path):
    path = write(tmp_path, "junk.yaml", JUNK_TYPINGS)
    result = import_file(memory, path, actor="me")
    assert result.added == 300 and result.custom_types == 0 and result.types_dropped == []
    assert memory.custom_types() == {}
    assert memory.get("step 7").parameters[0]["typing"] == "mask 7 := the grid whose non-zero cells mark the objects of step 7"


@pytest.mark.parametrize("typing, defined", [
    ("selection criteria := Callable[[object], bool]", ("selection criteria", "Callable[[object], bool]")),
    ('direction := Literal["up", "down"]', ("direction", 'Literal["up", "down"]')),
    ("splitting scheme := str | Callable[[grid], list[grid]]", ("splitting scheme", "str | Callable[[grid], list[grid]]")),
    ("dims := tuple[int, ...]", ("dims", "tuple[int, ...]")),
    ("mask := the grid whose non-zero cells mark the objects", None),      # prose: too many words for a name
    ("position := tuple[int, int] as (row, col)", None),                   # words after the type
    ("size := int, the number of rows", None),
    ("a very long custom type name := int", None),                         # a name of five words
    ("list[symmetry := Callable[[position], position]]", None),            # ArcMemo's own malformed one
    ("grid := dict[", None),
])
def test_what_defines_a_custom_type(typing, defined):
    assert split_definition(typing) == defined


@needs_reference(PS_MEMORY)
def test_every_typing_of_arcmemos_released_memory_is_a_type():
    concepts = json.loads(reference_file(PS_MEMORY).read_text())["concepts"].values()
    typings = {t for c in concepts for t in [c.get("output_typing")] + [p.get("typing") for p in c.get("parameters") or []]
               if t}
    failing = sorted(t for t in typings if not (split_definition(t) or is_type(t)))
    assert failing == ["list[symmetry := Callable[[position], position]]"]


# -- a cap on custom types per write ------------------------------------------------------------

def test_an_import_creates_at_most_its_cap_of_types_and_lists_the_rest(memory, tmp_path):
    text = "arcmemo_memory: 1\nconcepts:\n" + "".join(
        f"- name: c{i}\n  output_typing: 'kind {i} := Callable[[grid], grid]'\n" for i in range(12))
    path = write(tmp_path, "types.yaml", text)
    result = import_file(memory, path, actor="me", max_new_types=5)
    assert result.custom_types == 5 and sorted(memory.custom_types()) == [f"kind {i}" for i in range(5)]
    assert result.types_dropped == [f"kind {i}" for i in range(5, 12)] and result.added == 12
    assert memory.get("c9").output_typing == "kind 9 := Callable[[grid], grid]"      # the typing is kept whole
    cli_run = CliRunner().invoke(cli, ["concepts", "import", str(path), "--db", str(tmp_path / "other.db"),
                                       "--max-new-types", "3"])
    assert cli_run.exit_code == 0, cli_run.output
    assert "9 custom types not created, over the cap of 3 per file (--max-new-types): 'kind 3', 'kind 4'" in cli_run.output


def test_an_export_imports_whole_under_the_default_cap(memory, tmp_path):
    for i in range(30):
        memory.add({"name": f"c{i}", "output_typing": f"kind {i} := Callable[[grid], grid]"}, actor="me")
    path = write(tmp_path, "export.yaml", export_yaml(memory))
    other = Memory(tmp_path / "other.db")
    result = import_file(other, path, actor="me")
    assert result.types_dropped == [] and export_yaml(other) == path.read_text()


@pytest.fixture
def task():
    grid = ((1, 2), (3, 4))
    return Task("3c9b0459", (Pair(grid, ((4, 3), (2, 1))),), (grid,))


def answer_with_types(n: int, junk: int = 0) -> str:
    params = "".join(f"    - {{name: p{i}, typing: 'rule {i} := Callable[[grid], bool]'}}\n" for i in range(n))
    params += "".join(f"    - {{name: q{i}, typing: 'q{i} := the cells that change in step {i}'}}\n" for i in range(junk))
    return f"```yaml\n- name: apply rules\n  kind: routine\n  output_typing: grid\n  parameters:\n{params}```"


def test_a_solves_write_keeps_prose_typings_as_text_and_caps_new_types(memory, fake_model, fake_llm, task):
    fake_model.queue("ps_abstract", answer_with_types(MAX_NEW_TYPES + 5, junk=200))
    solution = SolutionInput(task, "def transform(grid):\n    return grid\n", origin="self",
                             pseudocode="output = grid", summary="Copy.")
    result = write_ps(memory, fake_llm, solution, run_id="r1", examples=[])
    assert not result.failed, result.error
    assert len(memory.custom_types()) == MAX_NEW_TYPES                           # not 225
    assert result.types_dropped == [f"rule {i}" for i in range(MAX_NEW_TYPES, MAX_NEW_TYPES + 5)]
    params = {p["name"]: p["typing"] for p in memory.get("apply rules").parameters}
    assert params["q3"] == "q3 := the cells that change in step 3" and params["p0"] == "rule 0"
    assert params[f"p{MAX_NEW_TYPES}"] == f"rule {MAX_NEW_TYPES}"               # dropped: the name stays as text


def test_a_seed_annotation_is_capped_and_says_so(memory, tmp_path):
    types = "".join(f"  t{i}: Callable[[grid], grid]\n" for i in range(MAX_NEW_TYPES + 3))
    path = write(tmp_path, "3c9b0459.yaml", "summary: s\npseudocode: p\nconcepts:\n  - {name: copy, kind: routine}\n"
                                           f"custom_types:\n{types}")
    result = ingest_annotation(memory, load_annotation(path), "def transform(g):\n    return g\n", formats=("ps",))
    assert len(memory.custom_types()) == MAX_NEW_TYPES
    assert result.types_dropped == [f"t{i}" for i in range(MAX_NEW_TYPES, MAX_NEW_TYPES + 3)]
