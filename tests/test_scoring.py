"""Scoring: oracle@k (appendix B) and strict score against hand-computed values; submissions."""

from __future__ import annotations

import json
from itertools import combinations

import pytest

from arcmemo.core.tasks import Answers, cell_accuracy
from arcmemo.scoring import (
    CallUse,
    TaskScore,
    attempt_metadata,
    oracle_at_k,
    read_submission,
    score_submission_dir,
    score_task,
    strict_score,
    write_submission,
)

A = ((1, 2), (3, 4))
B = ((5, 5), (5, 5))
C = ((0,),)
D = ((7, 7, 7),)


def brute_oracle(correct, k):
    """Appendix B literally: mean over k-subsets C of (1/|T|) sum_t 1{exists c in C solving t}."""
    n = len(correct)
    k = min(k, n)
    subsets = list(combinations(range(n), k))
    t = len(correct[0])
    return sum(sum(any(correct[c][j] for c in sub) for j in range(t)) / t for sub in subsets) / len(subsets)


# --- oracle@k, hand-computed -----------------------------------------------------------

def test_single_test_case():
    # 3 attempts, one correct: @1 = 1/3; @2: subsets {01,02,12}, two contain attempt 0 -> 2/3; @3 = 1
    correct = [[True], [False], [False]]
    assert oracle_at_k(correct, 1) == pytest.approx(1 / 3)
    assert oracle_at_k(correct, 2) == pytest.approx(2 / 3)
    assert oracle_at_k(correct, 3) == pytest.approx(1.0)


def test_two_test_inputs_solved_by_different_attempts():
    # attempt 0 solves test 0, attempt 1 solves test 1, attempt 2 solves nothing
    correct = [[True, False], [False, True], [False, False]]
    # k=1: z = 1/2, 1/2, 0 -> mean 1/3
    assert oracle_at_k(correct, 1) == pytest.approx(1 / 3)
    # k=2: {0,1} -> 1, {0,2} -> 1/2, {1,2} -> 1/2 -> mean 2/3
    assert oracle_at_k(correct, 2) == pytest.approx(2 / 3)
    # strict: no single attempt solves both tests
    assert strict_score(correct, 1) == 0.0 and strict_score(correct, 2) == 0.0


def test_two_test_inputs_one_attempt_solves_both():
    correct = [[True, True], [True, False], [False, False], [False, False]]
    # k=1: z = 1, 1/2, 0, 0 -> 3/8
    assert oracle_at_k(correct, 1) == pytest.approx(3 / 8)
    # k=2 over 6 pairs: {01}=1 {02}=1 {03}=1 {12}=1/2 {13}=1/2 {23}=0 -> 4/6
    assert oracle_at_k(correct, 2) == pytest.approx(4 / 6)
    # strict k=1: only attempt 0 solves everything -> 1/4; k=2: subsets with attempt 0 -> 3/6
    assert strict_score(correct, 1) == pytest.approx(1 / 4)
    assert strict_score(correct, 2) == pytest.approx(1 / 2)


def test_fewer_attempts_than_k_counts_what_it_has():
    assert oracle_at_k([[True, False]], 2) == pytest.approx(0.5)
    assert oracle_at_k([[False]], 2) == 0.0
    assert oracle_at_k([[True], [False]], 5) == 1.0
    assert strict_score([[True, True]], 2) == 1.0


def test_no_attempts_scores_zero():
    assert oracle_at_k([], 2) == 0.0 and strict_score([], 2) == 0.0


@pytest.mark.parametrize("correct", [
    [[True, False, True], [False, False, True], [True, True, False], [False, False, False], [False, True, True]],
    [[False, True], [False, True], [True, False], [False, False], [False, False], [True, True]],
])
def test_closed_form_matches_literal_definition(correct):
    for k in range(1, len(correct) + 2):
        assert oracle_at_k(correct, k) == pytest.approx(brute_oracle(correct, k))


def test_malformed_matrices_are_refused():
    with pytest.raises(ValueError, match="one verdict per test"):
        oracle_at_k([[True], [True, False]], 2)
    with pytest.raises(ValueError, match="at least one test"):
        oracle_at_k([[]], 1)
    with pytest.raises(ValueError, match="k must be"):
        oracle_at_k([[True]], 0)


# --- score_task ------------------------------------------------------------------------

def test_score_task_compares_grids_and_handles_missing_predictions():
    answers = Answers("t1", (A, B))
    attempts = [
        [A, B],                 # solves both
        [[[1, 2], [3, 4]], None],  # lists are fine; None = no prediction
        [C],                    # fewer predictions than tests: the missing one is wrong
    ]
    score = score_task(attempts, answers)
    assert isinstance(score, TaskScore)
    assert score.correct == ((True, True), (True, False), (False, False))
    # k=1: 1, 1/2, 0 -> 1/2 ; k=2: {01}=1 {02}=1 {12}=1/2 -> 5/6 ; strict@2: subsets with attempt 0 -> 2/3
    assert score.oracle1 == pytest.approx(1 / 2)
    assert score.oracle2 == pytest.approx(5 / 6)
    assert score.strict == pytest.approx(2 / 3)
    assert score.to_dict()["correct"] == [[True, True], [True, False], [False, False]]


def test_score_task_invalid_prediction_is_wrong_not_an_error():
    score = score_task([[[[12]]], [[["x"]]], [A]], [A])
    assert score.correct == ((False,), (False,), (True,))


def test_score_task_without_attempts():
    assert score_task([], [A]) == TaskScore(0.0, 0.0, 0.0, ())


def test_score_task_without_answers_names_the_task():
    with pytest.raises(ValueError, match="task t9 has no test outputs"):
        score_task([[A]], Answers("t9", ()))


def test_cell_accuracy():
    assert cell_accuracy(A, A) == 1.0
    assert cell_accuracy([[1, 2], [3, 0]], A) == 0.75
    assert cell_accuracy(C, A) == 0.0       # shape differs
    assert cell_accuracy(None, A) == 0.0
    assert cell_accuracy([[1, 2], [3]], A) == 0.0  # not a grid


# --- submission files ------------------------------------------------------------------

def meta(task_id, tests=1):
    """Harness metadata for every attempt slot of a task (no calls: the fallback's values)."""
    one = [attempt_metadata(task_id=task_id, pair_index=j, answer=None, thread=(),
                            fallback=CallUse(model="m", provider="p", started=0.0, ended=1.0),
                            extra={"attempt": a + 1}) for j in range(tests) for a in range(2)]
    return [one[2 * j: 2 * j + 2] for j in range(tests)]


def test_write_submission_shape(tmp_path):
    path = write_submission(tmp_path, "abc123", [[A, B], [C]], meta("abc123", 2))
    assert path == tmp_path / "abc123.json"
    data = json.loads(path.read_text())
    assert len(data) == 2
    assert data[0]["attempt_1"]["answer"] == [[1, 2], [3, 4]]
    assert data[0]["attempt_2"]["answer"] == [[5, 5], [5, 5]]
    assert data[0]["attempt_1"]["metadata"] == meta("abc123", 2)[0][0]
    assert data[0]["attempt_1"]["metadata"]["start_timestamp"] == "1970-01-01T00:00:00+00:00"
    assert (data[1]["attempt_1"]["metadata"]["task_id"], data[1]["attempt_1"]["metadata"]["pair_index"]) == \
        ("abc123", 1)
    assert data[1]["attempt_2"] is None         # the harness's missing attempt
    assert [p.name for p in tmp_path.iterdir()] == ["abc123.json"]  # no temp file left behind
    assert read_submission(path) == [[A, B], [C]]      # a missing last attempt is no attempt


def test_write_submission_refuses_bad_input(tmp_path):
    with pytest.raises(ValueError, match="at most 2"):
        write_submission(tmp_path, "t", [[A, A, A]], meta("t"))
    with pytest.raises(ValueError, match="safe file name"):
        write_submission(tmp_path, "../evil", [[A]], meta("t"))
    with pytest.raises(ValueError, match="t test 0 attempt 1"):
        write_submission(tmp_path, "t", [[[[1, 2], [3]]]], meta("t"))
    assert list(tmp_path.iterdir()) == []


def test_score_submission_dir_against_answers(tmp_path):
    answers = {
        "t1": Answers("t1", (A,)),
        "t2": Answers("t2", (A, B)),
        "t3": Answers("t3", (D,)),
        "t4": Answers("t4", (C,)),
        "t5": Answers("t5", (A, B)),
    }
    write_submission(tmp_path, "t1", [[C, A]], meta("t1"))             # second attempt right -> oracle2 1, oracle1 1/2
    write_submission(tmp_path, "t2", [[A, C], [C, C]], meta("t2", 2))  # test 0 right, test 1 wrong -> 1/2
    (tmp_path / "t3.json").write_text("{not json")          # unreadable -> 0, reported
    write_submission(tmp_path, "t5", [[A]], meta("t5"))     # one entry for two test inputs -> 0, reported
    write_submission(tmp_path, "zz", [[A]], meta("zz"))     # no answers for it -> 0, reported
    result = score_submission_dir(tmp_path, answers)
    assert result.missing == ["t4"] and result.unknown == ["zz"] and sorted(result.errors) == ["t3", "t5", "zz"]
    assert result.errors["t3"].startswith(f"{tmp_path / 't3.json'}: not valid JSON")
    assert result.errors["t5"] == f"{tmp_path / 't5.json'}: 1 test entries, but task t5 has 2 test inputs"
    assert result.errors["zz"] == f"{tmp_path / 'zz.json'}: no task zz to score against"
    assert result.tasks["t1"].oracle2 == 1.0 and result.tasks["t1"].oracle1 == 0.5
    assert result.tasks["t2"].oracle2 == 0.5 and result.tasks["t2"].strict == 0.0
    assert result.tasks["t5"].oracle2 == 0.0 and result.tasks["zz"].oracle2 == 0.0
    assert result.oracle2 == pytest.approx((1 + 0.5 + 0 + 0 + 0 + 0) / 6)
    assert result.oracle1 == pytest.approx((0.5 + 0.25 + 0 + 0 + 0 + 0) / 6)
    assert result.to_dict()["tasks"] == 6


def test_reads_submissions_made_by_other_tools(tmp_path):
    # bare grids instead of {"answer": ...}, extra keys, attempts out of order, empty answers
    (tmp_path / "t1.json").write_text(json.dumps([
        {"attempt_2": [[1, 2], [3, 4]], "attempt_1": [[9]], "note": "x"},
        {"attempt_1": {"answer": [], "metadata": None}, "attempt_2": {"answer": [[5, 5], [5, 5]]}},
    ]))
    assert read_submission(tmp_path / "t1.json") == [[((9,),), A], [None, B]]
    result = score_submission_dir(tmp_path, {"t1": Answers("t1", (A, B))})
    # attempt_1 = ([[9]], none), attempt_2 = (A, B): oracle2 = 1, oracle1 = (0 + 1)/2
    assert result.oracle2 == 1.0 and result.oracle1 == 0.5 and result.strict == 1.0
    (tmp_path / "t2.json").write_text(json.dumps({"attempt_1": []}))
    with pytest.raises(ValueError, match="one entry per test input"):
        read_submission(tmp_path / "t2.json")


def test_score_submission_dir_needs_a_directory(tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        score_submission_dir(tmp_path / "nope", {})
