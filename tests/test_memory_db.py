"""memory.db at the repository root is exactly what the annotated seeds build (no model).

Rebuild it (at the repo root) with:
    rm -f memory.db && arcmemo seed seeds/ --db memory.db --annotations-only
"""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.core.settings import Settings
from arcmemo.memory.store import Memory
from arcmemo.run.jobs.seeding import SeedOptions, run_seed
from arcmemo.run.session import RunSession

ROOT = Path(__file__).resolve().parents[1]
REBUILD = "rm -f memory.db && arcmemo seed seeds/ --db memory.db --annotations-only"


def concepts_export(db: Path) -> str:
    """The export, with the time and run of each helper's verification masked (they are when and by
    which seed run it was verified, different in every build)."""
    result = CliRunner().invoke(cli, ["concepts", "export", "--db", str(db)])
    assert result.exit_code == 0, result.output
    return re.sub(r"(?m)^(\s+)(at|run_id): \S+$", r"\1\2: ...", result.stdout)


def test_memory_db_is_built_from_the_annotated_seeds(tmp_path):
    committed = ROOT / "memory.db"
    assert committed.exists(), f"memory.db is missing; build it at the repo root with: {REBUILD}"
    copy = tmp_path / "committed.db"          # never open (and migrate) the repository's file itself
    shutil.copy(committed, copy)

    rebuilt = tmp_path / "rebuilt.db"
    session = RunSession(Settings.load(db=str(rebuilt), runs_dir=str(tmp_path / "runs")))
    summary = run_seed(SeedOptions(directory=ROOT / "seeds", annotations_only=True), session)
    session.close()
    assert summary.failed == 0 and summary.write_failures == 0, summary.problems
    assert summary.usage.calls == 0

    want, have = concepts_export(rebuilt), concepts_export(copy)
    with Memory(rebuilt) as new:
        annotated = {p.stem for p in (ROOT / "seeds").glob("*.yaml")}
        assert {s.task_id for s in new.solutions()} == annotated
        assert {c.source for c in new.list()} == {"human"}
        assert new.list("ps") and new.list("oe")
        assert len(new.helpers()) >= 20 and all(c.helper.verified.task_id in c.used_in
                                                  for c in new.helpers().values())
        assert all(f"name: {c.name}" in want for c in new.list("ps"))     # the export is the whole memory
    if have != want:
        diff = "\n".join(list(difflib.unified_diff(have.splitlines(), want.splitlines(), "memory.db",
                                                   "rebuilt from seeds/", lineterm=""))[:40])
        raise AssertionError(f"memory.db is out of date with seeds/; rebuild it with: {REBUILD}\n{diff}")
