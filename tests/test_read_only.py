"""Read-only commands never write the memory file (issue 28, item 9): not a schema into an empty
file, not a migration into an older one, not a journal mode; its bytes stay as they were and
no -wal/-shm file is left beside it."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from memory_support import memory_before_helpers

from arcmemo.cli import cli
from arcmemo.memory.errors import StoreError
from arcmemo.memory.store import Memory, migrations
from arcmemo.memory.store.reader import open_reader

ROOT = Path(__file__).resolve().parents[1]
READ_ONLY = [["concepts", "list"], ["concepts", "list", "--json"], ["concepts", "show", "1"],
             ["concepts", "search", "grid"], ["concepts", "graph", "1"], ["concepts", "history"],
             ["concepts", "stats", "--all"], ["concepts", "export"]]


def invoke(args: list[str], db: Path):
    return CliRunner().invoke(cli, [*args, "--db", str(db)])


def files_beside(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir())


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_an_empty_file_is_named_and_left_empty(tmp_path, args):
    db = tmp_path / "empty.db"
    db.touch()
    result = invoke(args, db)
    assert result.exit_code == 1, result.output
    assert f"{db} is an empty file (0 bytes), not a memory database yet" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert db.stat().st_size == 0 and files_beside(db) == ["empty.db"]


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_a_missing_file_is_named_and_not_created(tmp_path, args):
    db = tmp_path / "missing.db"
    result = invoke(args, db)
    assert result.exit_code == 1 and f"no memory database at {db}" in result.output
    assert files_beside(db) == []


def test_the_tracked_memory_is_read_byte_for_byte_unchanged(tmp_path):
    db = Path(shutil.copy(ROOT / "memory.db", tmp_path / "memory.db"))
    before = db.read_bytes()
    for args in [*READ_ONLY, ["concepts", "show", "extract objects", "--json"], ["concepts", "graph", "extract objects"],
                 ["concepts", "list", "--as-of", "5"], ["concepts", "history", "extract objects"]]:
        result = invoke(args, db)
        assert result.exit_code == 0, (args, result.output)
        assert db.read_bytes() == before, args
        assert files_beside(db) == ["memory.db"], args
    for url in (str(db), f"sqlite:///{db}"):                     # the lean reader, and the full store read-only
        with open_reader(url) as memory:
            assert memory.list() and memory.history() and memory.custom_types()
        assert db.read_bytes() == before and files_beside(db) == ["memory.db"]


def test_a_read_only_memory_refuses_writes_and_changes_nothing(tmp_path):
    db = tmp_path / "m.db"
    with Memory(db) as memory:
        memory.add({"name": "recolor object"}, actor="a")
    before = db.read_bytes()
    with Memory(db, read_only=True) as memory:
        with pytest.raises(StoreError, match="is open read-only; nothing was written"):
            memory.add({"name": "another"}, actor="a")
        with pytest.raises(StoreError, match="read-only"):
            memory.record_run("r", kind="solve", status="running")
        with pytest.raises(sa.exc.OperationalError, match="readonly"):   # the connection itself refuses
            with memory.engine.connect() as conn:
                conn.exec_driver_sql("DELETE FROM concept")
        assert [c.name for c in memory.list()] == ["recolor object"]
    assert db.read_bytes() == before


def test_an_older_memory_is_not_migrated_by_a_read(tmp_path):
    db = memory_before_helpers(tmp_path / "old.db")
    before = db.read_bytes()
    result = invoke(["concepts", "list"], db)
    assert result.exit_code == 1 and "an older arcmemo wrote it, and it lacks m002_concept_helper" in result.output
    assert db.read_bytes() == before
    with Memory(db) as memory:                                    # a command that writes brings it up to date
        assert memory.migrations()[-1] == migrations.MIGRATIONS[-1].__name__


def test_a_database_that_is_not_a_memory_is_named(tmp_path):
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE notes (text)")
    before = db.read_bytes()
    result = invoke(["concepts", "list"], db)
    assert result.exit_code == 1 and f"{db} is not an arcmemo memory database" in result.output
    assert db.read_bytes() == before


def test_runs_commands_read_the_memory_without_writing_it(tmp_path):
    from arcmemo.cli.runs import run_memory

    class Run:
        run_id = "r1"

        @property
        def recorded(self):
            return {"memory_url": str(empty)}

    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(StoreError, match="is an empty file"):
        run_memory(Run(), None)
    assert empty.stat().st_size == 0 and files_beside(empty) == ["empty.db"]
