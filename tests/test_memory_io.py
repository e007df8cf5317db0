"""YAML export/import round trip, ArcMemo JSON imports, and failed imports that change nothing."""

from __future__ import annotations

import json

import pytest
from shared_data import OE_LESSONS, PS_MEMORY, needs_reference, reference_file

from arcmemo.memory.io import export as mexport
from arcmemo.memory.io import files
from arcmemo.memory.io.imports import MemoryImportError, export_yaml, import_file
from arcmemo.memory.store import Memory


@pytest.fixture
def memory(tmp_path):
    m = Memory(tmp_path / "memory.db")
    yield m
    m.close()


def fill(memory: Memory) -> None:
    memory.add({"name": "recolor object", "kind": "routine", "routine_subtype": "grid manipulation",
                "output_typing": "grid", "description": "Recolor — an object\nacross two lines",
                "parameters": [{"name": "scheme", "typing": "color map := dict[color, color]"},
                               {"name": "object", "typing": "object", "description": "the: object"}],
                "cues": ["colors swap", "key: value looking note", "'quoted'"],
                "implementation": ["grid[mask] = c  "], "used_in": ["00576224", "007bbfb7", "1e0a9b12"]},
               actor="a", model="gpt-4.1")
    memory.add({"name": "a structure", "kind": "structure", "description": "yes"}, actor="a", source="self")
    memory.merge({"format": "oe", "situation": "When rows repeat", "suggestion": "Tile them"}, actor="m",
                 task_id="t1", model="o4-mini")
    memory.merge({"format": "sheet", "name": "cheatsheet", "description": "- tip one\n- tip two\n"}, actor="c")
    memory.add_custom_type("direction", 'Literal["up", "down"]', actor="a")


def test_export_import_export_gives_identical_bytes(memory, tmp_path):
    fill(memory)
    first = export_yaml(memory)
    path = tmp_path / "memory.yaml"
    path.write_text(first, encoding="utf-8")
    empty = Memory(tmp_path / "other.db")
    result = import_file(empty, path, actor="importer")
    assert (result.kind, result.added, result.custom_types) == ("arcmemo-yaml", 4, 2)
    second = export_yaml(empty)
    assert second.encode() == first.encode()
    # and the data itself survived, not just the text
    assert empty.get("recolor object").to_data() == memory.get("recolor object").to_data()
    assert empty.get("recolor object").created_by_model == "gpt-4.1"
    assert empty.get("recolor object").used_in[0] == "00576224"  # not read back as a number
    assert [h.op for h in empty.history()][-4:] == ["import"] * 4
    # importing again changes nothing
    again = import_file(empty, path, actor="importer")
    assert (again.added, again.extended, again.unchanged) == (0, 0, 4) and export_yaml(empty) == first


def test_export_is_sorted_and_canonical(memory):
    fill(memory)
    text = export_yaml(memory)
    names = [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("  name: ")]
    formats = [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("- format: ")]
    assert list(zip(formats, names)) == sorted(zip(formats, names))
    assert text.startswith("arcmemo_memory: 1\ncustom_types:\n  color map: dict[color, color]\n  direction:")
    assert "description: |-\n    Recolor — an object\n    across two lines" in text
    assert "situation: null" not in text  # empty fields are left out


def test_export_as_of_and_by_format(memory, tmp_path):
    fill(memory)
    rev = memory.revision()
    memory.edit("recolor object", {"description": "changed"}, actor="u", reason="r")
    memory.delete("a structure", actor="u", reason="r")
    old = export_yaml(memory, as_of=rev)
    assert "Recolor — an object" in old and "a structure" in old and "changed" not in old
    assert "format: oe" not in export_yaml(memory, format="ps")
    assert "custom_types: {}" in export_yaml(memory, format="oe")


@needs_reference(PS_MEMORY)
def test_import_arcmemo_compressed_ps(memory):
    released = reference_file(PS_MEMORY)
    result = import_file(memory, released, actor="import")
    assert (result.kind, result.added) == ("arcmemo-ps-json", 270)
    concepts = memory.list("ps")
    assert len(concepts) == 270 and {c.source for c in concepts} == {"import"}
    raw = json.loads(released.read_text())
    types = memory.custom_types()
    assert all(types[name] == definition for name, definition in raw["custom_types"].items())
    assert types["selection criteria"] == "Callable[[object], bool]"  # defined inline in a parameter typing
    eo = memory.get("extract objects")
    assert eo.used_in == raw["concepts"]["extract objects"]["used_in"]
    assert [p["name"] for p in eo.parameters][:2] == ["input grid", "single color"]
    # a note YAML had split into a mapping comes back as text
    assert "use Python slicing: sequence[offset::n]" in memory.get("select every nth element").implementation
    again = import_file(memory, released, actor="import")
    assert (again.added, again.unchanged) == (0, 270)


@needs_reference(OE_LESSONS)
def test_import_arcmemo_oe_lessons(memory):
    released = reference_file(OE_LESSONS)
    result = import_file(memory, released, actor="import")
    raw = json.loads(released.read_text())
    lessons = memory.list("oe")
    assert result.kind == "arcmemo-oe-json" and len(lessons) == result.added == 364
    assert {t for c in lessons for t in c.used_in} == set(raw) and len(raw) == 160
    first_task = next(iter(raw))
    assert {(c.situation, c.suggestion) for c in lessons if first_task in c.used_in} == \
        {(x["situation"].strip(), x["suggestion"].strip()) for x in raw[first_task]}


# -- failures leave the database as it was --------------------------------------------------

def _state(memory):
    return memory.revision(), export_yaml(memory)


BAD_YAML = """\
arcmemo_memory: 1
concepts:
- format: ps
  name: fine concept
- format: ps
  name: broken
  parameters:
  - typing: int
"""


@pytest.mark.parametrize("text, line, field, message", [
    (BAD_YAML, 8, "concepts[1].parameters[0].name", "a parameter needs a name"),
    ("arcmemo_memory: 1\nconcepts:\n- name: x\n  kind: [unclosed\n", 4, None, "invalid YAML"),
    ("arcmemo_memory: 1\nconcepts:\n- name: x\n- name: y\n  cues: just text\n", 5, "concepts[1].cues", "list"),
    ("arcmemo_memory: 1\nconcepts:\n- name: x\n  colour: red\n", 4, "concepts[0].colour", "unknown field"),
    ("arcmemo_memory: 1\ncustom_types:\n  axis: [1]\nconcepts: []\n", 3, "custom_types.axis", "definition"),
    ("arcmemo_memory: 2\nconcepts: []\n", 1, "arcmemo_memory", "unsupported export version"),
    ("- just\n- a list\n", None, None, "not a recognised memory file"),
])
def test_malformed_yaml_names_file_line_field_and_writes_nothing(memory, tmp_path, text, line, field, message):
    fill(memory)
    before = _state(memory)
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(MemoryImportError) as info:
        import_file(memory, path, actor="x")
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), line, field)
    assert message in str(err) and str(err).startswith(f"{path}:{line}:" if line else f"{path}:")
    assert _state(memory) == before


def test_malformed_json_names_line_and_field(memory, tmp_path):
    before = _state(memory)
    broken = tmp_path / "broken.json"
    broken.write_text('{"concepts": {\n  "a": {"name": "a",\n  }\n}')
    with pytest.raises(MemoryImportError) as info:
        import_file(memory, broken, actor="x")
    assert info.value.line == 3 and "invalid JSON" in str(info.value)
    bad = tmp_path / "compressed.json"
    bad.write_text(json.dumps({"concepts": {"a": {"name": "a"}, "b": {"name": "b", "kind": "routine",
                                                               "parameters": "grid"}}}, indent=2))
    with pytest.raises(MemoryImportError) as info:
        import_file(memory, bad, actor="x")
    assert info.value.field == "concepts.b.parameters" and info.value.line == 9
    lessons = tmp_path / "lessons.json"
    lessons.write_text(json.dumps({"t1": [{"situation": "s", "suggestion": "g"}, {"situation": "s"}]}))
    with pytest.raises(MemoryImportError, match=r"t1\[1\]\.suggestion"):
        import_file(memory, lessons, actor="x")
    assert _state(memory) == before


def test_failure_while_writing_rolls_back_everything(memory, tmp_path, monkeypatch):
    fill(memory)
    before = _state(memory)
    path = tmp_path / "ok.yaml"
    path.write_text("arcmemo_memory: 1\ncustom_types:\n  new type: int\nconcepts:\n- name: n1\n- name: n2\n"
                    "- name: recolor object\n  cues: [another cue]\n")
    real = Memory.merge_many

    def failing(self, *args, **kwargs):
        real(self, *args, **kwargs)  # everything written inside the transaction...
        raise OSError("disk full")   # ...then the import fails

    monkeypatch.setattr(Memory, "merge_many", failing)
    with pytest.raises(OSError):
        import_file(memory, path, actor="x")
    assert _state(memory) == before
    monkeypatch.setattr(Memory, "merge_many", real)
    result = import_file(memory, path, actor="x")
    assert (result.added, result.extended, result.custom_types) == (2, 1, 1)


def test_missing_file(memory, tmp_path):
    with pytest.raises(MemoryImportError, match="no such file"):
        import_file(memory, tmp_path / "nope.yaml", actor="x")


def test_line_lookup_for_nested_paths():
    import yaml

    node = yaml.compose("a:\n  b:\n  - x\n  - y: 1\n")
    assert files.line_of(node, ["a", "b", 1, "y"]) == 4
    assert files.line_of(node, ["a", "missing"]) == 1
    assert files.path_parts("parameters[2].name") == ["parameters", 2, "name"]


def test_two_lessons_under_one_name_are_refused_at_the_line(tmp_path):
    from arcmemo.memory.io.imports import MemoryImportError, import_file
    from arcmemo.memory.store import Memory

    path = tmp_path / "two.yaml"
    path.write_text("arcmemo_memory: 1\nconcepts:\n"
                    "- {format: oe, name: same, situation: a, suggestion: b}\n"
                    "- {format: oe, name: same, situation: c, suggestion: d}\n")
    memory = Memory(str(tmp_path / "m.db"))
    with pytest.raises(MemoryImportError, match=r"two\.yaml:4: concepts\[1\]\.name: two different lessons are named "
                                                r"'same' \(the other at line 3 \(concepts\[0\]\)\)"):
        import_file(memory, path, actor="test")
    assert memory.list() == [] and memory.revision() == 0


# -- files that cannot crash an import ------------------------------------------------------

@pytest.mark.parametrize("name, content, problem", [
    ("latin1.yaml", "arcmemo_memory: 1\nconcepts:\n- name: caf\xe9\n".encode("latin-1"),
     ":3: is not UTF-8 text (byte 0xe9 at offset 39)"),
    ("utf16.yaml", "arcmemo_memory: 1\n".encode("utf-16"), "is UTF-16 text; save it as UTF-8"),
    ("empty.yaml", b"  \n", "the file is empty"),
    ("deep.yaml", b"[" * 100_000 + b"]" * 100_000, "nested more than 100 levels deep"),
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply to read"),
    ("huge.yaml", b"arcmemo_memory: " + b"9" * 5000, "an integer of 5000 digits is too long"),
    ("huge.json", b'{"x": ' + b"9" * 5000 + b"}", "invalid JSON: Exceeds the limit"),
    ("alias.yaml", b"arcmemo_memory: 1\nconcepts:\n- &a {name: x}\n- *a\n", "aliases (*name) are not allowed"),
    ("tagged.yaml", b"arcmemo_memory: 1\nconcepts:\n- name: !!timestamp 2024-01-01\n", "not allowed here"),
    ("date.yaml", b"arcmemo_memory: 1\nconcepts:\n- 2024-13-45\n", "expected a mapping of concept fields, got str"),
])
def test_a_file_that_cannot_be_read_is_one_clean_error(memory, tmp_path, name, content, problem):
    fill(memory)
    before = _state(memory)
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(MemoryImportError) as info:
        import_file(memory, path, actor="x")
    message = str(info.value)
    assert message.startswith(str(path)) and problem in message and len(message) < 300, message
    assert _state(memory) == before


def test_a_directory_is_not_a_file(memory, tmp_path):
    with pytest.raises(MemoryImportError, match="is a directory, not a file"):
        import_file(memory, tmp_path, actor="x")


def test_dates_and_numbers_where_text_belongs_are_text(memory, tmp_path):
    path = tmp_path / "dates.yaml"
    path.write_text("arcmemo_memory: 1\nconcepts:\n- name: 2024-13-45\n  cues:\n  - 2024-13-45\n  - 2024-01-02\n"
                    "  used_in: ['2024-13-45']\n")
    assert import_file(memory, path, actor="x").names == ["2024-13-45"]
    assert memory.get("2024-13-45").cues == ["2024-13-45", "2024-01-02"]


@needs_reference(PS_MEMORY)
def test_the_one_pass_loader_reads_what_pyyaml_reads():
    import yaml

    from arcmemo.core import safeyaml

    text = yaml.safe_dump(json.loads(reference_file(PS_MEMORY).read_text()), allow_unicode=True)
    assert safeyaml.load(text) == yaml.safe_load(text)


# -- export streams ---------------------------------------------------------------------------

def test_the_streamed_export_is_the_whole_documents_text(memory, monkeypatch):
    """write_yaml writes each concept as it is read, a chunk at a time; the bytes are dump_yaml's of
    the whole memory, with long lines folded, blocks, quotes and unicode, as of any revision and for
    any format."""
    from arcmemo.memory.io.imports import dump_yaml

    monkeypatch.setattr(mexport, "EXPORT_CHUNK", 2)
    assert export_yaml(memory) == dump_yaml([], {}) == "arcmemo_memory: 1\ncustom_types: {}\nconcepts: []\n"
    fill(memory)
    long = " ".join(["a long cue that the emitter folds at a hundred columns:"] * 5)
    for i in range(7):
        memory.add({"name": f"z concept {6 - i}", "cues": [long, f"'{i}': quoted"], "description": "line\n  indented"},
                   actor="a")
    revisions = [memory.revision()]
    memory.edit("z concept 3", {"name": "a renamed concept"}, actor="u", reason="r")
    memory.delete("z concept 5", actor="u", reason="r")
    revisions += [memory.revision(), 1, 3]
    for as_of in [None, *revisions]:
        for fmt in (None, "ps", "oe", "sheet"):
            whole = dump_yaml(memory.list(fmt, as_of=as_of),
                              memory.custom_types(as_of=as_of) if fmt in (None, "ps") else {})
            assert export_yaml(memory, as_of=as_of, format=fmt) == whole, (as_of, fmt)
    assert "a renamed concept" in export_yaml(memory) and "a renamed concept" not in export_yaml(memory, as_of=1)


def test_the_export_reads_a_chunk_of_concepts_at_a_time(memory, monkeypatch):
    from arcmemo.memory.store import reads

    for i in range(23):
        memory.add({"name": f"c{i:02d}", "used_in": [f"t{i}"]}, actor="a")
    memory.edit("c05", {"description": "changed"}, actor="u", reason="r")
    read: list[int] = []
    for name in ("concepts_of", "from_snapshots"):
        real = getattr(reads, name)
        monkeypatch.setattr(reads, name, lambda rows, real=real: read.append(len(got := real(rows))) or got)
    monkeypatch.setattr(mexport, "EXPORT_CHUNK", 5)
    text = export_yaml(memory)
    assert max(read) <= 5 and sum(read) == 23 and text.count("- format: ps") == 23
    read.clear()
    export_yaml(memory, as_of=23)                           # before the edit: c05 rebuilt from its snapshot
    assert max(read) <= 5 and sum(read) == 23


def test_the_export_command_never_leaves_a_half_written_file(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from arcmemo.cli import cli

    db, out = tmp_path / "m.db", tmp_path / "memory.yaml"
    with Memory(db) as memory:
        fill(memory)
    out.write_text("the previous export\n")

    def broken(concept):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(mexport, "concept_entry", broken)
    result = CliRunner().invoke(cli, ["concepts", "export", str(out), "--db", str(db)])
    assert result.exit_code == 1 and f"{out}: cannot be written: no space left for it in {tmp_path}" in result.output
    assert out.read_text() == "the previous export\n" and sorted(p.name for p in tmp_path.iterdir()) == ["m.db", "memory.yaml"]
    monkeypatch.undo()
    assert CliRunner().invoke(cli, ["concepts", "export", str(out), "--db", str(db)]).exit_code == 0
    with Memory(db) as memory:
        assert out.read_text() == export_yaml(memory)
