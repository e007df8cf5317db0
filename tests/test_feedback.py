"""Execution feedback text: side-by-side diffs, shape mismatches, errors, format requests."""

from __future__ import annotations

import pytest

from arcmemo.core.tasks import Pair, Task, load_tasks
from arcmemo.sandbox import RunOutcome, get_sandbox
from arcmemo.solverkit import ProgramRun, run_program
from arcmemo.solverkit import feedback as fb


@pytest.fixture(scope="module")
def tasks():
    return load_tasks("training", ids=["6150a2bd", "a416b8f3", "0d3d703e"])


def test_side_by_side_pads_panels_to_equal_width_and_height():
    text = fb.side_by_side([("expected", ["12", "34", "56"]), ("yours", ["1"])])
    assert text.split("\n") == [
        "expected   yours",
        "12         1",
        "34",
        "56",
    ]


def test_compare_grids_marks_only_the_differing_cells():
    head, panels = fb.compare_grids(((1, 2, 3), (4, 5, 6)), [[1, 0, 3], [4, 5, 7]])
    assert head == "wrong output: 2 of 6 cells are wrong."
    assert panels.split("\n") == [
        "expected   yours   diff (X = wrong)",
        "123        103     .X.",
        "456        457     ..X",
    ]


def test_compare_grids_says_a_shape_mismatch_plainly():
    head, panels = fb.compare_grids(((1, 2), (3, 4)), [[1, 2, 1, 2]])
    assert head == "wrong output shape: the expected output is 2x2 but your program returned 1x4."
    assert "diff" not in panels
    assert panels.split("\n")[1:] == ["12         1212", "34"]


def test_traceback_tail_keeps_the_last_lines():
    message = "\n".join(f"line {i}" for i in range(30))
    tail = fb.traceback_tail(message, limit=3)
    assert tail == "...\nline 27\nline 28\nline 29"
    assert fb.traceback_tail("") == ""


def test_wrong_output_feedback_on_a_real_task(tasks):
    task = tasks.by_id("6150a2bd")
    run = run_program(get_sandbox(), task, "def transform(grid):\n    return grid[::-1]\n")
    text = fb.program_feedback(task, run)
    assert text.startswith("Your program is wrong on examples 1, 2 (of 2). "
                           "Mean cell accuracy over the examples:")
    assert "Example 1: wrong output: 6 of 9 cells are wrong." in text
    assert "Example 2: wrong output: 4 of 9 cells are wrong." in text
    # example 1 of 6150a2bd: expected first row 005, the flipped input's first row 500
    assert "005        500     X.X" in text


def test_shape_mismatch_on_a_real_task_and_diff_limit(tasks):
    task = tasks.by_id("a416b8f3")
    run = run_program(get_sandbox(), task,
                      "import numpy as np\n\ndef transform(grid):\n    return np.vstack([grid, grid])\n")
    text = fb.program_feedback(task, run)
    assert "Example 1: wrong output shape: the expected output is 3x6 but your program returned 6x3." in text
    assert "Example 2: wrong output shape: the expected output is 4x6 but your program returned 8x3." in text
    # only MAX_DIFFS_SHOWN grids are drawn; the rest get one line
    assert "Example 3: wrong output (wrong shape: expected 4x8, got 8x4)." in text


def test_partial_success_names_correct_and_failing_examples():
    task = Task("t", (Pair(((1,),), ((1,),)), Pair(((2,),), ((3,),))), (((2,),),))
    run = run_program(get_sandbox(), task, "def transform(grid):\n    return grid\n")
    text = fb.program_feedback(task, run)
    assert "Your program is wrong on example 2 (of 2). It is correct on example 1." in text


def test_exception_feedback_shows_traceback_once_per_kind(tasks):
    task = tasks.by_id("0d3d703e")
    run = run_program(get_sandbox(), task,
                      "def transform(grid):\n    raise KeyError('colour 7')\n")
    text = fb.program_feedback(task, run)
    assert "Mean cell accuracy" not in text          # nothing produced an output
    assert text.count("KeyError: 'colour 7'") == 1
    assert "Example 1: your program raised an exception.\n" in text
    assert "Example 2: your program raised an exception (same kind of error as above)." in text
    assert "in transform" in text                    # a program frame from the traceback
    assert "It also fails on test input 1 (raised an exception)." in text


def test_syntax_error_is_reported_once(tasks):
    task = tasks.by_id("0d3d703e")
    run = run_program(get_sandbox(), task, "def transform(grid):\n    return grid[0\n")
    assert run.error == "syntax" and run.test_outputs == [None]
    text = fb.program_feedback(task, run)
    assert text.startswith("Your program could not run: it has a syntax error.")
    assert "SyntaxError" in text and "Example 1" not in text


def test_test_input_failure_after_all_train_pairs_pass():
    task = Task("t", (Pair(((1,),), ((1,),)),), (((1, 2),),))
    run = ProgramRun(
        train_outcomes=[RunOutcome(True, [[1]], None, "", "")], train_correct=[True],
        train_accuracy=[1.0],
        test_outcomes=[RunOutcome(False, None, "timeout", "no result within 2 s", "")],
        test_outputs=[None])
    text = fb.program_feedback(task, run)
    assert text.startswith("Your program is correct on all 1 examples, but it fails on a test input.")
    assert "Test input 1: your program ran out of time.\nno result within 2 s" in text


def test_closing_ends_the_message():
    task = Task("t", (Pair(((1,),), ((2,),)),), (((1,),),))
    run = ProgramRun(
        train_outcomes=[RunOutcome(True, [[1]], None, "", "")], train_correct=[False],
        train_accuracy=[0.0], test_outcomes=[RunOutcome(True, [[1]], None, "", "")], test_outputs=[[[1]]])
    assert fb.program_feedback(task, run, closing="Answer again.\n").endswith("\n\nAnswer again.")
    assert "Answer again" not in fb.program_feedback(task, run)


def test_format_feedback_repeats_the_required_format():
    from arcmemo_program_synthesis.templates import render

    text = render("format_feedback", problem="the answer has no ```python ... ``` block defining a function")
    assert text.startswith("I could not use your answer: the answer has no ```python")
    assert "```python" in text and "transform(grid)" in text
