"""How an answer is read (protocol choice `answer_reading`, arcmemo/solverkit/reading.py): the
`released` reading gives the ArcMemo authors' released code's verdict on every answer shape of the
corpus (tests/answer_shapes.py): the same code read, the same output or error class and the same
right or wrong on every grid. Checked against their verdicts recorded in tests/data (always) and
against their functions run now from the fetched copy (tests/released_reference.py, when fetched);
under `arcmemo` the documented differences show. And end to end: a solve against the loopback
stub scores an answer as each protocol reads it."""

from __future__ import annotations

import json
import re

import pytest
from answer_shapes import SHAPES, TEST, TRAIN
from llm_stub import solve_against_stub
from released_reference import CHECKS, RECORDED, commit, released_verdicts, unavailable
from runner_support import seed_code

from arcmemo.core.answers import read_answer
from arcmemo.core.parsing import ParseError, first_code_block
from arcmemo.sandbox import get_sandbox
from arcmemo.sandbox.common import NO_GRID
from arcmemo.solverkit import SolverSettings, program_of, read_program, run_on_pairs

BY_NAME = {s.name: s for s in SHAPES}


def cell(outcome, correct: bool) -> list:
    """One grid's verdict in the reference's terms (released_reference.py): the class of what the
    program gave, the grid, right or wrong. arcmemo's own refusals of a return are "invalid output"."""
    if outcome.ok:
        return ["output", outcome.output, correct]
    if outcome.error == "invalid_output":
        kind = next((c for c in CHECKS if outcome.message.startswith(c)), None)
        return [kind or ("no grid" if NO_GRID in outcome.message else "invalid output"), None, correct]
    return ["error", None, correct]


def our_verdict(answer: str, reading: str, cut: bool = False) -> dict:
    """What a solve does with the answer under `reading`: read it as the conversation does (through
    read_answer; `cut`: the answer ended at the token limit), run it on the train pairs, then on the
    test pairs, in the sandbox."""
    try:
        code = read_answer(lambda text: read_program(text, reading, cut=cut), answer)
    except ParseError:
        return {"code": None}
    verdict = {"code": code}
    for split, pairs in (("train", TRAIN), ("test", TEST)):
        check = run_on_pairs(get_sandbox(), code, pairs, reading=reading, timeout_s=1.0)
        verdict[split] = [cell(o, ok) for o, ok in zip(check.outcomes, check.correct)]
    return verdict


def outcome(verdict: dict) -> str:
    """right, wrong, error, no code, or crash (the released scorer raised): answer_shapes.py."""
    if "crash" in verdict:
        return "crash"
    if verdict["code"] is None:
        return "no code"
    cells = verdict["train"] + verdict["test"]
    if all(c[2] for c in cells):
        return "right"
    return "wrong" if all(c[0] in ("output", "no grid") for c in cells) else "error"


def agrees(ours: dict, theirs: dict) -> bool:
    """Our released verdict is theirs; where their scorer crashed (its run ends there), ours scores
    every grid as a refused return, what their execution said before the crash."""
    if "crash" in theirs:
        return all(c[0] == "return type error" for c in ours["train"] + ours["test"])
    return ours == theirs


@pytest.fixture(scope="module")
def ours() -> dict[str, dict[str, dict]]:
    return {reading: {s.name: our_verdict(s.answer, reading, s.cut) for s in SHAPES}
            for reading in ("arcmemo", "released")}


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(RECORDED.read_text())


def test_the_corpus_has_thirty_shapes_or_more_and_explains_every_difference():
    assert len(SHAPES) >= 30 and len(BY_NAME) == len(SHAPES)
    assert [s.name for s in SHAPES if s.arcmemo != s.released and not s.why] == []
    assert {s.released for s in SHAPES} <= {"right", "wrong", "error", "no code", "crash"}
    assert sum(s.arcmemo != s.released for s in SHAPES) >= 15          # the readings differ a lot


def test_the_recording_covers_the_corpus_and_says_what_it_was_made_from(recorded):
    assert set(recorded["verdicts"]["driver"]) == set(BY_NAME), "run `python tests/released_reference.py`"
    assert set(recorded["verdicts"]["score_completions"]) == set(BY_NAME)
    assert re.fullmatch(r"[0-9a-f]{40}", recorded["commit"])
    for name, verdict in recorded["verdicts"]["driver"].items():
        assert outcome(verdict) == BY_NAME[name].released, name        # the documented column is theirs


def test_the_released_reading_gives_the_released_codes_recorded_verdict_on_every_shape(ours, recorded):
    theirs = recorded["verdicts"]["driver"]
    differ = {name: (ours["released"][name], theirs[name]) for name in BY_NAME
              if not agrees(ours["released"][name], theirs[name])}
    assert differ == {}


def test_the_arcmemo_reading_differs_where_the_corpus_says(ours):
    assert {s.name: outcome(ours["arcmemo"][s.name]) for s in SHAPES} == {s.name: s.arcmemo for s in SHAPES}
    # and the released reading, outcome by outcome, is the corpus's released column
    assert {s.name: outcome(ours["released"][s.name]) for s in SHAPES if s.released != "crash"} == \
        {s.name: s.released for s in SHAPES if s.released != "crash"}


def test_the_released_codes_other_scorer_differs_only_on_its_block_rule_and_clean_up(recorded):
    """score_completions.py (their older runner) reads ```Python and blanks after the fence,
    prefers an earlier ``` block, renames main and drops lines starting print(; nothing else."""
    driver, older = recorded["verdicts"]["driver"], recorded["verdicts"]["score_completions"]
    assert sorted(name for name in BY_NAME if outcome(driver[name]) != outcome(older[name])) == sorted([
        "```Python fence", "blank after the fence's name", "example ``` block before the program",
        "print spanning lines", "main instead of transform", "returns a ragged list"])


@pytest.mark.slow
def test_the_released_reading_agrees_with_the_released_code_run_now(ours, recorded):
    why = unavailable()
    if why:
        pytest.skip(why)
    live = released_verdicts([{"name": s.name, "answer": s.answer} for s in SHAPES], TRAIN, TEST)
    assert {n: v for n, v in live["driver"].items() if not agrees(ours["released"][n], v)} == {}
    stale = sorted(n for n in BY_NAME if live["driver"][n] != recorded["verdicts"]["driver"][n]
                   or live["score_completions"][n] != recorded["verdicts"]["score_completions"][n])
    assert stale == [] and recorded["commit"] == commit(), \
        f"the recording is stale ({stale or 'another commit'}): run `python tests/released_reference.py`"


def test_the_first_block_rule_is_linear_and_keeps_its_quirks():
    assert first_code_block("```py\nx = 1\n```\nthen\n```\ny = 2\n```") == "then"  # a closing fence opens one
    assert first_code_block("```\na\n```\n```python\nb\n```") == "b"             # ```python first
    hostile = "```\nx" * 40_000                          # openings that never close: one search, not 40,000
    with pytest.raises(ParseError, match="no ```python or ``` block"):
        first_code_block(hostile)


def test_a_program_given_apart_runs_as_written_under_the_released_reading():
    code = "def transform(grid):\n    return grid\n\nprint(transform([[1]]))\n"
    assert program_of(code, "released") == code and "print" not in program_of(code, "arcmemo")
    with pytest.raises(ValueError, match="answer reading must be one of arcmemo, released, not 'mine'"):
        read_program("", "mine")
    with pytest.raises(ValueError, match="answer_reading must be one of arcmemo, released"):
        SolverSettings(answer_reading="mine")


# -- end to end: a solve against the loopback stub -------------------------------------------------

P1 = "0d3d703e"
RIGHT_P1 = seed_code(P1)                                           # returns a numpy array
LISTS_P1 = RIGHT_P1.replace("return lookup[grid]", "return lookup[grid].tolist()")
WRONG_P1 = "import numpy as np\n\n\ndef transform(grid):\n    return np.array(grid)\n"


def solve_score(tmp_path, answer: str, *args: str) -> tuple[float, dict]:
    """`arcmemo solve` of P1 (one thread, no retries) where the model always gives `answer`: the
    run's headline score and its protocol record."""
    from arcmemo.run.records.report import score_of

    run = solve_against_stub(tmp_path, P1, answer, *args)
    config, summary = (json.loads((run / name).read_text()) for name in ("config.json", "summary.json"))
    return score_of(config, summary).value, config["protocol"]


@pytest.fixture
def endpoint(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_a_transform_returning_lists_scores_100_under_arcmemo_and_0_under_the_released_code(tmp_path, endpoint):
    answer = f"```python\n{LISTS_P1}\n```"
    score, protocol = solve_score(tmp_path / "clean", answer)
    assert score == 100.0 and protocol["answer_reading"] == "arcmemo"
    score, protocol = solve_score(tmp_path / "released", answer, "--protocol", "released-code")
    assert score == 0.0 and protocol["answer_reading"] == "released"
    # the choice alone: arcmemo's protocol reading answers as the released code does
    score, protocol = solve_score(tmp_path / "alone", answer, "--answer-reading", "released")
    assert score == 0.0 and protocol["name"] == "arcmemo+answer_reading=released"


def test_the_first_python_block_is_the_answer_under_the_released_code(tmp_path, endpoint):
    answer = f"```python\n{RIGHT_P1}\n```\n\nOr, more simply:\n\n```python\n{WRONG_P1}\n```"
    assert solve_score(tmp_path / "released", answer, "--protocol", "released-code")[0] == 100.0
    assert solve_score(tmp_path / "clean", answer)[0] == 0.0
    # a released-code profile reading answers arcmemo's way reads the last block again
    score, protocol = solve_score(tmp_path / "mixed", answer, "--protocol", "released-code",
                                  "--answer-reading", "arcmemo")
    assert score == 0.0 and protocol["name"] == "released-code+answer_reading=arcmemo"


def test_released_code_with_train_retries_and_no_continual_is_not_test_informed(tmp_path, endpoint):
    _, protocol = solve_score(tmp_path, f"```python\n{RIGHT_P1}\n```", "--protocol", "released-code",
                              "--retry-when", "train-fails")
    assert protocol["test_informed"] is False and protocol["test_informed_by"] == []
