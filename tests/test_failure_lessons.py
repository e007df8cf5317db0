"""Lessons from failures (issue 30, `--learn-from-failures`): a continual run against the loopback stub
whose failed tasks write OE lessons marked as from a failure, read back by the next block (or left
out with `failure_lessons: exclude`); a planted test output that reaches no prompt of the write
and no stored lesson; malformed answers retried, then recorded, storing nothing; the options and
flags checked before a run starts; the `runs compare` column."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from click.testing import CliRunner
from llm_stub import StubServer, stub_llm
from runner_support import TASK_IDS, seed_code, task_of

from arcmemo.cli import cli
from arcmemo.core.gridtext import format_grid
from arcmemo.memory.store import Memory
from arcmemo.methods import MethodOptionError, WriteContext
from arcmemo.methods.arcmemo.failure_lessons import is_failure_lesson
from arcmemo.methods.arcmemo.failure_write import STEP, failure_prompt, write_failure_lessons
from arcmemo.methods.contract import AttemptView, Experience
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.run.records.report import compare_table
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver

FAILING = "```python\ndef transform(grid):\n    return [[0]]\n```"
CAPTION = "<observations>\n- colours change\n</observations>\n<speculation>\n- a table\n</speculation>"
SUCCESS_LESSON = "```yaml\n- situation: Every cell of one colour turns into another.\n  suggestion: Build the table.\n```"
FAILURE_LESSON = ("The program returned a fixed grid, which ignores the input.\n```yaml\n"
                  "- situation: The output keeps the input's size.\n"
                  "  suggestion: Start from a copy of the input and change only what differs.\n```")
# What each template asks, told apart by a line of its own (the stub sees requests, not steps)
MARKERS = (("oe_failure", "A solver tried the puzzle below and failed"),
           ("oe_lessons", "Derivation (observations and thoughts"),
           ("oe_derive", "so reconstruct it"),
           ("caption", "Write a description that lets someone match this puzzle"),
           ("select_oe", "numbered list of lessons learnt on earlier puzzles"))


def step_of(body: dict) -> str:
    text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    return next((step for step, marker in MARKERS if marker in text), "solve")


def prompt_of(body: dict) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))


def router(unsolved: set[str], failure_answer=lambda body: FAILURE_LESSON):
    """The stub's answers for every step of an OE run whose `unsolved` tasks fail their train pairs."""
    def answer(body: dict) -> str:
        step = step_of(body)
        if step == "solve":
            task_id = task_of(body["messages"])
            return FAILING if task_id is None or task_id in unsolved else f"```python\n{seed_code(task_id)}\n```"
        return {"oe_failure": failure_answer, "oe_lessons": lambda b: SUCCESS_LESSON,
                "oe_derive": lambda b: "<derivation>\n1. Observation: colours map.\n</derivation>",
                "caption": lambda b: CAPTION.replace("a table", f"the rule of {task_of(b['messages'])}"),
                "select_oe": lambda b: "```yaml\n- 1\n- 2\n```"}[step](body)
    return answer


def run(tmp_path, llm, memory, name="run", **settings):
    config = RunConfig(**{"source": "training", "task_ids": TASK_IDS[:4], "selection": "oe", "continual": True,
                          "k": 2, "retries": 1, **settings})
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"), run_id=name)
    return runner, runner.run()


def test_a_continual_run_learns_from_its_failures_and_reads_the_lessons_back(tmp_path):
    unsolved = {TASK_IDS[1], TASK_IDS[3]}
    memory = Memory(str(tmp_path / "memory.db"))
    with StubServer(answer=router(unsolved)) as stub, stub_llm(stub.base_url) as llm:
        runner, summary = run(tmp_path, llm, memory, method_options={"learn_from_failures": True})
        requests = list(stub.requests)
    lessons = memory.list("oe")
    from_failure = [c for c in lessons if is_failure_lesson(c)]
    assert [c.suggestion for c in from_failure] == ["Start from a copy of the input and change only what differs."]
    assert from_failure[0].meta == {"from": "failure"} and set(from_failure[0].used_in) == unsolved
    assert [c.meta for c in lessons if not is_failure_lesson(c)] == [None]      # the solved tasks' lesson
    writes = [e for e in runner.rundir.events() if e["type"] == "write"]
    assert [(w["task_id"], w["failed"]) for w in writes] == [(t, False) for t in TASK_IDS[:4]]   # task order
    # the failed tasks' write was shown their train pairs, the program tried and the feedback it got
    failure_prompts = [prompt_of(b) for b in requests if step_of(b) == "oe_failure"]
    assert len(failure_prompts) == 2
    assert "return [[0]]" in failure_prompts[0] and "It gave 0 of" in failure_prompts[0]
    assert "The last feedback the solver was given" in failure_prompts[0]
    # block 2 reads what block 1 wrote: the failure lesson is numbered for the select model and offered
    selects = [prompt_of(b) for b in requests if step_of(b) == "select_oe"]
    assert len(selects) == 2 and all("change only what differs" in s for s in selects)   # block 1 read nothing
    assert summary["failure_lessons"] == {"written": 1, "offered": 2}
    usage = memory.usage(run_id=runner.rundir.run_id)
    assert usage[from_failure[0].id].offered == 2 and usage[from_failure[0].id].offered_passing == 1

    # the ablation: the same memory read without the failure lessons
    with StubServer(answer=router(unsolved)) as stub, stub_llm(stub.base_url) as llm:
        _, excluded = run(tmp_path, llm, memory, name="excluded", continual=False,
                          method_options={"failure_lessons": "exclude"})
        selects = [prompt_of(b) for b in stub.requests if step_of(b) == "select_oe"]
    assert selects and not any("change only what differs" in s for s in selects)
    assert "failure_lessons" not in excluded
    table = compare_table([(json.loads((tmp_path / "runs" / n / "config.json").read_text()), s)
                           for n, s in (("run", summary), ("excluded", excluded))])
    header, _, first, second = table.splitlines()[:4]
    assert "failure lessons written / offered" in header
    assert re.search(r"\b1 / 2\b", first) and re.search(r"\s-\s", second)


def test_a_ps_run_adds_failure_lessons_to_its_hint_unless_excluded(tmp_path, fake_model, fake_llm):
    from runner_support import script_run

    memory = Memory(str(tmp_path / "memory.db"))
    lesson = memory.add({"format": "oe", "situation": "The output keeps the input's size and colours change.",
                         "suggestion": "Check every cell against a colour table.",
                         "meta": {"from": "failure", "method": "ps"}}, actor="test")     # a ps run's lesson
    memory.add({"format": "oe", "situation": "A lesson from a solved task.", "suggestion": "Not for PS hints."},
               actor="test")
    memory.add({"format": "oe", "situation": "The output keeps the input's size and shapes move.",
                "suggestion": "An oe run's own failure lesson.", "meta": {"from": "failure"}}, actor="test")
    script_run(fake_model)
    runner, summary = run(tmp_path, fake_llm, memory, selection="ps", continual=False, task_ids=TASK_IDS[:1],
                          retries=0)
    (solve,) = fake_model.calls_for("solve")
    assert "traps to avoid" in solve.prompt and "Check every cell against a colour table." in solve.prompt
    assert "Not for PS hints." not in solve.prompt and "an oe run's own" not in solve.prompt.lower()
    assert summary["failure_lessons"] == {"written": 0, "offered": 1}
    assert [r["id"] for r in runner.done[(1, TASK_IDS[0])].concept_use] == [lesson.id]
    _, excluded = run(tmp_path, fake_llm, memory, name="excluded", selection="ps", continual=False,
                      task_ids=TASK_IDS[:1], retries=0, method_options={"failure_lessons": "exclude"})
    assert "traps to avoid" not in fake_model.calls_for("solve")[-1].prompt and "failure_lessons" not in excluded


PLANTED = [[8, 6, 4, 2, 0, 2, 4], [4, 2, 0, 2, 4, 6, 8]]      # a test output, in no other grid of the task


def planted_task(folder):
    """A puzzle whose train pairs swap two colours and whose test output is PLANTED."""
    swap = {1: 2, 2: 1}
    train = [[[1, 2, 1], [2, 2, 1], [1, 1, 1]], [[2, 1, 1], [1, 2, 2], [2, 2, 2]], [[1, 1, 2], [2, 1, 2], [1, 2, 1]]]
    task = {"train": [{"input": g, "output": [[swap[v] for v in row] for row in g]} for g in train],
            "test": [{"input": [[3, 3, 3], [3, 5, 3]], "output": PLANTED}]}
    folder.mkdir()
    (folder / "f00d0001.json").write_text(json.dumps(task))
    return str(folder)


def test_a_failure_lesson_cannot_quote_a_test_output(tmp_path):
    """Only train feedback reaches the failure write: the planted test output is in no request of the
    run and in no stored lesson, although the write's model quotes its whole prompt into its lesson."""
    def echo(body):            # a model that copies everything it was shown into the lesson it writes
        shown = prompt_of(body).replace("`", "'")
        return "```yaml\n" + yaml.safe_dump([{"situation": "seen in the prompt", "suggestion": shown}]) + "```"

    memory = Memory(str(tmp_path / "memory.db"))
    with StubServer(answer=router({"f00d0001"}, failure_answer=echo)) as stub, stub_llm(stub.base_url) as llm:
        _, summary = run(tmp_path, llm, memory, source=planted_task(tmp_path / "tasks"), task_ids=None, k=1,
                         method_options={"learn_from_failures": True})
        sent = [json.dumps(b) for b in stub.requests]
    assert summary["scored"] and summary["failure_lessons"]["written"] == 1
    (lesson,) = memory.list("oe")
    assert is_failure_lesson(lesson) and format_grid([[2, 1, 2]]) in lesson.suggestion   # the echo works
    forms = [format_grid(PLANTED), format_grid(PLANTED, "numpy"), "8642024", "8 6 4 2 0 2 4", "[8, 6, 4, 2, 0, 2, 4]"]
    for form in forms:
        assert not any(form in request for request in sent), form
        assert form not in lesson.suggestion and form not in lesson.situation


def failed_experience(task) -> Experience:
    program = "def transform(grid):\n    return grid\n"
    return Experience(task=task, pass_index=1, program=program, reasoning="copy it", passed_train=False,
                      attempts=(AttemptView(0, 0, 0, program, (False, True, False), 0.7, error="wrong_output",
                                            feedback="Example 1: wrong output"),))


def test_a_malformed_answer_is_asked_again_then_recorded_and_nothing_is_stored(tmp_path, fake_model, fake_llm):
    from arcmemo.core.tasks import load_tasks

    task = load_tasks("training", ids=[TASK_IDS[2]]).tasks[0]
    memory = Memory(str(tmp_path / "memory.db"))
    fake_model.queue(STEP, "no yaml here", "```yaml\n- situation: only half a lesson\n```")
    event = write_failure_lessons(memory, fake_llm, failed_experience(task), run_id="r1")
    assert event.failed and "malformed answer after one retry" in event.error and "suggestion" in event.error
    assert len(fake_model.calls_for(STEP)) == 2 and memory.list() == []
    (failure,) = memory.write_failures(run_id="r1")
    assert (failure.task_id, failure.step) == (TASK_IDS[2], STEP) and "only half a lesson" in failure.raw
    # asked afresh next time (not the cached malformed answer), and then written
    fake_model.queue(STEP, FAILURE_LESSON)
    assert not write_failure_lessons(memory, fake_llm, failed_experience(task), run_id="r1").failed
    assert [c.meta for c in memory.list("oe")] == [{"from": "failure"}]


def test_the_failure_prompt_shows_what_was_tried_on_the_train_pairs_only(fake_model):
    from arcmemo.core.tasks import load_tasks

    loaded = load_tasks("training", ids=[TASK_IDS[2]])
    task = loaded.tasks[0]
    prompt = failure_prompt(failed_experience(task))
    assert "return grid" in prompt and "It gave 1 of 3 example outputs exactly (70% of the cells right)" in prompt
    assert "Example 1: wrong output" in prompt and "copy it" in prompt
    assert all(format_grid(g) not in prompt for g in task.test_inputs)        # nor even the test inputs
    assert all(format_grid(g) not in prompt for g in loaded.answers[task.id].test_outputs)


def test_a_write_without_the_option_learns_from_successes_only(tmp_path, fake_model, fake_llm):
    from arcmemo.core.tasks import load_tasks
    from arcmemo.methods import load_method

    task = load_tasks("training", ids=[TASK_IDS[2]]).tasks[0]
    memory = Memory(str(tmp_path / "memory.db"))
    fake_model.on(STEP, lambda messages: FAILURE_LESSON)
    assert load_method("oe").write([failed_experience(task)], memory, fake_llm, WriteContext(run_id="r")) == []
    assert fake_model.calls_for(STEP) == [] and memory.list() == []
    events = load_method("ps").write([failed_experience(task)], memory, fake_llm,
                                     WriteContext(run_id="r", options={"learn_from_failures": True}))
    assert [(e.task_id, e.failed) for e in events] == [(TASK_IDS[2], False)]
    assert [is_failure_lesson(c) for c in memory.list()] == [True]         # a PS run's failure lessons are OE


@pytest.mark.parametrize("options, message", [
    ({"failure_lessons": "exlude"}, "memory method 'oe': option failure_lessons must be include or exclude, "
                                    "got 'exlude'"),
    ({"learn_from_failures": "yes"}, "memory method 'oe': option learn_from_failures must be true or false"),
    ({"use_prior": 1}, "option use_prior must be true or false, got 1")])
def test_option_values_are_checked_before_a_run_starts(options, message):
    with pytest.raises(MethodOptionError, match=re.escape(message)):
        RunConfig(selection="oe", method_options=options)


def test_the_flags_set_the_method_options_and_a_method_without_them_refuses(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    db, runs = str(tmp_path / "memory.db"), str(tmp_path / "runs")
    Memory(db).close()
    refused = CliRunner().invoke(cli, ["solve", "--method", "none", "--learn-from-failures", "--tasks", TASK_IDS[0],
                                       "--db", db, "--run-dir", runs])
    assert refused.exit_code != 0 and "'none' takes no option 'learn_from_failures'" in refused.output
    with StubServer() as stub:
        result = CliRunner().invoke(cli, ["solve", "--method", "ps", "--learn-from-failures", "--use-prior",
                                          "--failure-lessons", "exclude", "--continual", "--tasks", TASK_IDS[0],
                                          "--retries", "0", "-q", "--base-url", stub.base_url, "--db", db,
                                          "--run-dir", runs])
        assert result.exit_code == 0, result.output
    (run_dir,) = (tmp_path / "runs").iterdir()
    settings = json.loads((run_dir / "config.json").read_text())["settings"]
    assert settings["method_options"] == {"use_prior": True, "failure_lessons": "exclude",
                                          "learn_from_failures": True, "reads_from": []}
