"""One base for arcmemo's user-facing errors (core/errors.py): every exception class defined in
arcmemo is an `ArcmemoError` (the CLI prints it as one line), the sandbox's own base (the
sandbox imports nothing of arcmemo), a click exception (click prints it), or one of the few
internal signals named here (caught before they reach a user; a bug keeps its traceback). A new
error class that is none of these fails here instead of becoming a traceback for the user."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_import_rules import ALLOWED

from arcmemo.cli.common import UserError, as_user_error
from arcmemo.core.errors import LEAF_BASES, ArcmemoError, is_user_error

ROOT = Path(__file__).resolve().parents[1]

# Exceptions that never reach a user: each is caught where it is raised or one step above.
INTERNAL = {
    "arcmemo.abstraction.steps.StepFailed": "a write step's model answer failed; the write records it",
    "arcmemo.core.files.ReadTimedOut": "a page's reading deadline passed; the page answers 503 (web/limits.py)",
    "arcmemo.core.parsing.ParseError": "a model's answer could not be read; the solver retries or records it",
    "arcmemo.llm.errors.TransientError": "one endpoint attempt worth retrying; the client retries",
    "arcmemo.methods.contract.ReadFailed": "a shared read step failed; each thread reads with no hint",
    "arcmemo.run.stages.pipeline.SandboxFailed": "the sandbox failed a task's programs; the run counts it",
    "arcmemo.sandbox.common.NotAGrid": "a program's result that is not a grid, inside the sandbox",
    "arcmemo.sandbox.landlock.LandlockError": "Landlock refused, inside a sandbox worker; the pool reports it",
    "arcmemo.sandbox.pool._WorkerGone": "a sandbox worker died; the pool replaces it",
    "arcmemo.memory.io.files._RepeatedKey": "a repeated key in a memory file; the reader names it",
}

LIST_CLASSES = """
import json, pkgutil, importlib, click, arcmemo
from arcmemo.core.errors import ArcmemoError, user_error_types
rows = {}
for info in pkgutil.walk_packages(arcmemo.__path__, "arcmemo."):
    if info.name.rsplit(".", 1)[-1] == "__main__":
        continue
    module = importlib.import_module(info.name)
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == info.name:
            rows[f"{info.name}.{value.__qualname__}"] = {
                "arcmemo": issubclass(value, ArcmemoError), "user": issubclass(value, user_error_types()),
                "click": issubclass(value, click.ClickException)}
print(json.dumps(rows))
"""


@pytest.fixture(scope="module")
def error_classes() -> dict[str, dict[str, bool]]:
    """Every exception class defined in arcmemo's modules (all imported, in a fresh interpreter)."""
    done = subprocess.run([sys.executable, "-c", LIST_CLASSES], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_every_error_class_is_a_user_error_or_a_named_internal_signal(error_classes):
    assert len(error_classes) > 40
    stray = sorted(name for name, kinds in error_classes.items()
                   if not (kinds["user"] or kinds["click"]) and name not in INTERNAL)
    assert stray == [], ("derive a user-facing error from arcmemo.core.errors.ArcmemoError (keeping its standard "
                         "base), or name an internal signal in INTERNAL with where it is caught")


def test_the_internal_signals_are_real_and_not_user_errors(error_classes):
    """The list holds only classes that exist and that the CLI would show as a traceback."""
    assert sorted(set(INTERNAL) - set(error_classes)) == []
    assert sorted(n for n in INTERNAL if error_classes[n]["user"]) == []


def test_only_a_package_that_may_import_nothing_of_arcmemo_has_a_base_of_its_own(error_classes):
    for module, name in LEAF_BASES:
        package = module.split(".")[1]
        assert ALLOWED[package] == set(), f"{package} may import core: derive its errors from ArcmemoError"
        assert error_classes[f"{module}.{name}"] == {"arcmemo": False, "user": True, "click": False}
    outside = sorted(n for n, kinds in error_classes.items() if kinds["user"] and not kinds["arcmemo"]
                     and ALLOWED[n.split(".")[1]] != set())
    assert outside == []


def test_the_cli_tells_a_users_mistake_from_a_bug():
    from arcmemo.core.config import ConfigError
    from arcmemo.methods.contract import ReadFailed
    from arcmemo.sandbox.pool import SandboxError, SandboxIsolationError

    for mistake in (ConfigError("settings.yaml: bad"), SandboxError("no sandbox"), SandboxIsolationError("less")):
        error = as_user_error(mistake)
        assert isinstance(error, UserError) and error.message == str(mistake)
    for bug in (ValueError("a bug"), KeyError("x"), RuntimeError("y"), ReadFailed("z")):
        assert as_user_error(bug) is None and not is_user_error(bug)
    assert isinstance(ConfigError("x"), ValueError)          # callers' `except ValueError` keep working


def test_a_new_error_class_is_a_user_error_by_deriving_from_the_base():
    class NewError(ArcmemoError, LookupError):
        pass

    assert isinstance(as_user_error(NewError("what was wrong, where")), UserError)
