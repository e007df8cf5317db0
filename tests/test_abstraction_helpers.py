"""The PS write's helper step: the model's helpers and its rewrite of the solution are verified
in the sandbox (the run layer's check) before a helper enters memory; what fails is dropped
with the reason recorded, and the prose concepts are written either way."""

from __future__ import annotations

import pytest
from test_abstraction import CODE, CONCEPTS, EXAMPLES, PSEUDO

from arcmemo.abstraction import SolutionInput, write_ps
from arcmemo.abstraction.helpers import STEP, parse_helpers
from arcmemo.core.parsing import ParseError
from arcmemo.core.tasks import load_tasks
from arcmemo.memory.store import Memory
from arcmemo.run.helpers.verify import write_verifier
from arcmemo.sandbox import get_sandbox

HELPER = '''import numpy as np


def rotate_grid(grid, turns):
    """Turn the grid clockwise by quarter turns.

    Example: rotate_grid(np.array([[1, 2]]), 1) -> [[1], [2]]
    """
    return np.rot90(grid, -turns)
'''
REWRITE = "from memory_helpers import rotate_grid\n\n\ndef transform(grid):\n    return rotate_grid(grid, 2)\n"


def answer(helper: str = HELPER, program: str = REWRITE) -> str:
    return f"Here they are.\n### helper: rotate_grid\n```python\n{helper}```\n### program\n```python\n{program}```\n"


@pytest.fixture
def task():
    return load_tasks("training", ids=["6150a2bd"]).by_id("6150a2bd")


@pytest.fixture
def memory(tmp_path):
    with Memory(tmp_path / "m.db") as m:
        yield m


def write(memory, llm, task):
    verify = write_verifier(get_sandbox(), memory, task, "training", "run-1")
    return write_ps(memory, llm, SolutionInput(task, CODE, origin="self"), run_id="run-1", examples=EXAMPLES,
                    verify_helpers=verify)


def script(fake_model, reply):
    fake_model.queue("pseudocode", PSEUDO)
    fake_model.queue("ps_abstract", CONCEPTS)
    fake_model.queue(STEP, reply)


def test_a_verified_helper_enters_memory_with_its_concept(memory, fake_model, fake_llm, task):
    script(fake_model, answer())
    result = write(memory, fake_llm, task)
    assert not result.failed and result.helpers == ["rotate_grid"] and result.helper_problems == []
    helper = memory.get("rotate grid").helper
    assert helper.source == HELPER and helper.depends == ()
    assert helper.verified.task_id == "6150a2bd" and helper.verified.program == REWRITE.strip()
    assert helper.verified.run_id == "run-1" and helper.verified.tasks == "training"
    assert memory.get("grid symmetry test").helper is None           # not a step of this program: not asked
    [call] = fake_model.calls_for(STEP)
    assert "- rotate_grid(grid, turns): rotate grid" in call.prompt and "np.rot90(grid, 2)" in call.prompt
    assert "grid_symmetry_test(grid)" in call.prompt                 # routines without a helper are asked for
    assert memory.write_failures() == []


@pytest.mark.parametrize("reply, problem", [
    (answer(program=REWRITE.replace("rotate_grid(grid, 2)", "rotate_grid(grid, 1)")),
     "the program rewritten to call it fails: its program gives a wrong output on train pair 0 of task 6150a2bd"),
    (answer(program="import numpy as np\n\ndef transform(grid):\n    return np.rot90(grid, 2)\n"),
     "the rewritten program never calls it"),
    (answer(helper=HELPER.replace("import numpy as np", "import os\nimport numpy as np")), "imports 'os'"),
    (answer(helper=HELPER.replace("def rotate_grid(grid, turns)", "def rotate_grid(turns, grid)")),
     "must be the concept's, in order: (grid, turns)"),
    ("no sections at all", "malformed answer after one retry"),
])
def test_a_helper_that_does_not_verify_is_dropped_and_recorded(memory, fake_model, fake_llm, task, reply, problem):
    script(fake_model, reply)
    if reply == "no sections at all":
        fake_model.queue(STEP, reply)                                # the one retry gets the same
    result = write(memory, fake_llm, task)
    assert not result.failed and result.added == ["rotate grid", "grid symmetry test"]   # the prose is written
    assert result.helpers == [] and memory.get("rotate grid").helper is None
    assert len(result.helper_problems) == 1 and problem in result.helper_problems[0]
    [failure] = memory.write_failures()
    assert failure.step == STEP and problem in failure.error and failure.task_id == "6150a2bd"


def test_none_worth_a_helper_is_an_answer(memory, fake_model, fake_llm, task):
    script(fake_model, "NONE")
    result = write(memory, fake_llm, task)
    assert not result.failed and result.helpers == [] and result.helper_problems == []
    assert memory.write_failures() == [] and memory.get("rotate grid").helper is None


def test_parse_helpers_reads_the_sections():
    proposal = parse_helpers(answer(), ["rotate_grid"])
    assert proposal.helpers == {"rotate_grid": HELPER} and proposal.program == REWRITE
    with pytest.raises(ParseError, match="was not asked for"):
        parse_helpers(answer().replace("helper: rotate_grid", "helper: flip_grid"), ["rotate_grid"])
    with pytest.raises(ParseError, match="no '### program' section"):
        parse_helpers("### helper: rotate_grid\n```python\nx = 1\n```\n", ["rotate_grid"])
