"""The one wording of a task's answers (run/records/answered.py): who answered, what was submitted,
the verdict agreeing with the score, the model's error said as the model's, faults by stage; a run
from before origins were recorded is matched by its predictions."""

from __future__ import annotations

from arcmemo.run.records.answered import attempt_sources, fault_texts, task_answers
from arcmemo.run.records.outcome import TaskOutcome, TaskScore
from arcmemo.run.records.report import faults_cell
from arcmemo.run.stages.probe import FIT_LABEL

RIGHT, WRONG = [[1, 2]], [[2, 1]]
FIT = {"label": FIT_LABEL, "sample": -1, "round": 0, "code": "def transform(grid):\n    return flip(grid, 1)",
       "passed_train": True, "train_correct": [True, True], "test_outputs": [RIGHT], "test_correct": [True]}
MODEL = {"label": "", "sample": 0, "round": 0, "code": "def transform(grid):\n    return grid", "passed_train": False,
         "train_correct": [True, False], "test_outputs": [WRONG], "test_correct": [False], "error": "wrong_output"}


def outcome(**fields) -> TaskOutcome:
    base = dict(task_id="t", pass_index=1, predictions=[[RIGHT, WRONG]], passed_train=False, code=MODEL["code"],
                reasoning="", scores=TaskScore(0.5, 1.0, 1.0), usage=None, selected=[], selection_fallback=False,
                error="wrong_output", fit_answers=["flip(grid, 1)"],
                threads=[{"thread": 0, "steps": [FIT, MODEL]}])
    return TaskOutcome(**{**base, **fields})


def test_memorys_fit_solved_the_model_was_wrong_said_by_whom_and_what_was_submitted():
    origins = [[{"by": "memory", "call": "flip(grid, 1)"}, {"by": "model", "thread": 0, "sample": 0, "round": 0}]]
    said = task_answers(outcome(origins=origins))
    assert (said.verdict, said.tone, said.solved_by) == ("solved by memory's fit", "ok", ("memory",))
    assert said.train == "passed by memory's fit (the model's program failed)"
    assert [a.text() for a in said.answers] == [
        "memory's fit flip(grid, 1): gave every train output, right on the test (submitted as attempt 1)",
        "the model's program (thread 1, sample 0, retry 0): wrong on the train pairs (1 of 2 right), wrong on the "
        "test (submitted as attempt 2)"]
    assert said.error is None                 # the model's wrong output is said with its answer, not as the task's
    assert attempt_sources(outcome(origins=origins)) == [["memory's fit", "the model"]]


def test_a_run_from_before_origins_is_matched_by_its_predictions():
    said = task_answers(outcome())
    assert [a.attempts for a in said.answers] == [(1,), (2,)]
    assert attempt_sources(outcome()) == [["memory's fit", "the model"]]
    alone = task_answers(outcome(fit_answers=[], predictions=[[WRONG]], scores=TaskScore(0.0, 0.0, 0.0)))
    assert alone.verdict == "not solved" and alone.train == "failed" and alone.answers[0].attempts == ()


def test_not_scored_and_faults_are_said_too():
    said = task_answers(outcome(scores=None, faults=[{"stage": "sandbox", "error": "killed\nmore"},
                                                      {"stage": "solver", "error": "boom", "thread": 1}]))
    assert (said.verdict, said.tone) == ("answered by memory's fit (not scored)", "muted")
    assert said.faults == ("the sandbox: killed", "the solver (thread 2): boom")
    assert fault_texts([{"stage": "read"}]) == ["the memory method's read: no message"]
    assert faults_cell({"faults": {"sandbox": 1}, "fault_tasks": {"sandbox": ["t"]}}) == "the sandbox broke in t (1 task)"
    assert faults_cell({"faults": {}}) == "nothing"
