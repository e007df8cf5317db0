"""An answer that ended at the token limit (finish reason "length") is called cut in every record
of a solve: the call log, the task event's steps, `runs show --task` and the report's task
section; and a complete `transform` in the block the cut left open is used (issue 39 point 2)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from llm_stub import completion_body, solve_against_stub
from runner_support import seed_code

from arcmemo.cli import cli
from arcmemo.llm.log import CallLog

P1 = "0d3d703e"
TESTS_CUT = "\n\n# Check it on the first example\nprint(transform(np.array([[3, 1, 2], [3, 1"


def solve(tmp_path, text: str, *args: str) -> tuple:
    """`arcmemo solve` of P1 (one thread, no retry) where every answer is `text`, cut at the token
    limit: the run directory and its task event."""
    run = solve_against_stub(tmp_path, P1, completion_body(text, completion_tokens=512, finish_reason="length"),
                             *args)
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    (event,) = [e for e in events if e.get("type") == "task"]
    return run, event


def steps(event: dict) -> list[dict]:
    return [s for t in event["threads"] for s in t["steps"]]


@pytest.fixture(autouse=True)
def endpoint(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_a_complete_transform_the_cut_left_open_solves_and_every_record_says_cut(tmp_path, isolated_home):
    run, event = solve(tmp_path, "The colours swap in pairs.\n\n```python\n" + seed_code(P1) + TESTS_CUT)
    (step,) = steps(event)
    assert step["cut"] is True and step["error"] is None and step["passed_train"]
    assert event["scores"]["oracle2"] == 1
    with CallLog(isolated_home / "calls.db") as log:
        (call,) = log.list(step="solve")
    assert call.finish_reason == "length" and call.cut
    shown = CliRunner().invoke(cli, ["runs", "show", str(run), "--task", P1]).output
    assert ("the model's program (thread 1, sample 0, retry 0): passed the train pairs, right on the test, cut at the "
            "token limit (max_tokens); its complete program before the cut was used (submitted as attempt 1)") in shown
    report = tmp_path / "report.html"
    assert CliRunner().invoke(cli, ["runs", "report", str(run), "-o", str(report)]).exit_code == 0
    assert "cut at the token limit (max_tokens); its complete program before the cut was used" in report.read_text()


def test_an_answer_cut_before_its_program_is_recorded_as_cut_not_as_missing_a_block(tmp_path):
    run, event = solve(tmp_path, "Let me look at every cell.\n\n```python\nimport numpy as np\n\n\n"
                                 "def transform(grid):\n    lookup = np.arange(10)\n    lookup[")
    (step,) = steps(event)
    assert step["cut"] is True and step["code"] is None
    why = "cut: the answer was cut at the token limit after 512 tokens, before it gave a complete program"
    assert step["error"] == why and event["error"] == why
    shown = CliRunner().invoke(cli, ["runs", "show", str(run), "--task", P1]).output
    assert f"no program ({why})" in shown and "cut at the token limit (max_tokens) before a complete program" in shown
    assert "no ```python" not in shown


def test_the_released_reading_does_not_read_a_block_the_cut_left_open(tmp_path):
    _, event = solve(tmp_path, "```python\n" + seed_code(P1) + TESTS_CUT, "--answer-reading", "released")
    (step,) = steps(event)
    assert step["cut"] is True and step["code"] is None and step["error"].startswith("cut: ")
