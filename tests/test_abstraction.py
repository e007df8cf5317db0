"""The memory write pipelines end to end with the scripted fake model: PS (pseudocode ->
concepts) and OE (derivation -> lessons), the retry-once path and recorded failures."""

from __future__ import annotations

import pytest

from arcmemo.abstraction import SolutionInput, WriteResult, write_oe, write_ps
from arcmemo.abstraction.fewshot import Example
from arcmemo.core.tasks import Pair, Task
from arcmemo.llm.backend import LLMError
from arcmemo.memory.store import Memory

CODE = "import numpy as np\n\ndef transform(grid):\n    return np.rot90(grid, 2)\n"

PSEUDO = """Let me read it.
<pseudocode>
output = rotate_grid(grid, turns=2)
</pseudocode>
<summary>Turn the whole grid half a turn.</summary>"""

CONCEPTS = """Thinking about reuse first.
```yaml
- name: rotate grid
  kind: routine
  routine_subtype: grid manipulation
  output_typing: grid
  description: Turn the grid by a multiple of a quarter turn.
  parameters:
    - {name: grid, typing: grid, description: the grid to turn}
    - {name: turns, typing: int, description: number of quarter turns}
  cues:
    - output has the input's content in a rotated arrangement
  implementation:
    - np.rot90(grid, k=turns)
- name: grid symmetry test
  kind: routine
  routine_subtype: criterion
  output_typing: "symmetry check := Callable[[grid], bool]"
  parameters:
    - {name: grid, typing: grid}
```"""

DERIVATION = """<derivation>
1. Observation: input and output have the same size.
2. Thought: the output might be a rigid motion of the input.
3. Observation: the top-left cell of each input is the bottom-right of its output.
4. Thought: a half turn explains every example.
</derivation>"""

LESSONS = """```yaml
- situation: Output has the same size as the input and the same cells, in a new arrangement.
  suggestion: Try each rigid motion (quarter turns, flips, transpose) and keep the one matching all pairs.
```"""

EXAMPLES = [Example(task_id="00000001", code="def transform(g):\n    return g\n",
                    summary="Copy the input.", pseudocode="output = grid",
                    concepts_yaml="- name: identity copy\n  kind: routine",
                    lessons_yaml="- situation: same grids\n  suggestion: copy")]


@pytest.fixture
def task():
    grid = ((1, 2), (3, 4))
    return Task("3c9b0459", (Pair(grid, ((4, 3), (2, 1))),), (grid,))


@pytest.fixture
def memory(tmp_path):
    mem = Memory(tmp_path / "m.db")
    yield mem
    mem.close()


def failures(memory):
    return memory.write_failures()


def test_ps_write_stores_concepts_with_revisions(memory, fake_model, fake_llm, task):
    fake_model.queue("pseudocode", PSEUDO)
    fake_model.queue("ps_abstract", CONCEPTS)
    result = write_ps(memory, fake_llm, SolutionInput(task, CODE, origin="self"), run_id="run-1",
                      examples=EXAMPLES)
    assert isinstance(result, WriteResult) and not result.failed, result.error
    assert result.added == ["rotate grid", "grid symmetry test"]
    assert result.usage.calls == 2 and result.usage.prompt_tokens > 0

    concept = memory.get("rotate grid")
    assert concept.kind == "routine" and concept.used_in == ["3c9b0459"]
    assert concept.source == "self" and concept.created_by_model == "fake"
    assert [p["name"] for p in concept.parameters] == ["grid", "turns"]
    revisions = memory.history("rotate grid")
    assert [(r.op, r.actor, r.run_id, r.task_id, r.model) for r in revisions] == [
        ("add", "fake", "run-1", "3c9b0459", "fake")]
    # `name := definition` typing -> a custom type, and the typing keeps just the name
    assert memory.custom_types() == {"symmetry check": "Callable[[grid], bool]"}
    assert memory.get("grid symmetry test").output_typing == "symmetry check"
    [solution] = memory.solutions("3c9b0459")
    assert solution.pseudocode == "output = rotate_grid(grid, turns=2)"
    assert solution.summary == "Turn the whole grid half a turn." and solution.verified

    # prompts: the solution in step 1, the pseudocode + summary + examples in step 2
    [p1] = fake_model.calls_for("pseudocode")
    assert "np.rot90(grid, 2)" in p1.prompt and "Copy the input." in p1.prompt and p1.role == "aux"
    [p2] = fake_model.calls_for("ps_abstract")
    assert "rotate_grid(grid, turns=2)" in p2.prompt and "Turn the whole grid half a turn." in p2.prompt
    assert "identity copy" in p2.prompt and "no concepts recorded yet" in p2.prompt


def test_ps_prompt_shows_compressed_memory_and_reuse_extends(memory, fake_model, fake_llm, task):
    memory.add({"name": "rotate grid", "kind": "routine", "routine_subtype": "grid manipulation",
                "output_typing": "grid", "parameters": [{"name": "grid", "typing": "grid"}],
                "cues": ["old cue"], "implementation": ["very long implementation note NOT_IN_COMPRESSED"]},
               actor="human", task_id="aaaaaaaa")
    fake_model.queue("ps_abstract", "```yaml\n- name: Rotate  Grid\n  cues: [rotated copy of the input]\n"
                                    "- concept: rotate grid\n```",
                     "```yaml\n- name: Rotate  Grid\n  cues: [rotated copy of the input]\n```")
    solution = SolutionInput(task, CODE, origin="human", pseudocode="output = rotate_grid(grid, 2)",
                             summary="Half turn.")
    result = write_ps(memory, fake_llm, solution, run_id="r2", examples=[])
    assert not result.failed, result.error
    assert result.extended == ["rotate grid"] and result.added == []
    concept = memory.get("rotate grid")
    assert concept.cues == ["old cue", "rotated copy of the input"]
    assert concept.used_in == ["aaaaaaaa", "3c9b0459"]
    assert fake_model.calls_for("pseudocode") == []          # given pseudocode skips step 1
    first, second = fake_model.calls_for("ps_abstract")
    assert "- rotate grid(grid: grid) -> grid" in first.prompt      # compressed one-liner
    assert "NOT_IN_COMPRESSED" not in first.prompt
    assert "appears twice" in second.messages[-1]["content"]         # duplicate name sent back
    assert memory.history("rotate grid")[-1].actor == "fake"


def test_malformed_twice_is_recorded_and_store_unchanged(memory, fake_model, fake_llm, task):
    fake_model.queue("pseudocode", PSEUDO)
    fake_model.queue("ps_abstract", "Here are the concepts: rotate grid, but no block.",
                     "```yaml\n- name: brand new idea\n  cues: [x]\n```")
    before = memory.revision()
    result = write_ps(memory, fake_llm, SolutionInput(task, CODE), run_id="run-x", examples=[])
    assert result.failed and result.step == "ps_abstract"
    assert "brand new idea" in result.error and "kind" in result.error
    assert memory.revision() == before and memory.list() == [] and memory.solutions() == []

    first, second = fake_model.calls_for("ps_abstract")
    assert second.messages[1] == {"role": "assistant", "content": "Here are the concepts: rotate grid, but no block."}
    assert "no fenced ```yaml" in second.messages[2]["content"]
    [failure] = failures(memory)
    assert (failure.run_id, failure.task_id, failure.step, failure.model) == ("run-x", "3c9b0459", "ps_abstract", "fake")
    assert "but no block" in failure.raw and "brand new idea" in failure.raw


def test_retry_with_the_error_then_success(memory, fake_model, fake_llm, task):
    fake_model.queue("pseudocode", "<pseudocode>x = 1</pseudocode>", PSEUDO)   # summary missing first
    fake_model.queue("ps_abstract", "```yaml\n- name: a\n  kind: routine\n  cues: [\"if x: y\", {bad: 1}]\n```",
                     CONCEPTS)
    result = write_ps(memory, fake_llm, SolutionInput(task, CODE), examples=[])
    assert not result.failed, result.error
    assert "<summary>" in fake_model.calls_for("pseudocode")[1].messages[-1]["content"]
    assert "cues[1]" in fake_model.calls_for("ps_abstract")[1].messages[-1]["content"]
    assert memory.get("a") is None and memory.get("rotate grid") is not None
    assert failures(memory) == []


@pytest.mark.parametrize("answer, message", [
    ("```yaml\nname: rotate grid\nkind: routine\n```", "expected a YAML list"),
    ("```yaml\n- name: r\n  kind: routine\n  cues: a single string\n```", "cues: expected a YAML list"),
    ("```yaml\n- name: r\n  kind: routine\n  parameters: [{name: g}]\n```", "missing text field 'typing'"),
    ("```yaml\n- name: r\n  kind: method\n```", "must be one of structure, routine"),
    ("```yaml\n- name: r\n  kind: routine\n  colour: red\n```", "unknown field(s) colour"),
    ("```yaml\n- name: [r\n```", "not valid YAML"),
])
def test_each_kind_of_malformed_concept_list_fails(memory, fake_model, fake_llm, task, answer, message):
    fake_model.queue("ps_abstract", answer, answer)
    solution = SolutionInput(task, CODE, pseudocode="p", summary="s")
    result = write_ps(memory, fake_llm, solution, examples=[])
    assert result.failed and message in result.error
    assert memory.list() == [] and len(failures(memory)) == 1


def test_llm_error_is_a_recorded_failure(memory, fake_model, fake_llm, task):
    fake_model.queue("pseudocode", LLMError("endpoint down"))
    result = write_ps(memory, fake_llm, SolutionInput(task, CODE), run_id="r", examples=[])
    assert result.failed and "endpoint down" in result.error
    [failure] = failures(memory)
    assert failure.step == "pseudocode" and failure.raw is None
    assert memory.revision() == 0


def test_oe_write_derivation_then_lessons(memory, fake_model, fake_llm, task):
    fake_model.queue("oe_derive", DERIVATION)
    fake_model.queue("oe_lessons", LESSONS)
    solution = SolutionInput(task, CODE, origin="self", summary="Half turn.", reasoning="tried flips first")
    result = write_oe(memory, fake_llm, solution, run_id="run-oe", examples=EXAMPLES)
    assert not result.failed, result.error
    [lesson] = memory.list("oe")
    assert lesson.situation.startswith("Output has the same size")
    assert lesson.used_in == ["3c9b0459"] and lesson.source == "self"
    assert result.added == [lesson.name]
    [rev] = memory.history(lesson.id)
    assert (rev.actor, rev.run_id, rev.task_id, rev.model) == ("fake", "run-oe", "3c9b0459", "fake")

    [derive] = fake_model.calls_for("oe_derive")
    assert "Example 1 input (2x2):\n12\n34" in derive.prompt          # the puzzle, as grid text
    assert "np.rot90" in derive.prompt and "tried flips first" in derive.prompt
    [lessons] = fake_model.calls_for("oe_lessons")
    assert "4. Thought: a half turn explains every example." in lessons.prompt
    assert "Rule: Half turn." in lessons.prompt and "colours" in lessons.prompt
    assert "same grids" in lessons.prompt                           # few-shot lessons

    # the same lesson again merges by content: nothing new
    fake_model.queue("oe_derive", DERIVATION + " ")
    fake_model.queue("oe_lessons", LESSONS)
    again = write_oe(memory, fake_llm, solution, run_id="run-oe2", examples=EXAMPLES)
    assert again.added == [] and len(memory.list("oe")) == 1


def test_oe_malformed_lessons_fail_cleanly(memory, fake_model, fake_llm, task):
    fake_model.queue("oe_derive", DERIVATION)
    bad = "```yaml\n- situation: only half a lesson\n```"
    fake_model.queue("oe_lessons", bad, bad)
    result = write_oe(memory, fake_llm, SolutionInput(task, CODE), examples=[])
    assert result.failed and "suggestion" in result.error and result.step == "oe_lessons"
    assert memory.list() == [] and memory.solutions() == []
    [failure] = failures(memory)
    assert "only half a lesson" in failure.raw


def test_oe_missing_derivation_tag_fails(memory, fake_model, fake_llm, task):
    fake_model.queue("oe_derive", "Observation: nothing tagged", "still nothing")
    result = write_oe(memory, fake_llm, SolutionInput(task, CODE), examples=[])
    assert result.failed and result.step == "oe_derive" and "<derivation>" in result.error
    assert fake_model.calls_for("oe_lessons") == []


def test_default_examples_come_from_the_annotated_seeds(memory, fake_model, fake_llm, task):
    fake_model.queue("pseudocode", PSEUDO)
    fake_model.queue("ps_abstract", CONCEPTS)
    write_ps(memory, fake_llm, SolutionInput(task, CODE))
    [p1] = fake_model.calls_for("pseudocode")
    [p2] = fake_model.calls_for("ps_abstract")
    assert p1.prompt.count("<pseudocode>") >= 3      # the instruction + at least two worked examples
    assert p2.prompt.count("```yaml") >= 2


def test_solution_input_checks():
    task = Task("3c9b0459", (), ())
    with pytest.raises(ValueError, match="origin"):
        SolutionInput(task, CODE, origin="robot")
    with pytest.raises(ValueError, match="code is empty"):
        SolutionInput(task, "  ")


def test_store_refusal_mid_write_rolls_back_everything(memory, fake_model, fake_llm, task, monkeypatch):
    fake_model.queue("pseudocode", PSEUDO)
    fake_model.queue("ps_abstract", CONCEPTS)
    real_merge = memory.merge
    calls = []

    def failing_merge(data, **kw):
        calls.append(data["name"])
        if len(calls) == 2:
            raise ValueError("disk says no")
        return real_merge(data, **kw)

    monkeypatch.setattr(memory, "merge", failing_merge)
    result = write_ps(memory, fake_llm, SolutionInput(task, CODE), run_id="r", examples=[])
    assert result.failed and result.step == "ps_store" and "disk says no" in result.error
    assert calls == ["rotate grid", "grid symmetry test"]
    assert memory.list() == [] and memory.custom_types() == {} and memory.solutions() == []
    assert memory.revision() == 0
    [failure] = failures(memory)
    assert failure.step == "ps_store" and "rotate grid" in failure.raw


def test_a_recorded_failure_makes_the_next_attempt_a_fresh_sample(memory, fake_model, fake_llm, task):
    fake_model.queue("pseudocode", LLMError("down"))
    assert write_ps(memory, fake_llm, SolutionInput(task, CODE), examples=[]).failed
    fake_model.queue("pseudocode", PSEUDO)
    fake_model.queue("ps_abstract", CONCEPTS)
    assert not write_ps(memory, fake_llm, SolutionInput(task, CODE), examples=[]).failed
    assert [c.sample for c in fake_model.calls] == [0, 1, 1]


def test_examples_are_the_shortest_and_never_the_task_itself():
    from arcmemo.abstraction import fewshot

    def ex(task_id, code):
        return Example(task_id, code, "s", "p", "- name: c", "- situation: a\n  suggestion: b")

    examples = [ex("aaaaaaaa", "x" * 50), ex("bbbbbbbb", "x" * 10), ex("cccccccc", "x" * 30)]
    chosen = fewshot.pick(examples, 2, exclude="bbbbbbbb", size=lambda e: len(e.code))
    assert [e.task_id for e in chosen] == ["cccccccc", "aaaaaaaa"]
    text = fewshot.pseudocode_examples(examples, exclude="bbbbbbbb", n=1)
    assert text.count("## Example") == 1 and "x" * 30 in text
    assert fewshot.concept_examples([], exclude=None) == fewshot.NONE


def test_local_models_get_one_example(fake_llm):
    from arcmemo.abstraction import fewshot

    assert fewshot.example_count(fake_llm) == 2
    fake_llm.settings.aux_model = "local"
    assert fewshot.example_count(fake_llm) == 1
