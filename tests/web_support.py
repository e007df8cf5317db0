"""A fixture memory and two real runs (scripted fake model, real sandbox) for the report and page tests.

Run A: ps selection, continual (k=1), one task left unsolved, so it has writes, selections
with reasoning, a concept offered to later tasks, and an attempt that differs from the truth.
Run B: the no-memory baseline on the same tasks, everything solved.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from runner_support import LEARNED, TASK_IDS, script_run

HOSTILE = "<script>alert('x')</script> & <b>bold</b>"
HELPER_SOURCE = '''import numpy as np


def rotate_grid(grid, quarter_turns):
    """Rotate clockwise by quarter turns. </code></pre><script>alert('helper')</script>

    Example: rotate_grid(np.array([[1, 2]]), 1) -> [[1], [2]]
    """
    return np.rot90(np.asarray(grid), -int(quarter_turns))
'''
VERIFYING_PROGRAM = "from memory_helpers import rotate_grid\n\n\ndef transform(grid):\n    return rotate_grid(grid, 2)\n"


def helper_concept(run_id: str | None) -> dict:
    """A PS concept with a verified helper (verified on 6150a2bd in run `run_id`), its docstring hostile."""
    return {"name": "rotate grid", "kind": "routine", "description": "Turn the grid.",
            "parameters": [{"name": "grid", "typing": "grid"}, {"name": "quarter_turns", "typing": "int"}],
            "helper": {"name": "rotate_grid", "source": HELPER_SOURCE, "depends": [],
                       "verified": {"task_id": "6150a2bd", "tasks": "training", "at": "2026-01-02T03:04:05",
                                    "program": VERIFYING_PROGRAM, "run_id": run_id}}}


@dataclass(frozen=True)
class Fixture:
    root: Path
    memory: Path
    runs: Path
    continual: str       # run A's id
    baseline: str        # run B's id
    unsolved: str        # the task run A did not solve
    tasks: tuple[str, ...]


def build_fixture(root: Path, task_ids=tuple(TASK_IDS[:3])) -> Fixture:
    from arcmemo.llm.backend import register_model, unregister_model
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.llm.fake import FakeModel
    from arcmemo.memory.store import Memory
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    memory_path, runs = root / "memory.db", root / "runs"
    ids = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARCMEMO_HOME", str(root / "home"))
        with Memory(str(memory_path)) as memory:
            # a concept whose model-written text is hostile markup: every page must escape it
            memory.add({"format": "ps", "name": "hostile concept", "kind": "routine", "description": HOSTILE,
                        "cues": [HOSTILE]}, actor="test", model="fake")
        for unsolved, settings in (({task_ids[0]}, dict(selection="ps", continual=True, k=1)),
                                   (set(), dict(selection="none"))):
            fake = FakeModel("fake")
            register_model("fake", fake)
            llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", concurrency=2,
                                  backoff_base_s=0.001, backoff_max_s=0.01, max_attempts=2, cache=False))
            try:
                script_run(fake, task_ids=list(task_ids), unsolved=unsolved)
                # the selector's reasoning is model-written too, and offers the hostile concept
                fake.on("select_ps", lambda messages: f"{HOSTILE}\n```yaml\n- hostile concept\n- {LEARNED}\n```")
                with Memory(str(memory_path)) as memory:
                    config = RunConfig(source="training", task_ids=list(task_ids), retries=0, **settings)
                    runner = new_runner(config, memory=memory, make_llm=lambda run_id, llm=llm: llm,
                                        sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                                        runs_root=str(runs))
                    runner.run()
                    ids.append(runner.rundir.run_id)
            finally:
                llm.close()
                unregister_model("fake")
    return Fixture(root, memory_path, runs, ids[0], ids[1], task_ids[0], tuple(task_ids))


def copy_fixture(fixture: Fixture, root: Path) -> Path:
    """A copy of the fixture's memory and runs at `root` (for tests that edit), the runs pointed at
    the copied memory. Returns the copied memory's path."""
    import json
    import shutil

    shutil.copytree(fixture.root, root)
    for run_dir in (root / "runs").iterdir():
        config = json.loads((run_dir / "config.json").read_text())
        config["memory_url"] = str(root / "memory.db")
        (run_dir / "config.json").write_text(json.dumps(config))
    return root / "memory.db"


@contextlib.contextmanager
def serve_process(args: list[str], env: dict[str, str], start_s: float = 90) -> Iterator[str]:
    """`arcmemo serve --port 0 ARGS` in a subprocess with `env`; yields its base URL (no trailing /)."""
    process = subprocess.Popen([sys.executable, "-m", "arcmemo", "serve", *args, "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**env, "PYTHONUNBUFFERED": "1"})
    try:
        deadline, line = time.monotonic() + start_s, ""
        while time.monotonic() < deadline and "http://" not in line:
            line = process.stdout.readline()
            if not line and process.poll() is not None:
                pytest.fail(f"arcmemo serve exited with {process.returncode}")
        url = line.split("arcmemo serve: ", 1)[1].split(" ", 1)[0].rstrip("/")
        assert url.startswith("http://127.0.0.1:")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


__all__ = ["Fixture", "build_fixture", "copy_fixture", "helper_concept", "serve_process", "HOSTILE", "LEARNED"]
