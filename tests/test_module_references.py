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


ARCMEMO_IMPORT = re.compile(r"^\s*(?:from\s+(arcmemo[\w.]*)\s+import|import\s+(arcmemo[\w.]*))", re.M)


def test_every_arcmemo_import_outside_the_package_resolves():
    """Benchmarks, scripts and tests import arcmemo's modules by name, often inside a function the
    fast suite never calls: a module moved without them would fail only in a slow run."""
    import importlib.util

    missing = sorted({f"{path.relative_to(ROOT)}: {name}"
                      for folder in ("benchmarks", "scripts", "tests") for path in (ROOT / folder).glob("*.py")
                      for m in ARCMEMO_IMPORT.finditer(path.read_text(encoding="utf-8"))
                      for name in [m.group(1) or m.group(2)] if importlib.util.find_spec(name) is None})
    assert not missing, "imports of modules that do not exist:\n" + "\n".join(missing)
