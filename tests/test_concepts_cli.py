"""`arcmemo concepts ...`: browsing, editing, history, graph, export/import, and clean user errors."""

from __future__ import annotations

import json

import click
import pytest
import yaml
from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.memory.store import Memory


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "memory.db"
    memory = Memory(path)
    memory.add({"name": "recolor object", "kind": "routine", "routine_subtype": "grid manipulation",
                "output_typing": "grid", "parameters": [{"name": "objects", "typing": "list[object]"}],
                "cues": ["colors swap"], "used_in": ["t1", "t2"]}, actor="seed")
    memory.add({"name": "extract objects", "kind": "routine", "routine_subtype": "intermediate",
                "output_typing": "list[object]", "implementation": ["label the mask"], "used_in": ["t2"]},
               actor="seed")
    memory.merge({"format": "oe", "situation": "objects change color", "suggestion": "map colors"},
                 actor="m", task_id="t1")
    memory.close()
    monkeypatch.setenv("ARCMEMO_DB", str(path))
    return path


def run(*args, input=None):
    result = CliRunner().invoke(cli, ["concepts", *args], input=input)
    return result


def ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout


def fails(*args) -> str:
    result = run(*args)
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # a clean exit, not a crash
    assert "Traceback" not in result.output
    assert result.stdout == ""
    return result.stderr


def test_list_show_search(db):
    out = ok("list")
    assert out.splitlines()[0].split() == ["id", "format", "name", "uses", "kind", "detail"]
    assert "recolor object" in out and "objects change color" in out
    data = json.loads(ok("list", "--format", "ps", "--json"))
    assert [d["name"] for d in data] == ["recolor object", "extract objects"] and data[0]["used_in"] == ["t1", "t2"]
    shown = ok("show", "recolor object")
    assert shown.startswith("# id 1,") and yaml.safe_load(shown)["cues"] == ["colors swap"]
    assert json.loads(ok("show", "2", "--json"))["name"] == "extract objects"
    assert [d["name"] for d in json.loads(ok("search", "OBJECT", "--json"))][:2] == ["recolor object", "extract objects"]
    assert json.loads(ok("search", "map colors", "--format", "oe", "--json"))[0]["format"] == "oe"


def test_edit_with_set_and_history(db):
    out = ok("edit", "recolor object", "--set", "description=recolor it", "--set", "cues=[a, b]",
             "--reason", "clarify", "--actor", "tester")
    assert "edited ps concept 1" in out
    concept = Memory(db).get("recolor object")
    assert concept.description == "recolor it" and concept.cues == ["a", "b"]
    hist = json.loads(ok("history", "recolor object", "--json"))
    assert [h["op"] for h in hist] == ["add", "edit"] and hist[1]["actor"] == "tester" and hist[1]["reason"] == "clarify"
    assert "edit" in ok("history", "--limit", "1")
    assert json.loads(ok("edit", "1", "--set", "output_typing=", "--json"))["output_typing"] is None


def test_edit_in_editor(db, monkeypatch):
    def fake_edit(text, extension):
        data = yaml.safe_load(text)
        assert extension == ".yaml" and data["name"] == "extract objects"
        data["implementation"].append("then filter by size")
        del data["used_in"]  # removing a field empties it
        return yaml.safe_dump(data)

    monkeypatch.setattr("click.edit", fake_edit)
    ok("edit", "extract objects")
    concept = Memory(db).get("extract objects")
    assert concept.implementation == ["label the mask", "then filter by size"] and concept.used_in == []
    monkeypatch.setattr("click.edit", lambda text, extension: None)  # editor closed without saving
    assert run("edit", "extract objects").exit_code == 0
    monkeypatch.setattr("click.edit", lambda text, extension: "name: [broken\n")
    assert "edited YAML line" in fails("edit", "extract objects")


def test_delete_then_as_of(db):
    rev = Memory(db).revision()
    assert "deleted ps concept 2" in ok("delete", "extract objects", "--reason", "dup")
    assert "extract objects" not in ok("list")
    assert "extract objects" in ok("list", "--as-of", str(rev))
    assert yaml.safe_load(ok("show", "extract objects", "--as-of", str(rev)).split("\n", 1)[1])["used_in"] == ["t2"]
    assert "no ps concept 'extract objects'" in fails("show", "extract objects")


def test_names_users_type_are_found(db):
    lesson = json.loads(ok("list", "--format", "oe", "--json"))[0]["name"]
    assert lesson.startswith("lesson-")
    assert yaml.safe_load(ok("show", lesson).split("\n", 1)[1])["format"] == "oe"     # no --format oe needed
    for typed in ("Extract Objects", "extract_objects", "  EXTRACT-objects "):
        assert json.loads(ok("show", typed, "--json"))["name"] == "extract objects"
    assert [h["op"] for h in json.loads(ok("history", "Recolor Object", "--json"))] == ["add"]
    assert "'extract objects' returns list[object]" in ok("graph", "Extract Objects")
    assert "edited ps concept 2" in ok("edit", "EXTRACT OBJECTS", "--set", "description=finds them")
    err = fails("show", lesson, "--format", "ps")
    assert f"no ps concept {lesson!r}; oe {lesson!r} (id 3) has that name: use --format oe" in err
    assert "close names: 'extract objects'" in fails("show", "extract objcts")
    Memory(db).add({"format": "oe", "name": "recolor object", "situation": "s", "suggestion": "g"}, actor="a")
    err = fails("delete", "recolor object")
    assert "could be ps 'recolor object' (id 1), oe 'recolor object' (id 4)" in err
    assert "deleted oe concept 4" in ok("delete", "recolor object", "--format", "oe")
    assert [h["op"] for h in json.loads(ok("history", "4", "--json"))] == ["add", "delete"]  # deleted: by id


def test_every_option_has_help():
    from arcmemo.cli.concepts import concepts

    missing = [(name, p.opts[0]) for name, command in concepts.commands.items() for p in command.params
               if isinstance(p, click.Option) and not p.help]
    assert missing == []


def test_export_import_round_trip(db, tmp_path):
    out = tmp_path / "memory.yaml"
    ok("export", str(out))
    assert ok("export") == out.read_text()
    other = tmp_path / "other.db"
    res = json.loads(ok("import", str(out), "--db", str(other), "--json"))
    assert res[0]["added"] == 3
    assert ok("export", "--db", str(other)) == out.read_text()
    assert "format: oe" not in ok("export", "--format", "ps")


def test_graph_neighbours_and_graphml(db, tmp_path):
    out = ok("graph", "extract objects")
    assert "recolor object" in out and "type" in out
    rows = json.loads(ok("graph", "recolor object", "--json"))
    assert {(r["kind"], r["name"]) for r in rows} == {("type", "extract objects"), ("co_usage", "extract objects")}
    path = tmp_path / "g.graphml"
    ok("graph", "--graphml", str(path))
    assert path.read_text().startswith("<?xml")
    assert "give a concept NAME" in fails("graph")


def test_user_errors_are_one_line_on_stderr(db, tmp_path, monkeypatch):
    assert "no memory database at" in fails("list", "--db", str(tmp_path / "missing.db"))
    assert not (tmp_path / "missing.db").exists()
    assert "no ps concept 'nope'" in fails("show", "nope")
    assert "unknown field" in fails("edit", "1", "--set", "colour=red")
    assert "expected FIELD=VALUE" in fails("edit", "1", "--set", "description")
    assert "expected a YAML list" in fails("edit", "1", "--set", "cues=one")
    assert "a parameter needs a name" in fails("edit", "1", "--set", "parameters=[{typing: int}]")
    bad = tmp_path / "bad.yaml"
    bad.write_text("arcmemo_memory: 1\nconcepts:\n- name: x\n  kind: thing\n")
    err = fails("import", str(bad))
    assert f"{bad}:4: concepts[0].kind" in err
    assert "cannot open memory database" in fails("list", "--db", "nosuchdialect://x")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"arcmemo_memory: 1\nconcepts:\n- name: caf\xe9\n")
    assert fails("import", str(latin)) == f"Error: {latin}:3: is not UTF-8 text (byte 0xe9 at offset 39)\n"
    monkeypatch.setattr("click.edit", lambda text, extension: "[" * 50_000 + "]" * 50_000)
    assert "nested more than 100 levels deep" in fails("edit", "1")
    readme = tmp_path / "README.md"
    readme.write_text("# not a memory\n")
    assert fails("list", "--db", str(readme)) == f"Error: cannot open memory database {readme}: " \
                                                  "the file is not an SQLite database\n"
