"""The concept store: merge rule, revisions and as-of reads, search, transactions, schema,
concurrent writers. Runs on SQLite, and on PostgreSQL when ARCMEMO_TEST_POSTGRES_URL is set."""

from __future__ import annotations

import json
import multiprocessing
import os
import uuid

import pytest
import sqlalchemy as sa
from sqlmodel import Session, SQLModel

from arcmemo.memory import StoreError
from arcmemo.memory.schema.merge_rule import ConceptDataError
from arcmemo.memory.store import Memory, make_engine
from arcmemo.memory.store.models import SelectionRecord

PG_ENV = "ARCMEMO_TEST_POSTGRES_URL"


def _postgres_schema_url(base: str):
    """A fresh schema on the server for one test; returns (url, drop callback) or skips."""
    engine = make_engine(base)
    schema = "t_" + uuid.uuid4().hex[:12]
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    except Exception as exc:  # server not reachable
        engine.dispose()
        pytest.skip(f"PostgreSQL at {PG_ENV} not reachable: {str(exc).splitlines()[0]}")
    sep = "&" if "?" in base else "?"

    def drop():
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        engine.dispose()

    return f"{base}{sep}options=-csearch_path%3D{schema}", drop


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def memory_url(request, tmp_path):
    if request.param == "sqlite":
        yield str(tmp_path / "memory.db")
        return
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"{PG_ENV} is not set (CI sets it via .ci/postgres.sh)")
    url, drop = _postgres_schema_url(base)
    yield url
    drop()


@pytest.fixture
def memory(memory_url):
    m = Memory(memory_url)
    yield m
    m.close()


RECOLOR = {
    "name": "recolor object", "kind": "routine", "routine_subtype": "grid manipulation",
    "output_typing": "grid", "description": "recolor an object",
    "parameters": [{"name": "object", "typing": "object", "description": None}],
    "cues": ["colors swap"], "implementation": ["set grid[mask] = color"], "used_in": ["t1"],
}


# -- add / get / merge ------------------------------------------------------------------

def test_add_get_and_list(memory):
    c = memory.add(RECOLOR, actor="alice", reason="seed")
    assert c.id and c.format == "ps" and c.source == "human" and len(c.content_hash) == 64
    assert memory.get(c.id).name == "recolor object"
    assert memory.get("recolor object").to_data() == c.to_data()
    assert memory.get("recolor object", "oe") is None and memory.get(999) is None
    assert [x.name for x in memory.list()] == ["recolor object"]
    with pytest.raises(ValueError, match="already exists"):
        memory.add(RECOLOR, actor="alice")


def test_merge_follows_the_paper_rule(memory):
    memory.add(dict(RECOLOR, description=None, output_typing=None), actor="a")
    r = memory.merge({
        "name": "recolor object", "description": "first description", "output_typing": "grid | object",
        "parameters": [{"name": "object", "typing": "object", "description": "the object"},
                       {"name": "color", "typing": "color"}],
        "cues": ["new cue", "colors swap"], "implementation": ["set grid[mask] = color", "note 2"],
        "used_in": ["t2"],
    }, actor="model:x", task_id="t3", run_id="r1", model="gpt")
    assert r.action == "extended"
    d = r.concept.to_data()
    assert d["description"] == "first description" and d["output_typing"] == "grid | object"
    assert d["parameters"] == [{"name": "object", "typing": "object", "description": "the object"},
                               {"name": "color", "typing": "color", "description": None}]
    assert d["cues"] == ["colors swap", "new cue"]
    assert d["implementation"] == ["set grid[mask] = color", "note 2"]
    assert d["used_in"] == ["t1", "t2", "t3"]
    # first non-empty wins: a later description or typing does not replace it
    r2 = memory.merge({"name": "recolor object", "description": "other", "output_typing": "grid",
                       "parameters": [{"name": "object", "typing": "grid", "description": "x"}]}, actor="b")
    assert r2.action == "unchanged" and r2.concept.description == "first description"
    assert r2.concept.parameters[0] == {"name": "object", "typing": "object", "description": "the object"}
    assert memory.merge({"name": "brand new"}, actor="b").action == "added"


def test_oe_lessons_merge_by_content(memory):
    lesson = {"format": "oe", "situation": "a grid of dividers", "suggestion": "split it"}
    a = memory.merge(lesson, actor="m", task_id="t1")
    assert a.action == "added" and a.concept.name.startswith("lesson-") and len(a.concept.name) == 15
    b = memory.merge(dict(lesson, name="other name"), actor="m", task_id="t2")
    assert b.action == "extended" and b.concept.id == a.concept.id and b.concept.used_in == ["t1", "t2"]
    c = memory.merge({"format": "oe", "situation": "a grid of dividers", "suggestion": "other"}, actor="m")
    assert c.action == "added" and c.concept.id != a.concept.id
    named = memory.add({"format": "oe", "name": "my lesson", "situation": "s", "suggestion": "g"}, actor="u")
    assert named.name == "my lesson"
    with pytest.raises(ValueError):
        memory.add({"format": "oe", "situation": "s", "suggestion": "g"}, actor="u")  # same content


def test_cheatsheet_merge_replaces_text(memory):
    memory.merge({"format": "sheet", "name": "cheatsheet", "description": "v1"}, actor="c", task_id="a")
    r = memory.merge({"format": "sheet", "name": "cheatsheet", "description": "v2"}, actor="c", task_id="b")
    assert r.concept.description == "v2" and r.concept.used_in == ["a", "b"]


def test_invalid_data_names_the_field(memory):
    cases = [({"name": "x", "kind": "type"}, "kind"), ({"name": "x", "cues": "one"}, "cues"),
             ({"name": "x", "bogus": 1}, "bogus"), ({"name": "x", "parameters": [{"typing": "int"}]}, "parameters[0].name"),
             ({"kind": "routine"}, "name"), ({"format": "oe", "situation": "s"}, "suggestion"),
             ({"name": "x", "used_in": [123]}, "used_in[0]")]
    for data, field in cases:
        with pytest.raises(ConceptDataError) as info:
            memory.add(data, actor="a")
        assert info.value.field == field, data
    assert memory.list() == [] and memory.revision() == 0


def test_returned_concepts_are_detached_copies(memory):
    c = memory.add(RECOLOR, actor="a")
    c.cues.append("mutated")
    c.name = "renamed"
    assert memory.get(c.id).cues == ["colors swap"] and memory.get(c.id).name == "recolor object"


# -- revisions ------------------------------------------------------------------------------

def test_every_write_is_a_revision_and_as_of_rebuilds_each_state(memory):
    states = {0: []}

    def snap():
        states[memory.revision()] = [c.snapshot() for c in memory.list()]

    memory.add(RECOLOR, actor="alice", reason="seed")
    snap()
    memory.merge({"name": "recolor object", "cues": ["c2"]}, actor="m", run_id="r1", task_id="t9", model="gpt")
    snap()
    memory.merge({"format": "oe", "situation": "s", "suggestion": "g"}, actor="m")
    snap()
    memory.edit("recolor object", {"name": "recolor", "description": "d2"}, actor="bob", reason="rename")
    snap()
    memory.delete("recolor", actor="bob", reason="dup")
    snap()
    memory.add(dict(RECOLOR, cues=["again"]), actor="alice")
    snap()

    assert sorted(states) == [0, 1, 2, 3, 4, 5, 6]
    for rev, expected in states.items():
        assert [c.snapshot() for c in memory.list(as_of=rev)] == expected, rev
    assert [c.name for c in memory.list("oe", as_of=6)] == [states[6][0]["name"]]

    hist = memory.history()
    assert [(h.id, h.op) for h in hist] == [(1, "add"), (2, "extend"), (3, "add"), (4, "edit"), (5, "delete"), (6, "add")]
    h2 = hist[1]
    assert (h2.actor, h2.run_id, h2.task_id, h2.model) == ("m", "r1", "t9", "gpt")
    assert h2.snapshot["cues"] == ["colors swap", "c2"] and "t9" in h2.snapshot["used_in"]
    assert hist[3].reason == "rename" and hist[4].snapshot["name"] == "recolor"
    # history by any name a concept had, or by id
    assert [h.id for h in memory.history("recolor object")] == [1, 2, 4, 5, 6]
    assert [h.id for h in memory.history(hist[0].concept_id)] == [1, 2, 4, 5]


def test_merge_many_bulk_path_matches_single_merges(memory):
    memory.add(RECOLOR, actor="a")
    memory.merge({"format": "oe", "name": "kept", "situation": "s", "suggestion": "g"}, actor="a", task_id="t0")
    items = [({"name": f"new {i}", "used_in": [f"t{i}"], "output_typing": "x := int"}, "gpt") for i in range(5)]
    items += [({"name": "new 1", "cues": ["merged within the batch"]}, None),
              ({"name": "recolor object", "cues": ["from the batch"]}, None),
              ({"format": "oe", "situation": "s", "suggestion": "g", "used_in": ["t9"]}, None),
              ({"format": "oe", "name": "kept", "situation": "s2", "suggestion": "g2"}, None)]
    counts = memory.merge_many(items, actor="imp", op="import")
    # the last lesson reuses the name "kept": it merges into it (first situation/suggestion win)
    assert (counts["added"], counts["extended"], counts["unchanged"]) == (5, 2, 1)
    assert memory.get("new 1").cues == ["merged within the batch"] and memory.get("new 1").created_by_model == "gpt"
    assert memory.get("recolor object").cues == ["colors swap", "from the batch"]
    assert memory.get("kept", "oe").used_in == ["t0", "t9"] and len(memory.list("oe")) == 1
    assert memory.custom_types() == {"x": "int"}
    # bulk-written revisions rebuild the state exactly, like single writes do
    assert [c.snapshot() for c in memory.list(as_of=memory.revision())] == [c.snapshot() for c in memory.list()]
    assert {h.op for h in memory.history()[2:]} == {"import", "add"}  # "add": the custom type
    with pytest.raises(ValueError, match="both named"):
        memory.merge_many([({"format": "oe", "name": "n", "situation": "a", "suggestion": "b"}, None),
                           ({"format": "oe", "name": "n", "situation": "c", "suggestion": "d"}, None)], actor="x")


def test_bulk_rows_are_stored_as_single_writes_store_them(tmp_path):
    """merge_many's executemany rows hold the very text a single add stores, snapshot included, and
    an edit to the same data stores that text too (writes.py: one way to write a row)."""
    import sqlite3

    data = {**RECOLOR, "description": "Recolor — café\nsecond line", "cues": ["a \"quoted\" cue", "ü"]}
    source = 'def recolor_object(object):\n    """Doc.\n\n    Example: recolor_object(1) -> 1\n    """\n    return object\n'
    helper = {"name": "recolor_object", "source": source, "depends": [],
              "verified": {"task_id": "t1", "tasks": "training", "program": "p", "at": "now", "run_id": None}}
    rows = {}
    for how in ("single", "bulk", "edited"):
        with Memory(tmp_path / f"{how}.db") as memory:
            if how == "single":
                memory.add({**data, "helper": helper}, actor="a", model="gpt", source="import")
                memory.add({"name": "plain"}, actor="a", source="import")
            elif how == "edited":
                memory.add({"name": data["name"], "description": "a first draft"}, actor="a", model="gpt",
                           source="import")
                memory.edit(data["name"], {**data, "helper": helper}, actor="a", reason="r")
                memory.add({"name": "plain"}, actor="a", source="import")
            else:
                memory.merge_many([({**data, "helper": helper}, "gpt"), ({"name": "plain"}, None)], actor="a")
        with sqlite3.connect(tmp_path / f"{how}.db") as conn:
            conn.row_factory = sqlite3.Row
            rows[how] = ([{k: (r[k], type(r[k])) for k in r.keys() if k not in ("created_at", "updated_at")}
                          for r in conn.execute("SELECT * FROM concept ORDER BY id")],
                         [(json.loads(r["snapshot"]), r["created_at"][:4]) for r in
                          conn.execute("SELECT snapshot, created_at FROM conceptrevision ORDER BY id")],
                         conn.execute("SELECT created_at FROM concept").fetchone()[0])
    single, bulk = rows["single"], rows["bulk"]
    assert single[0] == bulk[0] == rows["edited"][0] and single[0][0]["helper"][0].startswith('{"name": "recolor_object"')
    assert len(single[2]) == len(bulk[2]) == 26 and bulk[2][10] == " "        # 'YYYY-MM-DD HH:MM:SS.ffffff'
    for (one, _), (other, _) in zip(single[1], bulk[1]):
        assert {k: v for k, v in one.items() if not k.endswith("_at")} == {k: v for k, v in other.items()
                                                                           if not k.endswith("_at")}
        assert set(one) == set(other)


def test_unchanged_merge_and_noop_edit_write_nothing(memory):
    memory.add(RECOLOR, actor="a")
    memory.merge(RECOLOR, actor="a")
    memory.edit("recolor object", {"cues": ["colors swap"]}, actor="a", reason="same")
    assert memory.revision() == 1


def test_edit_and_delete_errors(memory):
    memory.add(RECOLOR, actor="a")
    memory.add({"name": "other"}, actor="a")
    with pytest.raises(ValueError, match="already exists"):
        memory.edit("other", {"name": "recolor object"}, actor="a", reason="clash")
    with pytest.raises(ValueError, match="format"):
        memory.edit("other", {"format": "oe", "situation": "s", "suggestion": "g"}, actor="a", reason="x")
    with pytest.raises(LookupError):
        memory.edit("missing", {}, actor="a", reason="x")
    with pytest.raises(LookupError):
        memory.delete(12345, actor="a", reason="x")
    assert memory.revision() == 2


def test_custom_types_inline_and_explicit_with_history(memory):
    memory.add({"name": "filter", "parameters": [
        {"name": "criteria", "typing": "selection criteria := Callable[[object], bool]"}]}, actor="a")
    assert memory.custom_types() == {"selection criteria": "Callable[[object], bool]"}
    rev = memory.revision()
    memory.add_custom_type("direction", 'Literal["up", "down"]', actor="u")
    memory.add_custom_type("selection criteria", "Callable[[object], bool] | str", actor="u")
    memory.merge({"name": "g", "output_typing": "selection criteria := something else"}, actor="a")
    assert memory.custom_types() == {"direction": 'Literal["up", "down"]',
                                     "selection criteria": "Callable[[object], bool] | str"}
    assert memory.custom_types(as_of=rev) == {"selection criteria": "Callable[[object], bool]"}
    assert [c.name for c in memory.list()] == ["filter", "g"]  # type revisions are not concepts


def test_solutions_are_stored_once(memory):
    a = memory.add_solution("t1", "def transform(g): return g", summary="id", origin="human", verified=True, actor="a")
    b = memory.add_solution("t1", "def transform(g): return g", origin="self", verified=False, actor="b")
    memory.add_solution("t2", "def transform(g): return g", origin="self", verified=True, actor="b", run_id="r")
    assert a.id == b.id and b.summary == "id"
    assert [s.task_id for s in memory.solutions()] == ["t1", "t2"] and len(memory.solutions("t2")) == 1


def test_find_by_what_people_type(memory):
    from arcmemo.memory.errors import UnknownConcept

    a = memory.add(RECOLOR, actor="a")
    lesson = memory.add({"format": "oe", "situation": "s", "suggestion": "g"}, actor="a")
    named_42 = memory.add({"name": "42"}, actor="a")
    assert memory.find("Recolor_Object").id == a.id and memory.find(" RECOLOR-object ", "ps").id == a.id
    assert memory.find(lesson.name).id == lesson.id and memory.find(str(a.id)).id == a.id
    assert memory.find("42").id == named_42.id  # no concept has id 42: the name
    with pytest.raises(UnknownConcept, match="oe .* has that name: use --format oe"):
        memory.find(lesson.name, "ps")
    with pytest.raises(UnknownConcept, match="close names: 'recolor object'"):
        memory.find("recolour object")
    memory.add({"name": "Recolor Object"}, actor="a")
    assert memory.find("Recolor Object").name == "Recolor Object"   # an exact name wins
    with pytest.raises(UnknownConcept, match="could be ps 'recolor object'.*ps 'Recolor Object'"):
        memory.find("RECOLOR OBJECT")


# -- search ------------------------------------------------------------------------------------

def test_search_is_case_insensitive_and_ranks_name_hits_first(memory):
    memory.add({"name": "fill enclosed", "description": "Flood the OBJECT interior"}, actor="a")
    memory.add({"name": "extract objects", "cues": ["100% of cells"]}, actor="a")
    memory.add({"name": "crop", "implementation": ["use the object's bounding box"]}, actor="a")
    memory.add({"format": "oe", "situation": "objects overlap", "suggestion": "layer them"}, actor="a")
    memory.add({"name": "Object", "description": "a connected component"}, actor="a")
    assert [c.name for c in memory.search("OBJECT")][:2] == ["Object", "extract objects"]
    assert {c.name for c in memory.search("object")} >= {"fill enclosed", "crop"}
    assert [c.format for c in memory.search("overlap")] == ["oe"]
    assert [c.name for c in memory.search("100%")] == ["extract objects"]
    assert memory.search("10_%") == [] and memory.search("  ") == []
    assert [c.name for c in memory.search("bounding object")] == ["crop"]  # every word must match
    assert len(memory.search("object", limit=2)) == 2
    assert [c.format for c in memory.search("object", format="oe")] == ["oe"]


# -- transactions -------------------------------------------------------------------------------

def test_transaction_is_all_or_nothing(memory):
    memory.add(RECOLOR, actor="a")
    with pytest.raises(RuntimeError):
        with memory.transaction():
            memory.merge({"name": "recolor object", "cues": ["x"]}, actor="a")
            memory.add({"name": "second"}, actor="a")
            assert memory.get("second") is not None  # visible inside
            raise RuntimeError("boom")
    assert [c.name for c in memory.list()] == ["recolor object"]
    assert memory.get("recolor object").cues == ["colors swap"] and memory.revision() == 1
    with memory.transaction():
        memory.add({"name": "second"}, actor="a")
        memory.add({"name": "third"}, actor="a")
    # (a PostgreSQL sequence does not roll back: revision numbers may skip, never repeat)
    assert [h.op for h in memory.history()] == ["add", "add", "add"] and memory.revision() >= 3


def test_run_records_and_write_failures(memory):
    memory.record_run("run-1", kind="solve", config={"k": 1}, memory_revision_start=memory.revision())
    memory.record_write_failure(run_id="run-1", task_id="t", step="ps_abstract", model="m", error="bad yaml",
                                raw="...")
    [run] = memory.runs()
    assert run.config == {"k": 1} and run.status == "running" and run.created_at.tzinfo is not None
    [failure] = memory.write_failures()
    assert failure.step == "ps_abstract" and failure.raw == "..."
    memory.record_run("run-1", kind="solve", status="done", memory_revision_end=3)
    [run] = memory.runs("solve")
    assert (run.status, run.memory_revision_end, run.config) == ("done", 3, {"k": 1}) and memory.runs("seed") == []
    with pytest.raises(TypeError, match="unknown field"):
        memory.record_run("run-1", kind="solve", colour="red")


def test_write_failures_keep_any_text_and_count_by_step(memory):
    memory.record_write_failure(run_id=None, task_id="t", step="ps_abstract", model=None,
                                error="bad \x00answer", raw="lone \ud800 surrogate" + "x" * 300_000)
    memory.record_write_failure(run_id="r", task_id="t", step="oe_lessons", model=None, error="e", raw=None)
    [first, _] = memory.write_failures()
    assert first.error == "bad answer" and "\ufffd" in first.raw and len(first.raw) <= 200_000
    assert memory.count_write_failures("t", ("ps_abstract", "pseudocode")) == 1
    assert memory.count_write_failures("t", ("ps_abstract", "oe_lessons")) == 2
    assert memory.count_write_failures("other", ("ps_abstract",)) == 0
    assert [f.step for f in memory.write_failures(run_id="r", task_id="t")] == ["oe_lessons"]


def test_writes_of_rebuilds_what_a_run_wrote_for_a_task(memory):
    assert memory.writes_of("r1", "t1") is None
    memory.add(RECOLOR, actor="a")
    memory.merge({"name": "recolor object", "cues": ["more"]}, actor="m", run_id="r1", task_id="t1")
    memory.merge({"name": "new one", "output_typing": "axis := int"}, actor="m", run_id="r1", task_id="t1")
    memory.merge({"format": "sheet", "name": "cheatsheet", "description": "v1"}, actor="c", run_id="r1",
                 task_id="t1")
    memory.merge({"name": "elsewhere"}, actor="m", run_id="r2", task_id="t1")
    write = memory.writes_of("r1", "t1")
    assert (write.added, write.extended, write.error, write.failed) == \
        (["new one"], ["cheatsheet", "recolor object"], None, False)
    memory.record_write_failure(run_id="r3", task_id="t1", step="ps_store", model=None, error="refused", raw="x")
    failed = memory.writes_of("r3", "t1")
    assert (failed.added, failed.extended, failed.error, failed.failed) == ([], [], "refused", True)


def test_seed_ledger(memory):
    assert memory.seeded() == set()
    memory.save_seed_run("seed-1", config={"lib": None}, done=[], status="running", revision_start=0)
    memory.save_seed_run("seed-1", config={"lib": None}, done=[("t1", "h1", "ps"), ("t1", "h1", "oe")],
                         status="done", revision_start=0, revision_end=4)
    memory.save_seed_run("seed-2", config={}, done=[("t2", "h2", "ps")], status="failed", revision_start=4)
    memory.record_run("solve-1", kind="solve", config={"done": [{"task_id": "x", "hash": "y", "format": "ps"}]})
    assert memory.seeded() == {("t1", "h1", "ps"), ("t1", "h1", "oe"), ("t2", "h2", "ps")}
    [first, second] = memory.runs("seed")
    assert first.config == {"lib": None, "done": [{"task_id": "t1", "hash": "h1", "format": "ps"},
                                                  {"task_id": "t1", "hash": "h1", "format": "oe"}]}
    assert (first.status, first.memory_revision_start, first.memory_revision_end) == ("done", 0, 4)
    assert (second.id, second.status, second.memory_revision_end) == ("seed-2", "failed", None)


def test_selection_records_of_older_memories_stay_readable(memory):
    with Session(memory.engine) as s:       # as an older arcmemo wrote them
        s.add(SelectionRecord(run_id="run-1", task_id="t", mode="ps", concept_ids=[1, 2], unmatched=["x"],
                              usage={"calls": 1}))
        s.commit()
    [record] = memory.selection_records("run-1")
    assert record.concept_ids == [1, 2] and record.unmatched == ["x"] and memory.selection_records("run-1", "u") == []


def test_records_written_in_a_transaction_roll_back_with_it(memory):
    with pytest.raises(RuntimeError):
        with memory.transaction():
            memory.add(RECOLOR, actor="a")
            memory.record_run("r", kind="solve", status="running")
            assert [r.id for r in memory.runs()] == ["r"]
            raise RuntimeError("boom")
    assert memory.runs() == [] and memory.list() == []


# -- schema -------------------------------------------------------------------------------------

MIGRATED = ["m001_initial", "m002_concept_helper", "m003_concept_usage", "m004_method_items"]
PINNED_SCHEMA = {
    "_migrations": ["applied_at", "name"],
    "concept": ["content_hash", "created_at", "created_by_model", "cues", "description", "format", "helper", "id",
                "implementation", "kind", "meta", "name", "output_typing", "parameters", "routine_subtype",
                "situation", "source", "suggestion", "updated_at", "used_in"],
    "conceptusage": ["called", "called_passing", "concept_id", "created_at", "harmful", "helpful", "id", "offered",
                     "offered_passing", "pass_index", "run_id", "solved", "task_id"],
    "conceptrevision": ["actor", "concept_id", "created_at", "format", "id", "model", "name", "op", "reason",
                        "run_id", "snapshot", "task_id"],
    "customtype": ["created_at", "definition", "id", "name"],
    "run": ["config", "created_at", "id", "kind", "memory_revision_end", "memory_revision_start", "status"],
    "selectionrecord": ["concept_ids", "created_at", "error", "fallback", "hint", "id", "mode", "pass_index",
                        "reasoning", "run_id", "task_id", "unmatched", "usage"],
    "solution": ["actor", "code", "content_hash", "created_at", "id", "origin", "pseudocode", "run_id",
                 "summary", "task_id", "verified"],
    "writefailure": ["created_at", "error", "id", "model", "raw", "run_id", "step", "task_id"],
}


def test_migrations_give_the_pinned_schema_matching_the_models(memory):
    inspector = sa.inspect(memory.engine)
    tables = {t: sorted(c["name"] for c in inspector.get_columns(t)) for t in inspector.get_table_names()}
    assert tables == PINNED_SCHEMA
    for table in SQLModel.metadata.sorted_tables:
        if table.name in PINNED_SCHEMA:
            assert sorted(table.columns.keys()) == tables[table.name], table.name
            migrated = {c["name"]: c["nullable"] for c in inspector.get_columns(table.name)}
            for column in table.columns:
                assert migrated[column.name] == column.nullable or column.primary_key, (table.name, column.name)
    uniques = {tuple(u["column_names"]) for u in inspector.get_unique_constraints("concept")}
    indexes = {tuple(i["column_names"]) for i in inspector.get_indexes("concept") if i.get("unique")}
    assert ("format", "name") in uniques | indexes
    assert memory.migrations() == MIGRATED
    again = Memory(memory.url)  # reopening applies nothing twice
    assert again.migrations() == MIGRATED
    again.close()


# -- opening ----------------------------------------------------------------------------------

def test_what_cannot_be_opened_is_one_store_error(tmp_path):
    not_a_db = tmp_path / "README.md"
    not_a_db.write_text("# a readme\n" * 200)
    cases = [(not_a_db, "the file is not an SQLite database"),
             (tmp_path / "no" / "dir" / "m.db", f"the directory {tmp_path / 'no' / 'dir'} does not exist"),
             (tmp_path, "it is a directory"),
             ("nosuchdialect://x", "nosuchdialect"),
             ("postgresql://user:secret@127.0.0.1:1/db", "127.0.0.1")]
    for url, problem in cases:
        with pytest.raises(StoreError) as info:
            Memory(url)
        message = str(info.value)
        assert message.startswith("cannot open memory database ") and problem in message, message
        assert len(message.splitlines()) == 1 and "secret" not in message
    assert not (tmp_path / "no").exists() and not_a_db.read_text() == "# a readme\n" * 200


def test_opening_and_reading_an_up_to_date_memory_writes_nothing(tmp_path):
    path = tmp_path / "m.db"
    with Memory(path) as memory:
        memory.add(RECOLOR, actor="a")
    before = path.read_bytes()
    with Memory(path) as memory:
        assert [c.name for c in memory.list()] == ["recolor object"] and memory.migrations() == MIGRATED
        memory.search("recolor")
        memory.history()
    assert path.read_bytes() == before


# -- concurrency ---------------------------------------------------------------------------------

def _writer(url: str, worker: int, n: int, barrier) -> None:
    memory = Memory(url)
    barrier.wait()
    for i in range(n):
        memory.merge({"name": f"shared {i % 5}", "cues": [f"cue from {worker}"]}, actor=f"w{worker}",
                     task_id=f"task-{worker}-{i}")
        memory.merge({"name": f"own {worker}-{i}"}, actor=f"w{worker}", task_id=f"task-{worker}-{i}")
    memory.close()


@pytest.mark.slow
def test_two_processes_writing_at_once_lose_nothing(memory):
    n = 40
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(memory.url, w, n, barrier)) for w in (1, 2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    concepts = {c.name: c for c in memory.list()}
    assert len(concepts) == 5 + 2 * n
    for k in range(5):
        used = concepts[f"shared {k}"].used_in
        assert sorted(used) == sorted(f"task-{w}-{i}" for w in (1, 2) for i in range(n) if i % 5 == k)
        assert sorted(concepts[f"shared {k}"].cues) == ["cue from 1", "cue from 2"]
    revs = memory.history()
    # every merge that changed something logged exactly one revision, numbered without gaps
    assert [r.id for r in revs] == list(range(1, len(revs) + 1))
    assert len(revs) == 4 * n  # 2 workers x n x (shared merge + own add); every shared merge adds a task


def _write_one(url: str, name: str) -> None:
    with Memory(url) as memory:
        memory.merge({"name": name, "cues": ["from the other process"]}, actor="other")


@pytest.mark.slow
def test_a_write_from_another_process_is_seen_by_the_next_read(memory):
    memory.add(RECOLOR, actor="a")
    before = memory.revision()
    assert [c.name for c in memory.list()] == ["recolor object"]
    ctx = multiprocessing.get_context("spawn")
    for name in ("recolor object", "new concept"):
        proc = ctx.Process(target=_write_one, args=(memory.url, name))
        proc.start()
        proc.join(120)
        assert proc.exitcode == 0
    assert memory.get("recolor object").cues == ["colors swap", "from the other process"]
    assert [c.name for c in memory.list()] == ["recolor object", "new concept"]
    # as of the revision before: the extended concept is rebuilt from its snapshot, the new one absent
    assert [c.snapshot() for c in memory.list(as_of=before)] == [memory.history()[0].snapshot]
