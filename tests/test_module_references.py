"""A module named in arcmemo's docstrings, comments and docs (`loop.py`, `run/stages/probe.py`) is a
file that exists: after a move, a reader following a stale name finds nothing. Names of the
authors' released code and of the ARC Prize harness, which the text cites, are listed apart."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = {  # files of other projects the text cites by name
    "exec.py", "exec_transform.py", "driver.py", "continual_driver.py", "score_completions.py",
    "score_tree.py", "solution_tree.py", "schemas.py", "run.py", "constants.py", "emitter.py",
    "rotate.py", "test_x.py",   # a user's own files in the docs' examples
}
NAMED = re.compile(r"(?<![\w.-])([A-Za-z_][\w/]*)\.py\b")


def texts() -> list[Path]:
    code = [p for d in ("arcmemo", "solvers") for p in (ROOT / d).rglob("*.py")]
    return code + sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def test_every_module_the_text_names_exists():
    existing = {p.name for d in ("arcmemo", "solvers", "benchmarks", "tests", "scripts", "docs", "seeds")
                for p in (ROOT / d).rglob("*.py")}
    stale = sorted({f"{path.relative_to(ROOT)}: {m.group(0)}"
                    for path in texts() for m in NAMED.finditer(path.read_text(encoding="utf-8"))
                    if m.group(1).split("/")[-1] + ".py" not in existing | OUTSIDE
                    and not m.group(1).split("/")[-1].isupper()})   # NAME.py: a placeholder
    assert not stale, "modules named but not found (renamed or moved?):\n" + "\n".join(stale)
