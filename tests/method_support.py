"""A block of finished tasks as a memory method's write gets it (train-only Experiences), shared by
the contract tests and the tests of each method."""

from __future__ import annotations

import pytest
from runner_support import seed_code

from arcmemo.core.tasks import load_tasks
from arcmemo.memory.store import Memory
from arcmemo.methods import AttemptView, Experience

SOLVED, FAILED = "0d3d703e", "25d8a9c8"
COPY = "def transform(grid):\n    return grid\n"


def block_tasks() -> dict:
    return {t.id: t for t in load_tasks("training", ids=[SOLVED, FAILED]).tasks}


def experiences(tasks) -> list[Experience]:
    """A block of two: one task solved on its train pairs, one whose program failed them."""
    solved = Experience(task=tasks[SOLVED], pass_index=1, program=seed_code(SOLVED), reasoning="a colour table",
                        passed_train=True,
                        attempts=(AttemptView(0, 0, 0, seed_code(SOLVED), (True,) * 4, 1.0),))
    failed = Experience(task=tasks[FAILED], pass_index=1, program=COPY, reasoning="copy it", passed_train=False,
                        attempts=(AttemptView(0, 0, 0, COPY, (False,) * 4, 0.3, error="wrong_output",
                                              feedback="Example 1: wrong output"),))
    return [solved, failed]


@pytest.fixture(name="memory")
def fresh_memory(tmp_path):
    """`memory`: an empty memory of the test's own (a fixture: import it into the test module)."""
    with Memory(str(tmp_path / "memory.db")) as m:
        yield m


def run_continual(method: str, task_ids, tmp_path, llm, *, k: int = 2):
    """A continual run of `method` over `task_ids` (blocks of k, no retries) with `llm`, in the
    real sandbox and solver: its runner (run) and memory."""
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    memory = Memory(str(tmp_path / "run-memory.db"))
    config = RunConfig(source="training", task_ids=list(task_ids), selection=method, continual=True, k=k, retries=0)
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
    return runner, memory


def round_trip_and_list(memory, fmt: str, tmp_path) -> tuple[str, str]:
    """`memory` exported as YAML, imported into an empty memory (which must export the same text),
    and `concepts list --format fmt`'s output: (the YAML, the listing)."""
    from click.testing import CliRunner

    from arcmemo.cli import cli
    from arcmemo.memory.io.imports import export_yaml, import_file

    text = export_yaml(memory)
    path = tmp_path / f"{fmt}.yaml"
    path.write_text(text)
    with Memory(str(tmp_path / "imported.db")) as other:
        import_file(other, path, actor="test")
        assert export_yaml(other) == text
    listed = CliRunner().invoke(cli, ["concepts", "list", "--format", fmt, "--db", memory.url])
    assert listed.exit_code == 0, listed.output
    return text, listed.output
