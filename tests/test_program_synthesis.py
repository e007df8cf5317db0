"""The program-synthesis solver on real ARC tasks, with the scripted fake model.

The fake's replies carry programs written here; the sandbox runs them for real.
"""

from __future__ import annotations

import json

import pytest

from arcmemo.core.gridtext import format_grid, format_task
from arcmemo.core.tasks import load_tasks
from arcmemo.llm.backend import Reply
from arcmemo.llm.client import LLMError
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import Hint, MemoryHelpers, OfferedHelper, SolveContext, SolverSettings, load_solver
from arcmemo_program_synthesis import ProgramSynthesisSolver

ROT180 = "import numpy as np\n\n\ndef transform(grid):\n    return np.rot90(grid, 2)\n"
FLIP_UD = "import numpy as np\n\n\ndef transform(grid):\n    return grid[::-1, :]\n"
CRASH = "def transform(grid):\n    raise ValueError('no idea which colour wins')\n"
DOUBLE = "import numpy as np\n\n\ndef transform(grid):\n    return np.hstack([grid, grid])\n"
COLOUR_MAP = (
    "import numpy as np\n\n\n"
    "def transform(grid):\n"
    "    table = {1: 5, 5: 1, 2: 6, 6: 2, 3: 4, 4: 3, 8: 9, 9: 8}\n"
    "    return np.vectorize(lambda c: table.get(int(c), int(c)))(grid)\n"
)


def answer(code: str, text: str = "The rule: see the program.") -> str:
    return f"{text}\n\n```python\n{code}```\n"


@pytest.fixture(scope="module")
def tasks():
    return load_tasks("training", ids=["6150a2bd", "0d3d703e", "a416b8f3"])


@pytest.fixture
def ctx(fake_llm):
    def make(attempts=1, retries=2, **kw):
        return SolveContext(llm=fake_llm, sandbox=get_sandbox(),
                            settings=SolverSettings(attempts=attempts, retries=retries, **kw))
    return make


def expected(tasks, task_id):
    return tasks.answers[task_id].test_outputs


def test_entry_point_loads_this_solver():
    solver = load_solver("program-synthesis")
    assert isinstance(solver, ProgramSynthesisSolver) and solver.name == "program-synthesis"


def test_solved_on_first_try(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.queue("solve", answer(ROT180, "Rotate the grid by 180 degrees."))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx())

    assert result.error is None and result.passed_train
    assert len(result.attempts) == 1
    a = result.attempts[0]
    assert (a.sample, a.round, a.error) == (0, 0, None)
    assert a.train_correct == [True, True] and a.train_cell_accuracy == 1.0
    assert result.predictions[0][0] == expected(tasks, "6150a2bd")[0]
    assert len(result.predictions) == 1 and len(result.predictions[0]) == 1
    assert result.trace.passing_attempt == 0
    assert result.trace.final_code == ROT180
    assert "Rotate the grid by 180 degrees." in result.trace.reasoning
    assert [m["role"] for m in result.trace.transcript] == ["system", "user", "assistant"]
    assert result.usage.calls == 1 and result.usage.completion_tokens > 0

    (call,) = fake_model.calls_for("solve")
    assert call.role == "solver" and call.sample == 0 and call.task_id == "6150a2bd"
    assert format_task(task) in call.messages[1]["content"]
    assert "def transform(grid)" in call.messages[0]["content"]
    assert "Concepts from memory" not in call.prompt          # empty hint: no memory section
    json.dumps(result.to_dict())                               # serialisable for the run log


def test_solved_after_one_feedback_round(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.queue("solve", answer(FLIP_UD, "Flip it upside down."),
                     answer(ROT180, "Also mirror left-right: a 180 degree rotation."))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=2))

    assert [a.round for a in result.attempts] == [0, 1]
    first, second = result.attempts
    assert not first.passed_train and first.error == "wrong_output"
    assert 0.0 < first.train_cell_accuracy < 1.0
    assert second.passed_train and result.trace.passing_attempt == 1
    assert result.predictions[0][0] == expected(tasks, "6150a2bd")[0]
    # the wrong program's guess is kept as the second distinct prediction
    assert len(result.predictions[0]) == 2

    calls = fake_model.calls_for("solve")
    assert len(calls) == 2
    convo = calls[1].messages
    assert [m["role"] for m in convo] == ["system", "user", "assistant", "user"]
    assert set(convo[2]) == {"role", "content"}                  # clean messages to the API
    assert convo[2]["content"] == answer(FLIP_UD, "Flip it upside down.")
    feedback = convo[3]["content"]
    assert "Your program is wrong on examples 1, 2 (of 2)." in feedback
    assert "expected" in feedback and "yours" in feedback and "diff (X = wrong)" in feedback
    assert "cells are wrong" in feedback and "X" in feedback
    # the expected output rows and the program's rows both appear, side by side
    exp_rows = format_grid(task.train[0].output).split("\n")
    got_rows = format_grid(task.train[0].input[::-1]).split("\n")
    assert any(line.split()[:2] == [exp_rows[0], got_rows[0]] for line in feedback.split("\n"))
    assert "```python" in feedback                               # asks for the same format
    assert result.usage.calls == 2
    assert [m["round"] for m in result.trace.transcript] == [0, 0, 0, 1, 1]


def test_never_solved_records_every_round(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.queue("solve", answer(CRASH), answer(FLIP_UD), answer(FLIP_UD, "Still flipping."))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=2))

    assert len(result.attempts) == 3 and not result.passed_train
    assert result.attempts[0].error == "exception"
    assert result.attempts[0].test_outputs == [None]
    assert result.trace.passing_attempt is None
    # ranked by cell accuracy: the flip beats the crash; both flips give the same grid
    assert result.trace.final_code == FLIP_UD
    flipped = tuple(task.test_inputs[0][::-1])
    assert result.predictions == [[flipped]]

    calls = fake_model.calls_for("solve")
    assert len(calls) == 3                                       # 1 + r retries, no more
    crash_feedback = calls[1].messages[-1]["content"]
    assert "your program raised an exception" in crash_feedback
    assert "ValueError: no idea which colour wins" in crash_feedback
    assert "(same kind of error as above)" in crash_feedback     # example 2 not repeated


def test_malformed_answer_is_a_failed_attempt_and_format_is_asked_again(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    raw = "I think it is rotated, transform = rot90(grid, 2)."
    fake_model.queue("solve", raw, answer(ROT180))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=1))

    bad, good = result.attempts
    assert bad.code is None and bad.raw == raw
    assert bad.error.startswith("format: ") and "```python" in bad.error
    assert bad.train_correct == [False, False] and bad.test_outputs == [None]
    assert good.passed_train and result.trace.passing_attempt == 1
    ask = fake_model.calls_for("solve")[1].messages[-1]["content"]
    assert ask.startswith("I could not use your answer: the answer has no ```python")
    assert "defines `transform(grid)`" in ask


PRINTS_CUT = "\n\n# Check it on the first example\nprint(transform(np.array([[3, 3, 8], [3, 7"


def test_a_complete_transform_in_a_block_the_token_limit_left_open_is_used(tasks, ctx, fake_model):
    """The model wrote the whole function and was still writing test prints when max_tokens cut it:
    the function runs (and solves), and the attempt says it was cut."""
    task = tasks.by_id("6150a2bd")
    fake_model.queue("solve", Reply("Rotate it.\n\n```python\n" + ROT180 + PRINTS_CUT, finish_reason="length"))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=0, max_tokens=96))
    (attempt,) = result.attempts
    assert attempt.cut and attempt.error is None and attempt.passed_train
    assert attempt.code == ROT180 and result.predictions[0][0] == expected(tasks, "6150a2bd")[0]
    assert attempt.to_dict()["cut"] is True


def test_a_block_left_open_is_used_only_when_the_answer_was_cut(tasks, ctx, fake_model):
    """The same text with finish reason "stop" (the model ended there itself) is no program."""
    task = tasks.by_id("6150a2bd")
    fake_model.queue("solve", "Rotate it.\n\n```python\n" + ROT180 + PRINTS_CUT)
    (attempt,) = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=0)).attempts
    assert not attempt.cut and attempt.error.startswith("format: the answer has no ```python")


def test_an_answer_cut_before_its_program_was_complete_says_so_and_asks_for_a_shorter_answer(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    cut = Reply("Let me think step by step about the grid.\n\n```python\nimport numpy as np\n\n\n"
                "def transform(grid):\n    out = np.rot90(", completion_tokens=512, finish_reason="length")
    fake_model.queue("solve", cut, answer(ROT180))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=1))
    bad, good = result.attempts
    assert bad.cut and bad.code is None and not good.cut and good.passed_train
    assert bad.error == "cut: the answer was cut at the token limit after 512 tokens, before it gave a complete program"
    ask = fake_model.calls_for("solve")[1].messages[-1]["content"]
    assert ask.startswith("I could not use your answer: the answer was cut at the token limit after 512 tokens")
    assert "keep the reasoning short" in ask and "no ```python" not in ask


def test_only_malformed_answers_never_raise(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.queue("solve", "no code", "```\nnot a function\n```")
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=1))
    assert [a.error.split(":")[0] for a in result.attempts] == ["format", "format"]
    assert result.predictions == [[]] and result.trace.passing_attempt is None
    assert result.trace.final_code is None and result.error is None


def test_llm_error_ends_the_sample(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.queue("solve", answer(FLIP_UD), LLMError("quota exhausted"))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=2))
    assert len(result.attempts) == 2
    assert result.attempts[1].error.startswith("llm: ") and "quota exhausted" in result.attempts[1].error
    assert result.attempts[1].code is None
    assert len(fake_model.calls_for("solve")) == 2              # no further retry after the error
    assert result.usage.calls == 1                              # only the completed call counted
    assert result.predictions[0] == [tuple(task.test_inputs[0][::-1])]


def test_parallel_samples_and_top2_distinct_predictions(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    seen = []

    def reply(messages):
        seen.append(len(messages))
        return answer(FLIP_UD) if len(seen) == 1 else answer(ROT180)

    fake_model.on("solve", reply)
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(attempts=3, retries=0))
    calls = fake_model.calls_for("solve")
    assert sorted(c.sample for c in calls) == [0, 1, 2]
    assert sorted(a.sample for a in result.attempts) == [0, 1, 2]
    assert sum(a.passed_train for a in result.attempts) == 2
    first, second = result.predictions[0]
    assert first == expected(tasks, "6150a2bd")[0]
    assert second == tuple(task.test_inputs[0][::-1])
    assert result.usage.calls == 3


def test_hint_is_presented_as_memory_concepts(tasks, ctx, fake_model):
    task = tasks.by_id("0d3d703e")
    hint = Hint(text="- concept: recolor by fixed colour mapping\n  cues: [same layout]",
                concept_ids=[3], mode="ps")
    fake_model.queue("solve", answer(COLOUR_MAP))
    result = ProgramSynthesisSolver().solve(task, hint, ctx(max_tokens=900, temperature=0.2,
                                                            extra={"reasoning_effort": "low",
                                                                   "unrelated": 1}))
    assert result.passed_train and result.attempts[0].train_correct == [True] * 4
    assert result.predictions[0][0] == expected(tasks, "0d3d703e")[0]
    (call,) = fake_model.calls_for("solve")
    prompt = call.messages[1]["content"]
    assert "# Concepts from memory" in prompt and hint.text in prompt
    assert prompt.index("# Puzzle") < prompt.index("# Concepts from memory") < prompt.index("# Your task")
    assert call.params == {"max_tokens": 900, "temperature": 0.2, "reasoning_effort": "low"}


ROTATE_HELPER = (
    "import numpy as np\n\n\n"
    "def rotate_grid(grid, quarter_turns):\n"
    "    \"\"\"Rotate the grid clockwise by quarter turns.\n\n"
    "    Example: rotate_grid(np.array([[1, 2]]), 1) -> [[1], [2]]\n    \"\"\"\n"
    "    return np.rot90(grid, -quarter_turns)\n"
)


def memory_helpers():
    return MemoryHelpers(module=ROTATE_HELPER, offered=[OfferedHelper(
        "rotate_grid", "rotate_grid(grid, quarter_turns)",
        "Rotate the grid clockwise by quarter turns.\n\nExample: rotate_grid(np.array([[1, 2]]), 1) -> [[1], [2]]",
        "rotate grid")])


def test_helpers_from_memory_are_listed_importable_and_their_calls_recorded(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    hint = Hint(text="- concept: rotate grid", concept_ids=[7], mode="ps", helpers=memory_helpers())
    # first answer rewrites the helper wrongly: the memory's version runs, and the model is told
    wrong = ("from memory_helpers import rotate_grid\n\n"
             "def rotate_grid(grid, quarter_turns):\n    return grid[::-1]\n\n"
             "def transform(grid):\n    return rotate_grid(grid, 1)\n")
    right = "from memory_helpers import rotate_grid\n\n\ndef transform(grid):\n    return rotate_grid(grid, 2)\n"
    fake_model.queue("solve", answer(wrong), answer(right))
    result = ProgramSynthesisSolver().solve(task, hint, ctx(retries=1))

    first, second = result.attempts
    assert not first.passed_train and first.helpers_called == ["rotate_grid"] and first.helpers_rebound == ["rotate_grid"]
    assert second.passed_train and second.helpers_called == ["rotate_grid"] and second.helpers_rebound == []
    assert result.predictions[0][0] == expected(tasks, "6150a2bd")[0]
    assert result.to_dict()["attempts"][1]["helpers_called"] == ["rotate_grid"]
    opening, retry = fake_model.calls_for("solve")
    prompt = opening.messages[1]["content"]
    assert "# Helper functions from memory" in prompt and "from memory_helpers import rotate_grid" in prompt
    assert "- rotate_grid(grid, quarter_turns): Rotate the grid clockwise" in prompt
    assert "np.rot90" not in prompt                              # the body is not shown
    assert prompt.index("# Concepts from memory") < prompt.index("# Helper functions") < prompt.index("# Your task")
    feedback = retry.messages[-1]["content"]
    assert "your program defines its own rotate_grid" in feedback and "Import rotate_grid from memory_helpers" in feedback


def test_program_failing_only_on_a_test_input_is_retried(tasks, ctx, fake_model):
    task = tasks.by_id("a416b8f3")
    rows, cols = len(task.test_inputs[0]), len(task.test_inputs[0][0])
    assert all((len(p.input), len(p.input[0])) != (rows, cols) for p in task.train)
    fragile = DOUBLE.replace("    return", f"    if grid.shape == ({rows}, {cols}):\n"
                                          "        raise IndexError('edge case')\n    return")
    fake_model.queue("solve", answer(fragile), answer(DOUBLE))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=1))
    first, second = result.attempts
    assert first.passed_train and first.error == "test_exception" and first.test_outputs == [None]
    assert second.error is None
    assert result.trace.passing_attempt == 1        # both pass; the one with test outputs ranks first
    assert result.trace.final_code == DOUBLE
    assert result.predictions[0] == [expected(tasks, "a416b8f3")[0]]
    feedback = fake_model.calls_for("solve")[1].messages[-1]["content"]
    assert "correct on all 3 examples, but it fails on a test input" in feedback
    assert "Test input 1: your program raised an exception." in feedback
    assert "IndexError: edge case" in feedback


def test_never_sees_test_outputs(tasks, ctx, fake_model):
    task = tasks.by_id("0d3d703e")
    fake_model.queue("solve", answer(FLIP_UD), answer(FLIP_UD))
    ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=1))
    secret = format_grid(expected(tasks, "0d3d703e")[0])
    for call in fake_model.calls_for("solve"):
        assert secret not in call.prompt


def test_closed_client_gives_a_result_not_an_exception(tasks, ctx, fake_llm):
    context = ctx()
    fake_llm.close()
    result = ProgramSynthesisSolver().solve(tasks.by_id("6150a2bd"), Hint(), context)
    assert result.attempts == [] and result.predictions == [[]]
    assert "closed" in result.error and result.usage.calls == 0


def test_prompt_templates_ship_with_the_package():
    from arcmemo_program_synthesis.templates import template_hashes
    assert set(template_hashes()) == {"system", "solve", "hint", "feedback_closing", "format_feedback"}


def test_a_conversation_that_overflows_the_context_continues_from_its_latest_exchange(tasks, ctx, fake_model):
    from arcmemo.llm.client import LLMError

    task = tasks.by_id("6150a2bd")
    overflow = LLMError("HTTP 400: request (8255 tokens) exceeds the available context size (8192 tokens)")
    fake_model.queue("solve", answer(FLIP_UD, "Flip it."), answer("def transform(grid):\n    return grid\n", "Same."),
                     overflow, answer(ROT180, "Rotate."))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=2))

    assert result.passed_train and [a.round for a in result.attempts] == [0, 1, 2]
    calls = fake_model.calls_for("solve")
    assert [len(c.messages) for c in calls] == [2, 4, 6, 4]
    assert "Same." in calls[-1].messages[2]["content"]          # the latest exchange was kept
    assert any(m["role"] == "note" for m in result.trace.transcript)


def test_other_model_errors_are_not_retried(tasks, ctx, fake_model):
    from arcmemo.llm.client import LLMError

    task = tasks.by_id("6150a2bd")
    fake_model.queue("solve", answer(FLIP_UD), answer(FLIP_UD), LLMError("HTTP 401: invalid key"))
    result = ProgramSynthesisSolver().solve(task, Hint(), ctx(retries=2))
    assert len(fake_model.calls_for("solve")) == 3 and result.attempts[-1].error == "llm: HTTP 401: invalid key"
