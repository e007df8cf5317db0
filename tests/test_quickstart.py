"""`arcmemo quickstart`: two ordinary solve runs (with memory, without) over puzzles not among the
seeds, then both side by side with what each side got and why, against the scripted fake model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from runner_support import task_of

from arcmemo.cli import cli
from arcmemo.llm.backend import Reply
from arcmemo.llm.usage import Usage
from arcmemo.run.jobs.quickstart import QUICK, QUICKSTART_TASKS, Side, conclusion, describe_side, effect
from arcmemo.run.records.outcome import TaskOutcome
from arcmemo.scoring.scores import TaskScore

NOT_SOLVED = TaskScore(0.0, 0.0, 0.0)

ROOT = Path(__file__).resolve().parent.parent
FAKE = ["--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"]
WRONG = "```python\ndef transform(grid):\n    return grid\n```"
CORNER = "```python\ndef transform(grid):\n    return grid[:2, :2]\n```"     # d10ecb37's rule


def shipped_memory(tmp_path: Path) -> Path:
    db = tmp_path / "memory.db"
    shutil.copy(ROOT / "memory.db", db)
    return db


@pytest.fixture(autouse=True)
def select_answers(fake_model):
    """The with-memory side's read: the select model names a concept of the shipped memory."""
    fake_model.on("select_ps", lambda messages: "```yaml\n- color mapping\n```")


def quickstart(tmp_path: Path, *more: str):
    db = shipped_memory(tmp_path)
    before = db.read_bytes()
    result = CliRunner().invoke(cli, ["quickstart", "--db", str(db), "--run-dir", str(tmp_path / "runs"), "-q",
                                      *FAKE, *more])
    assert db.read_bytes() == before          # both runs only read memory
    return result


def test_the_default_puzzles_are_not_seeds():
    seeds = {p.stem for p in (ROOT / "seeds").glob("*.py")}
    assert QUICKSTART_TASKS and not set(QUICKSTART_TASKS) & seeds


def test_both_sides_side_by_side_with_what_each_got_and_why(tmp_path, fake_model):
    fake_model.on("solve", lambda messages: CORNER if task_of(messages, list(QUICKSTART_TASKS)) == "d10ecb37"
                  else WRONG)
    result = quickstart(tmp_path)
    assert result.exit_code == 0, result.output
    out = result.output
    runs = sorted((tmp_path / "runs").iterdir())
    configs = {r.name: json.loads((r / "config.json").read_text()) for r in runs}
    by_selection = {c["settings"]["selection"]: name for name, c in configs.items()}
    assert set(by_selection) == {"ps", "none"}
    for config in configs.values():         # ordinary solve runs with the quick settings
        assert config["task_ids"] == list(QUICKSTART_TASKS)
        assert {k: config["settings"][k] for k in QUICK} == QUICK
    mine, plain = by_selection["ps"], by_selection["none"]
    assert f"only {mine} solves with its submitted attempts (1): b1948b0a" in out                  # the `runs compare` table
    assert (f"b1948b0a: memory helped\n  memory offered:  the probe's fit color_mapping(grid, {{6: 2}})\n"
            f"  with memory:     solved: answered by memory (helper call color_mapping(grid, {{6: 2}})); the model's "
            f"program got 0 of 3 train pairs right   (run {mine})\n"
            f"  without memory:  not solved: the model's program got 0 of 3 train pairs right   (run {plain})") in out
    assert "d10ecb37: no difference: solved either way" in out
    assert f"without memory:  solved: the model's program   (run {plain})" in out
    assert ("With memory, 1 of 2 puzzles solved that the model alone did not (b1948b0a, answered by memory's "
            "verified helper call). Memory did not help on d10ecb37 (no difference: solved either way).") in out
    runs_flag = f"--run-dir {tmp_path / 'runs'}"
    for command in (f"arcmemo runs compare {mine} {plain} {runs_flag}", f"arcmemo runs show {mine} --task b1948b0a "
                    f"{runs_flag}", f"arcmemo serve --runs {tmp_path / 'runs'} --db {tmp_path / 'memory.db'}"):
        assert command in out
    assert "warning" not in out.lower()
    compared = CliRunner().invoke(cli, ["runs", "compare", mine, plain, "--run-dir", str(tmp_path / "runs")])
    assert compared.exit_code == 0 and f"only {mine} solves with its submitted attempts (1): b1948b0a" in compared.output


def test_a_complete_program_in_an_answer_cut_at_the_limit_counts_as_the_models(tmp_path, fake_model):
    """The embedded model writes test prints after its program until the limit cuts it: the
    program is the model's answer all the same."""
    cut = CORNER.removesuffix("```") + "\n# Check it\nprint(transform(np.array([[1, 2], [3"
    fake_model.on("solve", lambda messages: Reply(cut, finish_reason="length")
                  if task_of(messages, list(QUICKSTART_TASKS)) == "d10ecb37" else WRONG)
    result = quickstart(tmp_path)
    assert result.exit_code == 0, result.output
    assert "without memory:  solved: the model's program   (run" in result.output
    assert {call.params.get("max_tokens") for call in fake_model.calls_for("solve")} == {QUICK["max_tokens"]}


def test_answers_from_the_call_log_are_said_to_be(tmp_path, fake_model):
    fake_model.on("solve", lambda messages: WRONG)
    assert quickstart(tmp_path).exit_code == 0
    again = quickstart(tmp_path)
    assert again.exit_code == 0, again.output
    assert "6 of 6 model answers came from the call log" in again.output and fake_model.calls_for("solve")


def test_a_puzzle_that_is_not_there_fails_before_any_run(tmp_path, fake_model):
    result = quickstart(tmp_path, "--tasks", "00000000")
    assert result.exit_code == 1 and "00000000" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists() and fake_model.calls == []


def outcome(task_id: str, *steps: dict, fit_answers=(), scores: TaskScore | None = NOT_SOLVED) -> TaskOutcome:
    return TaskOutcome(task_id=task_id, pass_index=1, predictions=[[]], passed_train=False, code=None, reasoning="",
                       scores=scores, usage=Usage(), selected=[],
                       selection_fallback=False, fit_answers=list(fit_answers),
                       threads=[{"thread": 0, "steps": list(steps)}])


def step(label="", *, right=False, passed=False, error=None, code="def transform(grid): ...", train=(False,)):
    return {"label": label, "code": code, "error": error, "passed_train": passed, "train_correct": list(train),
            "test_correct": [right], "helpers_called": []}


@pytest.mark.parametrize("outcome_, solved, expected", [
    (outcome("t", step(error="format: no python block", code=None)), False,
     Side(False, "the model's answer held no program (format: no python block)")),
    (outcome("t", {**step(error="cut: the answer was cut at the token limit after 512 tokens", code=None), "cut": True}),
     False, Side(False, "the model's answer was cut at the token limit (max_tokens) before its program was complete")),
    (outcome("t", step(passed=True, train=(True,))), False,
     Side(False, "the model's program passed the train pairs but was wrong on the test")),
    (outcome("t", step(error="ZeroDivisionError: division by zero")), False,
     Side(False, "the model's program failed (ZeroDivisionError: division by zero)")),
    (outcome("t", step("memory fit", right=True, passed=True), step(right=True, passed=True), fit_answers=["f(grid)"]),
     True, Side(True, "the model's program, and memory's helper call f(grid) too")),
    (outcome("t", step("memory fit", passed=True), step(), fit_answers=["f(grid)"]), False,
     Side(False, "memory's helper call f(grid) gave every train output, not the test output; the model's program got "
                 "0 of 1 train pairs right")),
    (outcome("t", step(), scores=None), None, Side(None, "not scored (no test outputs)")),
    (None, None, Side(None, "not attempted")),
])
def test_each_side_says_what_it_got_and_why(outcome_, solved, expected):
    assert describe_side(outcome_, {"t"} if solved else set()) == expected


def test_when_memory_does_not_help_it_says_so():
    solved, failed, unknown = Side(True, ""), Side(False, ""), Side(None, "")
    assert effect(failed, solved) == "memory hurt: solved only without it"
    assert effect(failed, failed) == "memory did not help: neither solved it"
    assert effect(unknown, solved) == "unknown (not scored)"
    from arcmemo.run.jobs.quickstart import PuzzleResult

    results = [PuzzleResult("a", "-", failed, failed), PuzzleResult("b", "-", failed, solved)]
    assert conclusion(results) == ("With memory, 0 of 2 puzzles solved that the model alone did not. Memory did "
                                   "not help on a (memory did not help: neither solved it); b (memory hurt: solved "
                                   "only without it).")
