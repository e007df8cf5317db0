"""The house plan, checked: which package may import which (docs/architecture.md).

Every `import` in arcmemo/ and solvers/ counts, also those inside functions: a lazy import
is still a dependency. A package may import itself, the packages listed for it, and the
root `arcmemo` (which holds only the version).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package -> the arcmemo packages it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "prompts": {"core"},
    "sandbox": set(),
    "memory": {"core"},
    "llm": {"core"},
    "scoring": {"core"},
    "pictures": {"core", "scoring"},
    "selection": {"core", "memory", "llm", "prompts", "pictures"},
    "abstraction": {"core", "memory", "llm", "prompts"},
    "solverkit": {"core", "llm", "sandbox", "prompts"},
    "methods": {"core", "memory", "llm", "prompts", "selection", "abstraction"},
    "consolidation": {"core", "memory", "llm", "prompts"},
    "run": {"core", "prompts", "sandbox", "memory", "llm", "scoring", "pictures", "selection", "abstraction",
            "solverkit", "methods", "consolidation"},
    "web": {"core", "memory", "scoring", "pictures", "run"},
    "cli": {"core", "prompts", "sandbox", "memory", "llm", "scoring", "pictures", "selection", "abstraction",
            "solverkit", "methods", "run", "web", "consolidation"},
}
# Helpers have one owner, arcmemo/memory/helpers, below the concept schema and the store (which use
# them): it imports core and memory's errors only, so the run layer, abstraction and consolidation can
# use it without the store, and `Concept` (standard library only) can hold a `Helper`.
HELPERS_MAY_IMPORT = ("arcmemo.core", "arcmemo.memory.errors", "arcmemo.memory.helpers")
# Database libraries belong to the store (arcmemo/memory) and the call log (arcmemo/llm/log).
DATABASE_LIBRARIES = {"sqlalchemy", "sqlmodel", "sqlite3", "psycopg", "psycopg2"}
DATABASE_OWNERS = ("arcmemo/memory/", "arcmemo/llm/log.py", "arcmemo/llm/logdb.py")

# Breaches the one-house-plan refactor was removing: none are left. The tests fail on any breach
# not listed here and on any listed breach that is gone, so this list only shrinks.
PENDING: set[str] = set()


def _modules(folder: str) -> list[Path]:
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file, nested ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            if node.module == "arcmemo":
                found += [(node.lineno, f"arcmemo.{alias.name}") for alias in node.names
                          if alias.name != "__version__"]
    return found


def _package(path: Path) -> str | None:
    """The arcmemo package a file belongs to ("core", "memory", ...); None for arcmemo/*.py."""
    parts = path.relative_to(ROOT / "arcmemo").parts
    return parts[0] if len(parts) > 1 else None


def _target(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "arcmemo":
        return None
    return parts[1] if len(parts) > 1 else "arcmemo"


def _layer_breaches() -> set[str]:
    """'file -> module' for every import of a package the importer may not use."""
    found = set()
    for path in _modules("arcmemo"):
        package = _package(path)
        for _, module in _imports(path):
            target = _target(module)
            if target is None or target == "arcmemo" or package is None or target == package:
                continue
            if target not in ALLOWED.get(package, set()):
                found.add(f"{path.relative_to(ROOT).as_posix()} -> {module}")
    return found


def _database_breaches() -> set[str]:
    found = set()
    for path in _modules("arcmemo") + _modules("solvers"):
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith(DATABASE_OWNERS):
            found |= {f"{rel} -> {module}" for _, module in _imports(path)
                      if module.split(".")[0] in DATABASE_LIBRARIES}
    return found


def test_every_package_is_in_the_plan():
    packages = {p.name for p in (ROOT / "arcmemo").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages - {"data"} <= set(ALLOWED), "add the new package to ALLOWED and docs/architecture.md"


def test_imports_follow_the_house_plan():
    assert sorted(_layer_breaches() - PENDING) == []


def test_database_libraries_stay_in_the_store():
    assert sorted(_database_breaches() - PENDING) == []


def test_helpers_stay_below_the_schema_and_the_store():
    found = [f"{path.relative_to(ROOT).as_posix()} -> {module}" for path in _modules("arcmemo/memory/helpers")
             for _, module in _imports(path)
             if _target(module) is not None and not module.startswith(HELPERS_MAY_IMPORT)]
    assert found == []


def test_pending_breaches_are_really_pending():
    """A breach fixed must leave PENDING, so the list only shrinks."""
    assert sorted(PENDING - _layer_breaches() - _database_breaches()) == []


def test_the_plan_has_no_cycles():
    seen, done = set(), set()

    def visit(package, stack):
        if package in done:
            return
        assert package not in seen, f"cycle: {' -> '.join(stack + [package])}"
        seen.add(package)
        for other in ALLOWED[package]:
            visit(other, stack + [package])
        done.add(package)

    for package in ALLOWED:
        visit(package, [])


def test_no_module_level_import_cycles():
    """Modules importing each other at load time (what the old plugins/solving pair did)."""
    graph: dict[str, set[str]] = {}
    for folder in ("arcmemo", "solvers"):
        for path in _modules(folder):
            rel = path.relative_to(ROOT / folder if folder == "solvers" else ROOT).with_suffix("")
            name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
            tree = ast.parse(path.read_text())
            imported = {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.module}
            imported |= {a.name for n in tree.body if isinstance(n, ast.Import) for a in n.names}
            rel_file = path.relative_to(ROOT).as_posix()
            graph[name] = {m for m in imported if f"{rel_file} -> {m}" not in PENDING}
    state: dict[str, int] = {}

    def visit(name, stack):
        if state.get(name) == 2 or name not in graph:
            return
        assert state.get(name) != 1, f"import cycle: {' -> '.join(stack + [name])}"
        state[name] = 1
        for other in graph[name]:
            # importing a module also runs its parent packages' __init__
            parts = other.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix != name and not name.startswith(prefix + "."):
                    visit(prefix, stack + [name])
        state[name] = 2

    for name in sorted(graph):
        visit(name, [])


def test_plugins_use_only_the_solver_kit():
    problems = []
    for path in _modules("solvers"):
        for line, module in _imports(path):
            if _target(module) not in (None, "solverkit"):
                problems.append(f"{path.relative_to(ROOT)}:{line}: imports {module}; plugins use arcmemo.solverkit")
    assert problems == []


@pytest.mark.parametrize("rule", ["sandbox", "selection", "abstraction"])
def test_the_rules_would_catch_a_breach(rule, tmp_path, monkeypatch):
    """The checker itself: a planted import of a forbidden package is reported."""
    forbidden = {"sandbox": "from arcmemo.core import tasks\n", "selection": "import arcmemo.abstraction.ps\n",
                 "abstraction": "from arcmemo.selection import budget\n"}[rule]
    (tmp_path / "arcmemo" / rule).mkdir(parents=True)
    (tmp_path / "arcmemo" / rule / "planted.py").write_text(forbidden)
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert len(_layer_breaches()) == 1


# -- the house's size and shape (issue 41): files a newcomer can read, packages that show the architecture

MAX_MODULE_LINES = 750
MAX_LOOP_LINES = 500
MAX_MODULES_PER_PACKAGE = 20


def test_no_module_is_over_750_lines():
    long = {p.relative_to(ROOT).as_posix(): n for p in _modules("arcmemo") + _modules("solvers")
            if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert long == {}


def test_the_solve_loop_only_loops():
    assert len((ROOT / "arcmemo" / "run" / "loop.py").read_text().splitlines()) <= MAX_LOOP_LINES


def test_a_package_of_more_than_20_modules_has_sub_packages():
    crowded = {}
    for init in (ROOT / "arcmemo").rglob("__init__.py"):
        modules = [p for p in init.parent.glob("*.py") if p.name != "__init__.py"]
        if len(modules) > MAX_MODULES_PER_PACKAGE:
            crowded[init.parent.relative_to(ROOT).as_posix()] = len(modules)
    assert crowded == {}


def _names_compared(path: Path) -> list[str]:
    """Where a file compares a memory method's name (`.selection`, `.mode`, a method's `.name`) with
    literal names: the run deciding by a method's name instead of what the method declares."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        named = any(isinstance(s, ast.Attribute) and s.attr in ("selection", "mode") for s in sides)
        literal = any(isinstance(s, ast.Constant) and isinstance(s.value, str) or
                      isinstance(s, (ast.Tuple, ast.List, ast.Set)) and s.elts and
                      all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in s.elts) for s in sides)
        if named and literal:
            found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    return found


def test_the_run_layer_never_checks_a_methods_name():
    """What a method can do (share a read, re-select, offer helpers, probe by default) it declares
    (arcmemo/methods/contract.py); the run asks, so a third-party method gets the same treatment."""
    assert [hit for p in _modules("arcmemo/run") for hit in _names_compared(p)] == []


def test_the_name_check_would_catch_one(tmp_path, monkeypatch):
    planted = tmp_path / "planted.py"
    planted.write_text("if config.selection in ('ps', 'oe'):\n    pass\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert _names_compared(planted) == ["planted.py:1"]
