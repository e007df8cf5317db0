"""Executable concepts in the store and on the command line: a PS concept's verified helper,
revisioned with it, exported and imported (verified again in the sandbox), edited (verified
again), listed, and the usage counters."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from test_store import memory_url  # noqa: F401  (the store tests' SQLite/PostgreSQL fixture)

from arcmemo.cli import cli
from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.store import Memory
from arcmemo.memory.store.usage import ConceptUse

ROTATE = '''import numpy as np


def rotate_grid(grid, quarter_turns):
    """Rotate the grid clockwise by quarter turns.

    Example: rotate_grid(np.array([[1, 2]]), 1) -> [[1], [2]]
    """
    return np.rot90(np.asarray(grid), -int(quarter_turns))
'''
HALF_TURN = '''from memory_helpers import rotate_grid


def half_turn(grid):
    """Turn the grid by 180 degrees.

    Example: half_turn(np.array([[1, 2]])) -> [[2, 1]]
    """
    return rotate_grid(grid, 2)
'''
PROGRAM = "from memory_helpers import rotate_grid\n\n\ndef transform(grid):\n    return rotate_grid(grid, 2)\n"
VERIFIED = {"task_id": "6150a2bd", "tasks": "training", "program": PROGRAM, "at": "2026-01-01T00:00:00+00:00",
            "run_id": None}


def rotate_concept(source: str = ROTATE, **helper) -> dict:
    return {"name": "rotate grid", "kind": "routine", "routine_subtype": "grid manipulation", "output_typing": "grid",
            "description": "Turn the grid by quarter turns.",
            "parameters": [{"name": "grid", "typing": "grid", "description": "the grid"},
                           {"name": "quarter_turns", "typing": "int", "description": "clockwise"}],
            "helper": {"name": "rotate_grid", "source": source, "depends": [], "verified": dict(VERIFIED), **helper}}


def half_turn_concept() -> dict:
    program = "from memory_helpers import half_turn\n\n\ndef transform(grid):\n    return half_turn(grid)\n"
    return {"name": "half turn", "kind": "routine", "parameters": [{"name": "grid", "typing": "grid"}],
            "helper": {"name": "half_turn", "source": HALF_TURN, "depends": ["rotate_grid"],
                       "verified": {**VERIFIED, "program": program}}}


@pytest.fixture
def memory(memory_url):  # noqa: F811  (SQLite, and PostgreSQL when ARCMEMO_TEST_POSTGRES_URL names one)
    with Memory(memory_url) as m:
        yield m


# -- the store ----------------------------------------------------------------------------------

def test_a_helper_is_stored_revisioned_and_rebuilt_as_of(memory):
    plain = {k: v for k, v in rotate_concept().items() if k != "helper"}
    memory.add(plain, actor="a")
    before = memory.revision()
    memory.merge(rotate_concept(), actor="b", task_id="6150a2bd")
    stored = memory.get("rotate grid")
    assert stored.helper.name == "rotate_grid" and stored.helper.verified.task_id == "6150a2bd"
    assert memory.list(as_of=before)[0].helper is None
    assert memory.list(as_of=memory.revision())[0].helper == stored.helper
    assert memory.history("rotate grid")[-1].snapshot["helper"]["source"] == ROTATE
    assert list(memory.helpers()) == ["rotate_grid"]


def test_a_second_verified_helper_is_kept_in_history_not_in_the_concept(memory):
    memory.merge(rotate_concept(), actor="a", task_id="6150a2bd")
    other = ROTATE.replace("-int(quarter_turns)", "4 - int(quarter_turns) % 4")
    result = memory.merge(rotate_concept(other), actor="b", task_id="3c9b0459")
    assert result.action == "extended"                          # the task joined used_in
    assert memory.get("rotate grid").helper.source == ROTATE
    offered = [r for r in memory.history("rotate grid") if "offered_helper" in r.snapshot]
    assert len(offered) == 1 and offered[0].snapshot["offered_helper"]["source"] == other
    assert "second verified helper" in offered[0].reason
    assert memory.list(as_of=offered[0].id)[0].helper.source == ROTATE   # as_of reads past the extra key
    # the same helper again is no news
    assert memory.merge(rotate_concept(), actor="c", task_id="3c9b0459").action == "unchanged"


@pytest.mark.parametrize("change, problem", [
    (lambda c: c["helper"].pop("verified"), "helper.verified: a helper enters memory only verified"),
    (lambda c: c["helper"].update(name="turn"),
     "helper: is named 'turn'; the helper of concept 'rotate grid' is named rotate_grid"),
    (lambda c: c["helper"].update(source="def rotate_grid(:\n"), "helper: the helper does not parse: line 1"),
    (lambda c: c["helper"].update(source=ROTATE.replace("import numpy as np", "import os\nimport numpy as np")),
     "helper: line 1: imports 'os'"),
    (lambda c: c["parameters"].reverse(), "must be the concept's, in order: (quarter_turns, grid)"),
    (lambda c: c.update(format="oe", situation="s", suggestion="t"), "only a PS concept can have a helper"),
    (lambda c: c["helper"].update(depends=["flip_grid"]), "helper.depends: lists flip_grid under depends, but calls none"),
    (lambda c: c["helper"]["verified"].pop("program"), "helper.verified.program: missing text field 'program'"),
])
def test_a_bad_helper_is_refused_naming_the_reason_and_memory_is_unchanged(memory, change, problem):
    concept = rotate_concept()
    change(concept)
    with pytest.raises(ConceptDataError) as info:
        memory.merge(concept, actor="a")
    assert problem in str(info.value)
    assert memory.list() == [] and memory.revision() == 0


def test_the_store_checks_dependencies_and_names_across_concepts(memory):
    with pytest.raises(ConceptDataError, match="calls rotate_grid, which no concept's helper in memory defines"):
        memory.merge(half_turn_concept(), actor="a")
    memory.merge(rotate_concept(), actor="a")
    memory.merge(half_turn_concept(), actor="a")
    assert memory.get("half turn").helper.depends == ("rotate_grid",)
    # the concept whose helper another calls cannot lose it, nor be deleted
    with pytest.raises(ConceptDataError, match="rotate_grid is called by the helpers of 'half turn'"):
        memory.delete("rotate grid", actor="a", reason="x")
    with pytest.raises(ConceptDataError, match="called by the helpers of 'half turn'"):
        memory.edit("rotate grid", {"helper": None}, actor="a", reason="x")
    # an edited helper that kept its old verification record was not verified again
    changed = {**memory.get("rotate grid").helper.to_data(), "source": ROTATE.replace("-int", "0 - int")}
    with pytest.raises(ConceptDataError, match="changed but was not verified again"):
        memory.edit("rotate grid", {"helper": changed}, actor="a", reason="x")
    # a file importing both at once: the batch counts as memory
    fresh = Memory(":memory:")
    counts = fresh.merge_many([(half_turn_concept(), None), (rotate_concept(), None)], actor="imp")
    assert counts["added"] == 2 and set(fresh.helpers()) == {"rotate_grid", "half_turn"}


def test_opening_an_older_memory_adds_the_helper_column_and_usage_table(tmp_path):
    from memory_support import memory_before_helpers

    path = memory_before_helpers(tmp_path / "old.db", "INSERT INTO concept (format, name, parameters, cues, "
                                 "implementation, used_in, source, content_hash, created_at, updated_at) VALUES ('ps', "
                                 "'old', '[]', '[]', '[]', '[]', 'human', 'h', '2024-01-01 00:00:00', "
                                 "'2024-01-01 00:00:00')")
    with Memory(path) as memory:
        assert memory.migrations()[1:3] == ["m002_concept_helper", "m003_concept_usage"]
        assert memory.get("old").helper is None and memory.helpers() == {} and memory.get("old").meta is None
        memory.merge(rotate_concept(), actor="a")
        assert memory.get("rotate grid").helper.name == "rotate_grid"


def test_usage_counts_each_task_once(memory):
    memory.record_usage(run_id="r1", pass_index=1, task_id="t1", used={1: ConceptUse(1, 1, 1, 0), 2: ConceptUse(1, 0, 0, 0)})
    memory.record_usage(run_id="r1", pass_index=1, task_id="t1", used={1: ConceptUse(1, 1, 1, 1)})   # solved again
    memory.record_usage(run_id="r2", pass_index=1, task_id="t1", used={1: ConceptUse(1, 1, 0, 0)})
    assert memory.usage() == {1: ConceptUse(2, 2, 1, 1)}
    assert memory.usage(run_id="r1") == {1: ConceptUse(1, 1, 1, 1)}
    assert memory.usage(concept_ids=[2]) == {}


# -- the command line ------------------------------------------------------------------------------

def run(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "m.db"
    with Memory(path) as memory:
        memory.merge(rotate_concept(), actor="a", task_id="6150a2bd")
        memory.merge(half_turn_concept(), actor="a", task_id="6150a2bd")
        memory.merge({"name": "plain concept", "kind": "structure"}, actor="a")
    return path


def test_show_list_with_code_and_stats(db):
    shown = run("concepts", "show", "rotate grid", "--db", db)
    assert shown.exit_code == 0 and "helper:\n  name: rotate_grid" in shown.output and "def rotate_grid" in shown.output
    listed = run("concepts", "list", "--with-code", "--db", db)
    assert listed.exit_code == 0 and "plain concept" not in listed.output
    assert re.search(r"# half turn \(id \d+\): half_turn, verified on task 6150a2bd \(training\) .*; calls rotate_grid",
                     listed.output)
    assert "def half_turn(grid):" in listed.output
    with Memory(db) as memory:
        ids = {c.name: c.id for c in memory.list()}
        memory.record_usage(run_id="r", pass_index=1, task_id="t",
                            used={ids["rotate grid"]: ConceptUse(1, 1, 1, 1), ids["half turn"]: ConceptUse(1, 0, 0, 0)})
    table = run("concepts", "stats", "--db", db).output.splitlines()
    assert table[0].split() == ["id", "name", "helper", "offered", "called", "called", "passing", "solved", "offered",
                                "passing", "helpful", "harmful", "flag"]
    assert "rotate grid" in table[1] and "half turn" in table[2] and len(table) == 3
    as_json = run("concepts", "stats", "--db", db, "--json", "--sort", "name", "--all")
    assert [r["name"] for r in __import__("json").loads(as_json.output)] == ["half turn", "plain concept", "rotate grid"]
    assert "offered 1, called 1" in run("concepts", "show", "rotate grid", "--db", db).output


def test_edit_verifies_a_changed_helper_again(db, tmp_path):
    good = tmp_path / "good.py"
    good.write_text(ROTATE.replace("-int(quarter_turns)", "(4 - int(quarter_turns)) % 4"))
    result = run("concepts", "edit", "rotate grid", "--helper-source", good, "--db", db)
    assert result.exit_code == 0, result.output
    with Memory(db) as memory:
        helper = memory.get("rotate grid").helper
        assert "(4 - int(quarter_turns)) % 4" in helper.source and helper.verified.at != VERIFIED["at"]
        revision = memory.revision()
    bad = tmp_path / "bad.py"
    bad.write_text(ROTATE.replace("-int(quarter_turns)", "int(quarter_turns) + 1"))
    result = run("concepts", "edit", "rotate grid", "--helper-source", bad, "--db", db)
    assert result.exit_code == 1
    assert ("concept 'rotate grid': the edited helper does not verify: its program gives a wrong output on train "
            "pair 0 of task 6150a2bd") in result.output and "nothing changed" in result.output
    wrong_name = tmp_path / "wrong.py"
    wrong_name.write_text(ROTATE.replace("def rotate_grid", "def turn_grid"))
    result = run("concepts", "edit", "rotate grid", "--helper-source", wrong_name, "--db", db)
    assert result.exit_code == 1
    assert ("concept 'rotate grid': helper: defines turn_grid(...), but this concept's helper must be named "
            "rotate_grid; nothing changed") in result.output
    with Memory(db) as memory:
        assert memory.revision() == revision


def test_import_verifies_helpers_and_rejects_the_whole_file(db, tmp_path):
    export = tmp_path / "memory.yaml"
    assert run("concepts", "export", export, "--db", db).exit_code == 0
    copy = tmp_path / "copy.db"
    result = run("concepts", "import", export, "--db", copy)
    assert result.exit_code == 0, result.output
    with Memory(copy) as memory:
        assert set(memory.helpers()) == {"rotate_grid", "half_turn"}
    text = export.read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace("return rotate_grid(grid, 2)", "return rotate_grid(grid, 1)"))
    target = tmp_path / "target.db"
    result = run("concepts", "import", broken, "--db", target)
    assert result.exit_code == 1
    line = text[:text.index("  helper:\n    name: half_turn")].count("\n") + 1
    assert re.search(rf"broken.yaml:{line}: concepts\[\d\]\.helper: concept 'half turn': its helper does not verify: "
                     r"its program gives a wrong output on train pair 0 of task 6150a2bd", result.output), result.output
    with Memory(target) as memory:
        assert memory.list() == [] and memory.revision() == 0
    # a file with helpers cannot be imported without verification through the library either
    from arcmemo.memory.io.imports import MemoryImportError, import_file

    with Memory(tmp_path / "lib.db") as memory, pytest.raises(MemoryImportError, match="can only be imported verified"):
        import_file(memory, export, actor="lib")
