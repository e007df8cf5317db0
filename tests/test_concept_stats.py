"""`concepts stats` for every memory method's items: the run's counts (offered_passing included) and
the method's own helpful/harmful verdicts, for every format or one (`--format`)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.memory.reads import ConceptUse
from arcmemo.memory.store import Memory


def test_concepts_stats_shows_every_formats_use_and_verdicts(tmp_path):
    db = str(tmp_path / "memory.db")
    with Memory(db) as memory:
        ps = memory.add({"format": "ps", "name": "recolour", "kind": "routine"}, actor="t")
        oe = memory.add({"format": "oe", "situation": "Colours swap.", "suggestion": "Build a table."}, actor="t")
        bank = memory.add({"format": "bank", "name": "a bank item", "description": "check sizes first"}, actor="t")
        memory.record_usage(run_id="r", pass_index=1, task_id="t1", used={
            ps.id: ConceptUse(offered=1), oe.id: ConceptUse(offered=1, offered_passing=1), bank.id: ConceptUse(offered=1)})
        memory.record_judgement(run_id="r", pass_index=1, task_id="t1", verdicts={oe.id: "helpful", bank.id: "harmful"})
    rows = json.loads(CliRunner().invoke(cli, ["concepts", "stats", "--db", db, "--json", "--sort", "id"]).output)
    assert [(r["format"], r["offered_passing"], r["helpful"], r["harmful"]) for r in rows] == [
        ("ps", 0, 0, 0), ("oe", 1, 1, 0), ("bank", 0, 0, 1)]
    table = CliRunner().invoke(cli, ["concepts", "stats", "--db", db, "--format", "bank"]).output.splitlines()
    assert table[0].split()[-4:] == ["offered", "passing", "helpful", "harmful"]
    assert len(table) == 2 and "a bank item" in table[1] and table[1].split()[-3:] == ["0", "0", "1"]
    harmful_first = CliRunner().invoke(cli, ["concepts", "stats", "--db", db, "--json", "--sort", "harmful"]).output
    assert json.loads(harmful_first)[0]["name"] == "a bank item"
