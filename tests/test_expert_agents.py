"""The expert-agents solver with the scripted fake model on real ARC tasks.

The fake's replies are JSON answers carrying programs written here; the sandbox runs
them for real, with the helper library importable as arc_helpers.
"""

from __future__ import annotations

import json
import re

import pytest

from arcmemo.core.parsing import ParseError
from arcmemo.core.tasks import load_tasks
from arcmemo.llm.client import LLMError
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import Hint, SolveContext, SolverSettings, load_solver
from arcmemo_expert_agents import ExpertAgentsSolver
from arcmemo_expert_agents.agents import GRID, TaskViews, obj
from arcmemo_expert_agents.answer import FIELDS, parse_answer, reasoning_text
from arcmemo_expert_agents.library import MODULE_NAME, describe_helpers, helper_source
from arcmemo_expert_agents.solver import views_budget

ROT180 = "from arc_helpers import *\n\ndef transform(grid):\n    return rotate_clockwise(grid, 180)\n"
FLIP_UD = "from arc_helpers import *\n\ndef transform(grid):\n    return vertical_flip(grid)\n"
SYNTAX = "def transform(grid)\n    return grid\n"
# d0f5fe59: one diagonal cell of colour 8 per object
DIAGONAL = ("from arc_helpers import *\n\ndef transform(grid):\n"
            "    n = len(get_objects(grid))\n"
            "    out = empty_grid(n, n)\n"
            "    for k in range(n):\n"
            "        out = fill_value(out, (k, k), 8)\n"
            "    return out\n")


def answer(program: str, pattern: str = "rotate the grid by 180 degrees", **fields) -> str:
    data = {"reflection": "the output looks like the input turned around",
            "pixel_changes": "every pixel moves to the opposite corner",
            "object_changes": "objects keep colour and shape",
            "helper_functions": "rotate_clockwise",
            "overall_pattern": pattern,
            "program_instructions": "rotate the grid and return it",
            "program": program}
    data.update(fields)
    return json.dumps(data, indent=2)


@pytest.fixture(scope="module")
def tasks():
    return load_tasks("training", ids=["6150a2bd", "d0f5fe59"])


@pytest.fixture
def ctx(fake_llm):
    def make(attempts=1, retries=3, **extra):
        extra.setdefault("batch_size", 1)
        return SolveContext(llm=fake_llm, sandbox=get_sandbox(),
                            settings=SolverSettings(attempts=attempts, retries=retries, extra=extra))
    return make


def test_entry_point_loads_this_solver():
    solver = load_solver("expert-agents")
    assert isinstance(solver, ExpertAgentsSolver) and solver.name == "expert-agents"


# -- parsing the JSON answer ---------------------------------------------------------------

def test_parse_answer_accepts_bare_fenced_and_literal_newlines():
    data = parse_answer(answer(ROT180))
    assert data["program"] == ROT180 and data["overall_pattern"].startswith("rotate")
    fenced = f"Here is my answer:\n```json\n{answer(ROT180)}\n```\nDone."
    assert parse_answer(fenced)["program"] == ROT180
    raw_newlines = '{"overall_pattern": "rotate", "program": "' + ROT180 + '"}'
    assert parse_answer(raw_newlines)["program"] == ROT180
    in_fence = answer("```python\n" + ROT180 + "```")
    assert parse_answer(in_fence)["program"] == ROT180
    assert reasoning_text(parse_answer(answer(ROT180))).split("\n")[0] == (
        "reflection: the output looks like the input turned around")
    assert FIELDS[-1] == "program" and len(FIELDS) == 7


@pytest.mark.parametrize("text, message", [
    ("I would rotate it.", "contains no JSON object"),
    ('{"overall_pattern": "rotate", "program": }', "not valid JSON"),
    ('["a list"]', "must be a JSON object"),
    ('{"overall_pattern": "rotate"}', 'no "program" string'),
    ('{"program": "x = 1"}', "does not define transform(grid)"),
    ("", "empty"),
])
def test_parse_answer_rejects(text, message):
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_answer(text)


# -- solving -------------------------------------------------------------------------------

def test_solved_on_first_try(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.queue("expert", answer(ROT180))
    result = ExpertAgentsSolver().solve(task, Hint(), ctx(attempts=3))

    assert result.error is None and result.passed_train
    (a,) = result.attempts                       # the first agent solved it: no other agent ran
    assert (a.sample, a.round, a.error, a.code) == (0, 0, None, ROT180)
    assert a.label == "grid+object[mono,none]" and set(a.modules) == {MODULE_NAME}
    assert a.train_correct == [True, True]
    assert result.predictions[0][0] == tasks.answers["6150a2bd"].test_outputs[0]
    assert result.trace.passing_attempt == 0 and result.trace.final_code == ROT180
    assert result.trace.modules == {MODULE_NAME: helper_source()}
    assert "overall_pattern: rotate the grid by 180 degrees" in result.trace.reasoning
    assert "expert agent grid+object[mono,none]" in result.trace.reasoning
    assert any("stopped after 1 of 3 agents" in n for n in result.trace.notes)
    assert result.usage.calls == 1

    (call,) = fake_model.calls_for("expert")
    assert call.role == "solver" and call.sample == 0 and call.task_id == "6150a2bd"
    system, user = call.messages[0]["content"], call.messages[1]["content"]
    assert describe_helpers() in system and '"program_instructions"' in system
    assert "from arc_helpers import *" in system
    assert "grid view:\nc c h\nc g .\ne . ." in user          # 3 3 8 / 3 7 0 / 5 0 0 as letters
    assert "object view (mono-colour):" in user and "- object view (mono-colour): touching" in user
    assert "`get_objects(grid)` returns these objects" in user
    assert "pixel view" not in user and "Concepts from memory" not in user
    json.dumps(result.to_dict())


def test_solved_after_one_feedback_round(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.queue("expert", answer(FLIP_UD, "flip upside down"), answer(ROT180))
    result = ExpertAgentsSolver().solve(task, Hint(), ctx(attempts=1, retries=3))

    first, second = result.attempts
    assert (first.round, second.round) == (0, 1) and first.label == second.label
    assert not first.passed_train and first.error == "wrong_output"
    assert second.passed_train and result.trace.passing_attempt == 1
    assert result.predictions[0][0] == tasks.answers["6150a2bd"].test_outputs[0]

    calls = fake_model.calls_for("expert")
    assert len(calls) == 2
    convo = calls[1].messages
    assert [m["role"] for m in convo] == ["system", "user", "assistant", "user"]
    assert convo[2]["content"] == answer(FLIP_UD, "flip upside down")
    feedback = convo[3]["content"]
    assert "Your program is wrong on examples 1, 2 (of 2)." in feedback
    assert "expected" in feedback and "yours" in feedback and "diff (X = wrong)" in feedback
    assert "cells are wrong" in feedback
    assert "grids here are colour numbers" in feedback
    assert "complete JSON object, all seven" in feedback
    assert "```python" not in feedback            # program-synthesis's closing was replaced
    assert [m["round"] for m in result.trace.transcript] == [0, 0, 0, 1, 1]


def test_never_solved_uses_every_agent_and_at_most_three_feedback_rounds(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.on("expert", lambda messages: answer(SYNTAX if len(messages) == 2 else FLIP_UD))
    result = ExpertAgentsSolver().solve(task, Hint(), ctx(attempts=2, retries=7))

    assert not result.passed_train and result.error is None
    assert len(result.attempts) == 8                 # 2 agents x (1 answer + 3 feedback rounds)
    assert [a.label for a in result.attempts] == ["grid+object[mono,none]"] * 4 + ["grid+pixel"] * 4
    assert [a.round for a in result.attempts] == [0, 1, 2, 3] * 2
    assert [a.error for a in result.attempts[:2]] == ["syntax", "wrong_output"]
    assert result.trace.passing_attempt is None and result.trace.final_code == FLIP_UD
    assert result.predictions == [[tuple(task.test_inputs[0][::-1])]]

    calls = fake_model.calls_for("expert")
    assert len(calls) == 8
    compile_feedback = calls[1].messages[-1]["content"]
    assert "has a syntax error" in compile_feedback and "complete JSON object" in compile_feedback
    assert "- pixel view" in calls[4].messages[1]["content"]


def test_malformed_answers_are_failed_attempts_and_format_is_asked_again(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    no_json = "It is a rotation, transform = rot90(grid, 2)."
    bad_json = '{"overall_pattern": "rotate", "program": "def transform(grid):\n  return grid",}'
    no_program = json.dumps({"overall_pattern": "rotate by 180"})
    fake_model.queue("expert", no_json, bad_json, no_program, answer(ROT180))
    result = ExpertAgentsSolver().solve(task, Hint(), ctx(retries=3))

    assert result.error is None and result.passed_train
    bad = result.attempts[:3]
    assert [a.code for a in bad] == [None, None, None]
    assert [a.raw for a in bad] == [no_json, bad_json, no_program]
    assert bad[0].error == "format: the answer contains no JSON object"
    assert bad[1].error.startswith("format: the answer is not valid JSON")
    assert bad[2].error == 'format: the JSON object has no "program" string with the Python program'
    assert all(a.train_correct == [False, False] and a.test_outputs == [None] for a in bad)
    assert result.attempts[3].passed_train and result.trace.passing_attempt == 3

    calls = fake_model.calls_for("expert")
    format_request = calls[1].messages[-1]["content"]
    assert format_request.startswith("I could not use your answer: the answer contains no JSON object.")
    assert "exactly one JSON object" in format_request


def test_llm_failure_is_recorded_not_raised(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.queue("expert", LLMError("model unavailable"), answer(ROT180))
    result = ExpertAgentsSolver().solve(task, Hint(), ctx(attempts=2))
    first, second = result.attempts
    assert first.error == "llm: model unavailable" and first.code is None
    assert second.passed_train and second.label == "grid+pixel"


def test_hint_goes_into_every_agent_prompt(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    fake_model.on("expert", lambda messages: answer(FLIP_UD))
    hint = Hint(text="- rotation: turn the grid by a multiple of 90 degrees", concept_ids=[3], mode="ps")
    ExpertAgentsSolver().solve(task, hint, ctx(attempts=3, retries=0, batch_size=3))
    calls = fake_model.calls_for("expert")
    assert len(calls) == 3 and {c.sample for c in calls} == {0, 1, 2}
    for call in calls:
        assert "Concepts from memory" in call.messages[1]["content"]
        assert "- rotation: turn the grid by a multiple of 90 degrees" in call.messages[1]["content"]


def test_helpers_from_memory_sit_beside_arc_helpers(tasks, ctx, fake_model):
    from test_program_synthesis import memory_helpers

    task = tasks.by_id("6150a2bd")
    program = ("from arc_helpers import *\nfrom memory_helpers import rotate_grid\n\n"
               "def transform(grid):\n    return rotate_grid(vertical_flip(grid), 2)[::-1]\n")
    fake_model.on("expert", lambda messages: answer(program))
    hint = Hint(text="- concept: rotate grid", concept_ids=[7], mode="ps", helpers=memory_helpers())
    result = ExpertAgentsSolver().solve(task, hint, ctx(attempts=1, retries=0))
    (attempt,) = result.attempts
    assert attempt.passed_train and attempt.helpers_called == ["rotate_grid"]
    assert set(attempt.modules) == {MODULE_NAME, "memory_helpers"}
    prompt = fake_model.calls_for("expert")[0].messages[1]["content"]
    assert "from memory_helpers import rotate_grid" in prompt and "- rotate_grid(grid, quarter_turns)" in prompt


def test_parallel_batch_stops_once_an_agent_passes(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")

    def reply(messages):                          # only the pixel agent finds the rule
        return answer(ROT180 if "- pixel view" in messages[1]["content"] else FLIP_UD)

    fake_model.on("expert", reply)
    result = ExpertAgentsSolver().solve(task, Hint(), ctx(attempts=8, retries=1, batch_size=4))
    assert result.passed_train
    assert {a.sample for a in result.attempts} == {0, 1, 2, 3}     # the second batch never ran
    assert any("stopped after 4 of 8 agents" in n for n in result.trace.notes)
    best = result.attempts[result.trace.passing_attempt]
    assert best.label == "grid+pixel" and best.code == ROT180


def test_view_too_long_is_dropped_and_recorded(tasks, ctx, fake_model):
    task = tasks.by_id("d0f5fe59")
    tv = TaskViews(task)
    grid_tokens, object_tokens = tv.tokens(GRID), tv.tokens(obj())
    room = (grid_tokens + object_tokens) // 2      # the grid view fits, the object view does not
    context_tokens = room - views_budget(0, 1500, Hint())    # overhead + room
    fake_model.queue("expert", answer(DIAGONAL, "one diagonal cell per object"))
    result = ExpertAgentsSolver().solve(task, Hint(), ctx(context_tokens=context_tokens))

    assert result.passed_train and result.error is None
    assert any(n.startswith("view object[mono,none] dropped for task d0f5fe59") for n in result.trace.notes)
    (call,) = fake_model.calls_for("expert")
    user = call.messages[1]["content"]
    assert "grid view:" in user and "object view" not in user
    assert result.attempts[0].label == "grid"


def test_nothing_fits_the_context(tasks, ctx, fake_model):
    task = tasks.by_id("6150a2bd")
    result = ExpertAgentsSolver().solve(task, Hint(), ctx(context_tokens=100))
    assert result.attempts == [] and result.predictions == [[]]
    assert result.error.startswith("no expert agent fits the context budget for task 6150a2bd")
    assert result.trace.notes and fake_model.calls == []


def test_the_context_is_the_solver_models_unless_given(tasks, ctx, fake_model):
    class SmallModel:                       # a solver model whose context (models.yaml) is 300 tokens
        def __init__(self, llm):
            self._llm = llm

        def context_window(self, role):
            return 300 if role == "solver" else None

        def __getattr__(self, name):
            return getattr(self._llm, name)

    small = ctx()
    small.llm = SmallModel(small.llm)
    result = ExpertAgentsSolver().solve(tasks.by_id("6150a2bd"), Hint(), small)
    assert result.error.startswith("no expert agent fits the context budget for task 6150a2bd (300 tokens")
    fake_model.queue("expert", answer(ROT180))
    given = ctx(context_tokens=8000)
    given.llm = SmallModel(given.llm)
    assert ExpertAgentsSolver().solve(tasks.by_id("6150a2bd"), Hint(), given).passed_train


def test_bad_settings_are_reported_not_raised(tasks, ctx, fake_model):
    result = ExpertAgentsSolver().solve(tasks.by_id("6150a2bd"), Hint(), ctx(agents=["grid+nothing"]))
    assert result.attempts == [] and "unknown agent(s) ['grid+nothing']" in result.error
    fake_model.queue("expert", answer(ROT180))
    chosen = ExpertAgentsSolver().solve(tasks.by_id("6150a2bd"), Hint(), ctx(agents="grid+difference"))
    assert chosen.passed_train and chosen.attempts[0].label == "grid+difference"
    assert "difference view (per example)" in fake_model.calls_for("expert")[0].messages[1]["content"]


def test_more_attempts_than_agents_cycles_with_fresh_samples(tasks, ctx, fake_model):
    fake_model.on("expert", lambda messages: answer(FLIP_UD))
    result = ExpertAgentsSolver().solve(tasks.by_id("6150a2bd"), Hint(),
                                        ctx(attempts=3, retries=0, agents=["grid+pixel"]))
    assert [(a.sample, a.label) for a in result.attempts] == [(k, "grid+pixel") for k in range(3)]
    assert [c.sample for c in fake_model.calls_for("expert")] == [0, 1, 2]   # no cache reuse
