"""What the store keeps for memory methods besides ArcMemo's concepts: the formats of their items
(playbook bullets, bank items, past cases), a concept's `meta` (a method's own fields), and per
usage row the run's train-pair count and the method's helpful/harmful verdict."""

from __future__ import annotations

import hashlib
import json

import pytest
import sqlalchemy as sa
from test_store import memory_url  # noqa: F401  (the store tests' backends: SQLite, and PostgreSQL when set)

from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.io.imports import export_yaml, import_file
from arcmemo.memory.schema import rules as schema
from arcmemo.memory.schema.concept import DATA_FIELDS
from arcmemo.memory.store import Memory, migrations
from arcmemo.memory.store.reads import ConceptUse

BULLET = {"format": "playbook", "name": "strategies-00001", "description": "Count the colours before anything else.",
          "meta": {"section": "strategies", "tags": ["colour", "count"], "weight": 0.5, "pinned": False}}
BANK = {"format": "bank", "name": "Check the border first", "description": "A frame often decides the output.",
        "suggestion": "Look at the outermost rows and columns; a frame colour is a cue.",
        "meta": {"origin": "failure"}}
CASE = {"format": "case", "name": "0d3d703e", "description": "recolour by a fixed table",
        "implementation": ["def transform(grid): ..."]}
LESSON = {"format": "oe", "situation": "Colours swap.", "suggestion": "Build the table."}


@pytest.fixture
def memory(memory_url):  # noqa: F811
    with Memory(memory_url) as m:
        yield m


def test_every_method_format_round_trips_through_yaml_with_its_meta(memory, tmp_path):
    for item in (BULLET, BANK, CASE, LESSON):
        memory.add(item, actor="test")
    assert memory.get("strategies-00001", format="playbook").meta == BULLET["meta"]
    text = export_yaml(memory)
    assert "meta:\n    section: strategies\n" in text and "origin: failure" in text
    assert text.count("meta:") == 2                      # only the items that have one
    path = tmp_path / "export.yaml"
    path.write_text(text)
    with Memory(str(tmp_path / "other.db")) as other:
        import_file(other, path, actor="test")
        assert export_yaml(other) == text
        assert other.get("Check the border first", format="bank").meta == {"origin": "failure"}


def test_a_concept_without_meta_hashes_and_exports_as_before(memory):
    """meta is left out of the content hash and the export when empty, so every existing memory
    keeps its lesson names, merge keys and export bytes (tests/data/methods_golden holds exports too)."""
    lesson = memory.add(LESSON, actor="test")
    assert lesson.meta is None and lesson.name == "lesson-" + lesson.content_hash[:8]
    body = {k: v for k, v in schema.normalize(LESSON).items() if k not in ("name", "used_in", "source", "meta")}
    old_hash = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode())
    assert lesson.content_hash == old_hash.hexdigest()
    assert "meta" not in export_yaml(memory)
    assert schema.normalize({**LESSON, "meta": {}})["meta"] is None          # an empty one is none


@pytest.mark.parametrize("meta, field, problem", [
    ("section: x", "meta", "meta: expected a mapping of a method's fields, got str"),
    ({"when": {1, 2}}, "meta.when", "meta.when: expected text, a number, true/false, a list or a mapping, got set"),
    ({"": 1}, "meta", "meta: a key must be text"),
    ({"x": [1, float("nan")]}, "meta.x[1]", "meta.x[1]: expected text"),
    ({"x": "y" * 30_000}, "meta", "meta: is too long as JSON"),
])
def test_a_malformed_meta_is_refused_naming_it_and_nothing_is_stored(memory, meta, field, problem):
    before = memory.revision()
    with pytest.raises(ConceptDataError) as info:
        memory.add({**BULLET, "meta": meta}, actor="test")
    assert info.value.field == field and str(info.value).startswith(problem), str(info.value)
    assert memory.revision() == before and memory.list() == []


def test_merging_keeps_each_method_field_first_written(memory):
    memory.add(BULLET, actor="test")
    merged = memory.merge({**BULLET, "meta": {"section": "mistakes", "seen": 2}}, actor="test").concept
    assert merged.meta == {**BULLET["meta"], "seen": 2} and list(merged.meta)[-1] == "seen"
    edited = memory.edit(merged.id, {"meta": {"section": "mistakes"}}, actor="test", reason="moved",
                         format="playbook")
    assert edited.meta == {"section": "mistakes"}
    assert [r.snapshot["meta"] for r in memory.history(merged.id, format="playbook")] == [
        BULLET["meta"], {**BULLET["meta"], "seen": 2}, {"section": "mistakes"}]


def test_an_older_memory_gains_the_columns_and_reads_as_before(tmp_path):
    path = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:             # a memory made before memory methods
        meta, ledger = migrations._ledger()
        meta.create_all(conn)
        for fn in migrations.MIGRATIONS[:3]:
            fn(conn)
            conn.execute(ledger.insert().values(name=fn.__name__))
        conn.execute(sa.text("INSERT INTO concept (format, name, parameters, cues, implementation, used_in, source, "
                             "content_hash, created_at, updated_at) VALUES ('ps', 'old', '[]', '[]', '[]', '[]', "
                             "'human', 'h', '2024-01-01 00:00:00', '2024-01-01 00:00:00')"))
        conn.execute(sa.text("INSERT INTO conceptusage (run_id, pass_index, task_id, concept_id, offered, called, "
                             "called_passing, solved, created_at) VALUES ('r', 1, 't', 1, 1, 1, 0, 0, "
                             "'2024-01-01 00:00:00')"))
    engine.dispose()
    with Memory(path) as memory:
        assert memory.migrations()[-1] == "m004_method_items"
        assert memory.get("old").meta is None
        assert memory.usage()[1] == ConceptUse(offered=1, called=1)


def test_a_methods_verdicts_sit_beside_the_runs_counts(memory):
    a = memory.add(BULLET, actor="test").id
    b = memory.add(BANK, actor="test").id
    memory.record_usage(run_id="r1", pass_index=1, task_id="t1",
                        used={a: ConceptUse(offered=1, offered_passing=1), b: ConceptUse(offered=1, offered_passing=1)})
    memory.record_usage(run_id="r1", pass_index=1, task_id="t2", used={a: ConceptUse(offered=1)})
    memory.record_judgement(run_id="r1", pass_index=1, task_id="t1", verdicts={a: "helpful", b: "harmful"})
    memory.record_judgement(run_id="r1", pass_index=1, task_id="t2", verdicts={a: "harmful"})
    memory.record_judgement(run_id="r1", pass_index=1, task_id="t2", verdicts={a: "neutral"})   # a second look
    memory.record_judgement(run_id="r1", pass_index=1, task_id="t3", verdicts={b: "helpful"})   # not counted as offered
    usage = memory.usage()
    assert usage[a] == ConceptUse(offered=2, offered_passing=1, helpful=1)
    assert usage[b] == ConceptUse(offered=1, offered_passing=1, helpful=1, harmful=1)
    assert memory.usage(run_id="r1", concept_ids=[b])[b].as_dict()["harmful"] == 1


@pytest.mark.parametrize("verdicts, problem", [({1: "great"}, "verdicts are helpful, harmful, neutral"),
                                               ({99: "helpful"}, "no concept with id 99")])
def test_a_verdict_that_is_no_verdict_is_refused_writing_nothing(memory, verdicts, problem):
    memory.add(BULLET, actor="test")
    with pytest.raises(ValueError, match=problem):
        memory.record_judgement(run_id="r1", pass_index=1, task_id="t1", verdicts={1: "helpful", **verdicts})
    assert memory.usage() == {}


def test_the_concept_page_shows_a_methods_fields_escaped(tmp_path):
    starlette_testclient = pytest.importorskip("starlette.testclient")
    from arcmemo.web.app import create_app

    with Memory(str(tmp_path / "m.db")) as memory:
        item = memory.add({**BULLET, "meta": {"section": "<b>bold</b>", "origin": "failure"}}, actor="test")
        app = create_app(memory, tmp_path / "runs", actor="user:tester", allowed_hosts=["testserver"])
        with starlette_testclient.TestClient(app) as client:
            page = client.get(f"/concepts/{item.id}").text
            listing = client.get("/concepts?format=playbook").text
    assert "<li><b>section</b>: &lt;b&gt;bold&lt;/b&gt;</li>" in page and "<li><b>origin</b>: failure</li>" in page
    assert "PLAYBOOK concept" in page and "strategies-00001" in listing
    assert DATA_FIELDS[-1] == "meta"


def test_concepts_stats_shows_a_formats_items_with_the_runs_counts_and_the_methods_verdicts(tmp_path):
    from click.testing import CliRunner

    from arcmemo.cli import cli

    db = str(tmp_path / "m.db")
    with Memory(db) as memory:
        a = memory.add(BULLET, actor="test").id
        memory.add({**BULLET, "name": "strategies-00002"}, actor="test")
        memory.record_usage(run_id="r1", pass_index=1, task_id="t1", used={a: ConceptUse(offered=1, offered_passing=1)})
        memory.record_judgement(run_id="r1", pass_index=1, task_id="t1", verdicts={a: "harmful"})
    table = CliRunner().invoke(cli, ["concepts", "stats", "--db", db, "--format", "playbook"]).output.splitlines()
    assert table[0].split()[-5:] == ["offered", "passing", "helpful", "harmful", "flag"]
    assert table[1].split()[1:] == ["strategies-00001", "-", "1", "0", "0", "0", "1", "0", "1"]
    assert len(table) == 2          # the bullet never offered is left out without --all
    rows = json.loads(CliRunner().invoke(cli, ["concepts", "stats", "--db", db, "--format", "playbook", "--all",
                                               "--sort", "harmful", "--json"]).output)
    assert [(r["name"], r["harmful"]) for r in rows] == [("strategies-00001", 1), ("strategies-00002", 0)]


def test_a_methods_edits_and_deletes_name_their_run_and_task_so_a_lost_write_is_recovered(memory):
    bullet = memory.add(BULLET, actor="ace", run_id="r1", task_id="t1")
    memory.add({**BULLET, "name": "strategies-00002"}, actor="ace", run_id="r1", task_id="t2")
    memory.edit(bullet.id, {"description": "Count colours first."}, actor="ace", reason="curator: edit",
                format="playbook", run_id="r1", task_id="t2", model="m")
    memory.delete("strategies-00002", actor="ace", reason="curator: remove", format="playbook", run_id="r1",
                  task_id="t3", model="m")
    last_two = memory.history(format=None)[-2:]
    assert [(r.op, r.run_id, r.task_id, r.model) for r in last_two] == [("edit", "r1", "t2", "m"),
                                                                        ("delete", "r1", "t3", "m")]
    t2, t3 = memory.writes_of("r1", "t2"), memory.writes_of("r1", "t3")
    assert (t2.added, t2.extended, t2.removed) == (["strategies-00002"], ["strategies-00001"], [])
    assert (t3.added, t3.extended, t3.removed) == ([], [], ["strategies-00002"])
