"""`arcmemo solve --tasks`: any number of ids (commas, spaces, repeated flags, files of ids);
a value is read as a file only when it names one (32 ids joined were tried as a file name
and failed with "File name too long")."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from runner_support import TASK_IDS, script_run

from arcmemo.cli import cli
from arcmemo.cli.runplan import task_selection as _task_selection
from arcmemo.cli.solve import solve
from arcmemo.core.tasks import load_tasks

FAKE = ["--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"]


def selection(*values: str) -> tuple[str, list[str] | None]:
    return _task_selection(None, None, None, None, values)


def test_32_ids_in_one_value_are_ids_not_a_file_name(tmp_path, fake_model):
    ids = [t.id for t in load_tasks("training").tasks[:16] + load_tasks("evaluation").tasks[:16]]
    assert selection(",".join(ids)) == ("all", ids)             # both splits: ids without a split
    script_run(fake_model)
    result = CliRunner().invoke(cli, ["solve", "--tasks", ",".join(ids), "--limit", "1", "--selection", "none",
                                      "--retries", "0", "-q", "--db", str(tmp_path / "m.db"),
                                      "--run-dir", str(tmp_path / "runs"), *FAKE])
    assert result.exit_code == 0, result.output
    assert "File name too long" not in result.output


def test_commas_spaces_repeated_flags_and_files_mix(tmp_path, monkeypatch):
    listed = tmp_path / "ids.txt"
    listed.write_text(f"# two more\n{TASK_IDS[3]}\n{TASK_IDS[4]}, {TASK_IDS[0]}\n")
    values = [f"{TASK_IDS[0]},{TASK_IDS[1]}", f"{TASK_IDS[2]}  {TASK_IDS[1]}", str(listed)]
    # in the order given, each id once
    assert selection(*values) == ("all", TASK_IDS[:5])
    params = solve.make_context("solve", [arg for v in values for arg in ("--tasks", v)]).params
    assert params["tasks"] == tuple(values)
    # a value naming a file is a file, even one named like a task id
    monkeypatch.chdir(tmp_path)
    (tmp_path / TASK_IDS[5]).write_text(TASK_IDS[1])
    assert selection(TASK_IDS[5]) == ("all", [TASK_IDS[1]])
    assert selection() == ("training", None)                    # no --tasks: the default split


@pytest.mark.parametrize("value, message", [
    ("{tmp}/missing.txt", "'{tmp}/missing.txt': not a file, nor a task id"),
    ("{tmp}", "'{tmp}': not a file, nor a task id"),
    ("{tmp}/empty.txt", "no task ids in {tmp}/empty.txt"),
    ("{tmp}/bad.txt", "{tmp}/bad.txt: task id '../x' is not a usable id"),
    (" , ", "no task ids in ' , '"),
])
def test_what_is_neither_ids_nor_a_file_of_them_is_named(tmp_path, value, message):
    (tmp_path / "empty.txt").write_text("# nothing\n")
    (tmp_path / "bad.txt").write_text("0d3d703e\n../x\n")
    result = CliRunner().invoke(cli, ["solve", "--tasks", value.format(tmp=tmp_path), "--selection", "none",
                                      "--db", str(tmp_path / "m.db"), *FAKE])
    assert result.exit_code == 2 and message.format(tmp=tmp_path) in result.output, result.output
    assert len(result.output.strip().splitlines()) <= 4 and not (tmp_path / "m.db").exists()


@pytest.mark.parametrize("text, ids", [
    (f"tasks: {TASK_IDS[0]},{TASK_IDS[1]}\n", (f"{TASK_IDS[0]},{TASK_IDS[1]}",)),
    (f"tasks: [{TASK_IDS[0]}, {TASK_IDS[1]}]\n", (TASK_IDS[0], TASK_IDS[1])),
])
def test_a_run_configuration_gives_tasks_as_one_value_or_a_list(tmp_path, text, ids):
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    params = solve.make_context("solve", ["--config", str(path)]).params
    assert params["tasks"] == ids and selection(*params["tasks"])[1] == TASK_IDS[:2]
