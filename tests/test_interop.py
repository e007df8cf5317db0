"""ARC ecosystem interop: scoring other tools' submissions (folders and Kaggle files, any
split, inferred or given), exporting a run for Kaggle and the harness, runs on task files
without answers, and the round trip run -> export both ways -> re-score."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from harness_schema import validate_file
from runner_support import TASK_IDS, script_run

from arcmemo.cli import cli
from arcmemo.core.tasks import TaskError, load_tasks, to_lists
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.run.records.report import summary_table
from arcmemo.sandbox import get_sandbox
from arcmemo.scoring import read_kaggle, rescore
from arcmemo.solverkit import load_solver

TRAINING = ["007bbfb7", "00d62c1b"]        # ARC-AGI-1 training, one test input each
EVAL2 = "135a2760"                          # ARC-AGI-2 evaluation only
TASK_SEEDS = Path(__file__).resolve().parents[1] / "seeds"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def answer(source, task_id, j=0):
    return to_lists(load_tasks(source, ids=[task_id]).answers[task_id].test_outputs[j])


def bare(path, task_id, *entries):
    """A per-task file as other tools write it: bare grids under attempt_N."""
    path.mkdir(exist_ok=True)
    (path / f"{task_id}.json").write_text(json.dumps(list(entries)))


def test_the_split_is_inferred_from_the_task_ids(tmp_path):
    right, wrong = answer("training", TRAINING[0]), [[0]]
    bare(tmp_path / "a", TRAINING[0], {"attempt_1": wrong, "attempt_2": right})
    bare(tmp_path / "a", TRAINING[1], {"attempt_1": wrong, "attempt_2": None})
    scored = rescore(tmp_path / "a")
    assert (scored.source, scored.inferred, scored.label) == ("training", True, "arc-agi-1 training")
    assert scored.result.oracle2 == 0.5 and scored.result.oracle1 == 0.25 and not scored.result.errors
    assert len(rescore(tmp_path / "a", all_tasks=True).result.tasks) == 400
    bare(tmp_path / "b", EVAL2, {"attempt_1": answer("arc-agi-2/evaluation", EVAL2)})
    scored = rescore(tmp_path / "b")
    assert scored.label == "arc-agi-2 evaluation" and scored.result.oracle2 == 1.0


def test_tasks_of_another_split_are_refused_naming_how_many_and_where(tmp_path):
    for task_id in TRAINING:
        bare(tmp_path, task_id, {"attempt_1": [[0]]})
    result = invoke("runs", "score", tmp_path, "--split", "evaluation")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert ("2 of 2 submitted tasks are not in arc-agi-1 evaluation: 2 in arc-agi-1 training "
            "(007bbfb7, 00d62c1b)") in result.output
    result = invoke("runs", "score", tmp_path, "--dataset", "arc-agi-2", "--split", "evaluation")
    assert "2 of 2 submitted tasks are not in arc-agi-2 evaluation: 2 in arc-agi-2 training" in result.output
    result = invoke("runs", "score", tmp_path, "--dataset", "arc-agi-2", "--split", "val100")
    assert result.exit_code == 1 and "arc-agi-2 has no split 'val100'" in result.output


def test_bad_submissions_are_named_scored_zero_and_the_rest_scored(tmp_path):
    right = answer("training", TRAINING[0])
    bare(tmp_path, TRAINING[0], {"attempt_1": right})
    bare(tmp_path, TRAINING[1], {"attempt_1": [[1, 2], [3]]})                 # not rectangular
    bare(tmp_path, "0520fde7", {"attempt_1": [[0]]}, {"attempt_1": [[0]]})    # one test input, two entries
    bare(tmp_path, "zzzz0000", {"attempt_1": [[0]]})                          # no such task anywhere
    (tmp_path / "0a938d79.json").write_text("[{")                               # not JSON
    result = invoke("runs", "score", tmp_path, "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["tasks"] == 5 and data["oracle2"] == pytest.approx(1 / 5)
    assert data["scored_against"] == "arc-agi-1 training" and data["inferred"]
    errors = data["errors"]
    assert errors[TRAINING[1]] == f"{tmp_path / '00d62c1b.json'}: entry 0 attempt_1 row 1: 1 cells, expected 2 " \
                                  "(grid not rectangular)"
    assert errors["0520fde7"] == f"{tmp_path / '0520fde7.json'}: 2 test entries, but task 0520fde7 has 1 test input"
    assert errors["zzzz0000"] == f"{tmp_path / 'zzzz0000.json'}: no task zzzz0000 to score against"
    assert errors["0a938d79"].startswith(f"{tmp_path / '0a938d79.json'}: not valid JSON")
    for message in errors.values():
        assert message in result.stderr


def test_a_kaggle_file_with_a_bad_entry(tmp_path):
    path = tmp_path / "submission.json"
    right = answer("training", TRAINING[0])
    path.write_text(json.dumps({TRAINING[0]: [{"attempt_1": [[0]], "attempt_2": right}],
                                TRAINING[1]: [{"attempt_1": "[[1]]", "attempt_2": [[0]]}]}))
    predictions, origins, errors = read_kaggle(path)
    assert errors == {TRAINING[1]: f"{path}: task {TRAINING[1]}: entry 0 attempt_1: expected a non-empty "
                                   "list of rows, got str"}
    scored = rescore(path)
    assert scored.result.oracle2 == 0.5 and scored.result.oracle1 == 0.25
    result = invoke("runs", "score", path)
    assert result.exit_code == 1 and re.search(r"ARC Prize score \(2 submitted attempts\) +50\.00", result.stdout)


def values(scores):
    return {t: (s.oracle1, s.oracle2, s.strict) for t, s in scores.items()}


def _run(tmp_path, llm, **settings):
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = RunConfig(**{"source": "training", "retries": 0, "selection": "none", **settings})
    runner = new_runner(config, memory=Memory(str(tmp_path / "memory.db")), make_llm=lambda run_id: llm,
                        sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                        runs_root=str(tmp_path / "runs"))
    return runner, runner.run()


def test_round_trip_run_export_both_ways_rescore(tmp_path, fake_model, fake_llm):
    ids = TASK_IDS[:3]
    script_run(fake_model, task_ids=ids, unsolved={ids[1]})
    runner, summary = _run(tmp_path, fake_llm, task_ids=ids)
    assert summary["tasks"] == 3 and summary["oracle2"] == pytest.approx(200 / 3, abs=0.01)
    root, run_id = tmp_path / "runs", runner.rundir.run_id
    kaggle, harness = tmp_path / "submission.json", tmp_path / "harness"
    result = invoke("runs", "export", run_id, "--run-dir", root, "--kaggle", kaggle, "--harness", harness)
    assert result.exit_code == 0, result.output
    assert f"{kaggle}: 400 tasks, 3 from the run, 397 not reached (placeholder [[0]])" in result.output
    assert f"{harness}: 3 submission files" in result.output
    data = json.loads(kaggle.read_text())
    assert list(data) == [t.id for t in load_tasks("training")]           # every task of the split, in order
    assert data["007bbfb7"] == [{"attempt_1": [[0]], "attempt_2": [[0]]}]
    assert data[ids[0]][0]["attempt_1"] == answer("training", ids[0])
    for task_id in ids:
        validate_file(json.loads((harness / f"{task_id}.json").read_text()), 1)

    from_kaggle = invoke("runs", "score", kaggle, "--json")
    from_folder = invoke("runs", "score", harness, "--all", "--json")
    assert from_kaggle.exit_code == from_folder.exit_code == 0, from_kaggle.output + from_folder.output
    a, b = json.loads(from_kaggle.output), json.loads(from_folder.output)
    assert a["tasks"] == b["tasks"] == 400 and a["errors"] == b["errors"] == {} and len(b["missing"]) == 397
    # per task the two shapes score alike, but for one task a placeholder is right: the second
    # test output of training task 239be575 is [[0]] (0.5 of a task in 400: 0.125 points)
    kaggle_tasks = values(rescore(kaggle).result.tasks)
    folder_tasks = values(rescore(harness, all_tasks=True).result.tasks)
    assert kaggle_tasks.keys() == folder_tasks.keys()
    assert [t for t in kaggle_tasks if kaggle_tasks[t] != folder_tasks[t]] == ["239be575"]
    assert kaggle_tasks["239be575"] == (0.5, 0.5, 0.0) and a["oracle2"] - b["oracle2"] == pytest.approx(0.5 / 400)
    # the run's own tasks: identical from either shape, and equal to the run's summary
    run_tasks = {t: kaggle_tasks[t] for t in ids}
    assert run_tasks == {t: folder_tasks[t] for t in ids} == values(rescore(harness).result.tasks)
    only_run = json.loads(invoke("runs", "score", harness, "--json").output)
    assert only_run["tasks"] == 3
    assert [round(100 * only_run[k], 2) for k in ("oracle1", "oracle2", "strict")] == \
        [summary[k] for k in ("oracle1", "oracle2", "strict")]
    assert run_tasks == {t: tuple(summary["per_task"][t][k] for k in ("oracle1", "oracle2", "strict")) for t in ids}


CHALLENGES = "challenges.json"


def _challenges(tmp_path, ids, with_outputs=()):
    tasks = load_tasks("training", ids=ids)
    data = {}
    for task in tasks:
        entry = task.to_dict()
        del entry["id"]
        if task.id in with_outputs:
            entry["test"] = [{"input": t["input"], "output": to_lists(o)}
                             for t, o in zip(entry["test"], tasks.answers[task.id].test_outputs)]
        data[task.id] = entry
    path = tmp_path / CHALLENGES
    path.write_text(json.dumps(data))
    solutions = tmp_path / "solutions.json"
    solutions.write_text(json.dumps({t.id: [to_lists(g) for g in tasks.answers[t.id].test_outputs] for t in tasks}))
    return path, solutions


def test_a_run_without_answers_solves_and_says_the_score_is_unknown(tmp_path, fake_model, fake_llm):
    ids = TASK_IDS[:2]
    script_run(fake_model, task_ids=ids)
    challenges, solutions = _challenges(tmp_path, ids)
    runner, summary = _run(tmp_path / "bare", fake_llm, source=str(challenges))
    assert summary["scored"] is False and summary["oracle2"] is None and summary["tasks"] == 2
    assert summary["passed_train"] == sorted(ids) and summary["solved"] == []
    assert "ARC Prize score" in summary_table(summary) and "unknown (no test outputs)" in summary_table(summary)
    assert sorted(p.stem for p in runner.rundir.submissions.iterdir()) == sorted(ids)
    _, scored = _run(tmp_path / "scored", fake_llm, source=str(challenges), solutions=str(solutions))
    assert scored["scored"] is True and scored["oracle2"] == 100.0
    shown = invoke("runs", "show", runner.rundir.run_id, "--run-dir", tmp_path / "bare" / "runs", "--tasks")
    assert shown.exit_code == 0 and "unknown (no test outputs)" in shown.output


def test_some_tasks_without_answers_are_refused_before_any_model_call(tmp_path, fake_model, fake_llm):
    ids = TASK_IDS[:2]
    script_run(fake_model, task_ids=ids)
    challenges, _ = _challenges(tmp_path, ids, with_outputs={ids[0]})
    with pytest.raises(TaskError, match=rf"1 of 2 tasks have no test outputs .*task '{ids[1]}'.*--no-score"):
        _run(tmp_path, fake_llm, source=str(challenges))
    assert fake_model.calls == []
    _, summary = _run(tmp_path, fake_llm, source=str(challenges), score=False)
    assert summary["tasks"] == 2 and summary["scored"] is False


def test_solve_cli_names_a_malformed_task_file_before_opening_anything(tmp_path):
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "aaa.json").write_text(json.dumps({"train": [{"input": [[1]], "output": [[1]]}],
                                                 "test": [{"input": [[1, 2], [3]]}]}))
    result = invoke("solve", "--tasks-from", folder, "--db", tmp_path / "memory.db", "--run-dir", tmp_path / "runs",
                    "--solver-model", "nope-no-such-endpoint")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{folder / 'aaa.json'}: test[0].input row 1: 1 cells, expected 2" in result.output
    for bad, message in ((["--tasks-from", folder, "--split", "training"], "leave out --split and --dataset"),
                         (["--solutions", folder / "aaa.json"], "--solutions goes with --tasks-from"),
                         (["--dataset", "arc-agi-2", "--split", "val100"], "arc-agi-2 has no split 'val100'")):
        result = invoke("solve", *bad, "--db", tmp_path / "memory.db", "--run-dir", tmp_path / "runs")
        assert result.exit_code != 0 and message in result.output, result.output
    assert not (tmp_path / "runs").exists()


def test_kaggle_export_fills_what_kaggle_needs(tmp_path):
    from arcmemo.scoring import write_kaggle

    tasks = load_tasks("training", ids=["3428a4f5", "0d3d703e", "1e0a9b12"])   # 2, 1 and 1 test inputs
    g = ((1, 2),)
    done = write_kaggle(tmp_path / "s.json", tasks, {"3428a4f5": [[g], []], "0d3d703e": [[g, ((3,),)]]})
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["3428a4f5"] == [{"attempt_1": [[1, 2]], "attempt_2": [[1, 2]]},     # one guess, twice
                                {"attempt_1": [[0]], "attempt_2": [[0]]}]           # no grid: placeholder
    assert data["0d3d703e"] == [{"attempt_1": [[1, 2]], "attempt_2": [[3]]}]
    assert data["1e0a9b12"] == [{"attempt_1": [[0]], "attempt_2": [[0]]}]
    assert (done.tasks, done.placeholder_tasks, done.empty_tests, done.repeated) == (3, ["1e0a9b12"], 1, 1)


def test_select_and_seed_take_the_dataset(tmp_path):
    db = tmp_path / "memory.db"
    found = invoke("select", EVAL2, "--dataset", "arc-agi-2", "--mode", "none", "--db", db, "--json")
    assert found.exit_code == 0, found.output
    missing = invoke("select", EVAL2, "--mode", "none", "--db", db)
    assert missing.exit_code == 1 and f"no task '{EVAL2}' in arc-agi-1 training + evaluation" in missing.output
    in_split = invoke("select", "007bbfb7", "--dataset", "arc-agi-2", "--split", "training", "--mode", "none",
                      "--db", db)
    assert in_split.exit_code == 0, in_split.output
    # 3428a4f5 is in both datasets (with other test pairs in ARC-AGI-2): its seed passes both
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for name in ("3428a4f5.py", "3428a4f5.yaml", "memory_helpers.py"):   # the seed, its concepts, their helpers
        (seeds / name).write_text((TASK_SEEDS / name).read_text())
    one = invoke("seed", seeds, "--check", "--dataset", "arc-agi-2", "--no-progress", "--db", db)
    two = invoke("seed", seeds, "--check", "--no-progress", "--db", db)
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    assert re.search(r"verified +1", one.output) and re.search(r"verified +1", two.output)
    # 9ecd008a is an ARC-AGI-1 training task that ARC-AGI-2 dropped
    (seeds / "9ecd008a.py").write_text((TASK_SEEDS / "9ecd008a.py").read_text())
    one = invoke("seed", seeds, "--check", "--dataset", "arc-agi-2", "--no-progress", "--db", db)
    assert "no ARC task 9ecd008a in 'arc-agi-2/training'" in one.output and re.search(r"verified +1", one.output)
    nowhere = invoke("seed", seeds, "--check", "--tasks-from", tmp_path / "nothing.json", "--no-progress")
    assert nowhere.exit_code != 0 and "nothing.json" in nowhere.output
