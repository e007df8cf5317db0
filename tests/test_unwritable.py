"""A file that cannot be written is named as the user gave it, with why (issue 39 points 6, 8):
every writer that writes through a temporary file (core/files.py) names its target, never the
temporary file, and says what is in the way."""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.core.files import atomic_write_json, unwritable
from arcmemo.llm import weights
from arcmemo.run.jobs.sweep import record_path, write_record
from arcmemo.run.records.rundir import RunDir
from arcmemo.web.report import write_report


def _run_file(path: Path) -> None:
    RunDir(path.parent).write_summary({})


# Each writer as (name, write(target)): a file at `target`, which must be the name it gives.
WRITERS = [
    ("runs report", lambda target: write_report(target, "<html></html>")),
    ("JSON files (submissions, runs export --kaggle, sweep records)", lambda target: atomic_write_json(target, {"a": 1})),
    ("a run directory's files", lambda target: _run_file(target.with_name("summary.json"))),
]


def _failure(write, target: Path) -> OSError:
    with pytest.raises(OSError) as info:
        write(target)
    return info.value


def test_a_report_into_a_folder_that_does_not_exist_names_the_folder(tmp_path):
    target = tmp_path / "missing" / "r.html"          # (the other writers make their folder)
    error = _failure(lambda path: write_report(path, "<html></html>"), target)
    assert error.filename == str(target) and ".tmp" not in str(error)
    assert error.strerror == f"cannot be written: the folder {tmp_path / 'missing'} does not exist"
    assert not target.parent.exists()


@pytest.mark.parametrize("name, write", WRITERS, ids=[w[0] for w in WRITERS])
def test_a_writer_whose_folder_is_a_file_says_so(tmp_path, name, write):
    (tmp_path / "notes.txt").write_text("not a folder")
    target = tmp_path / "notes.txt" / "summary.json"
    error = _failure(write, target)
    assert error.filename == str(target) and ".tmp" not in str(error)
    assert error.strerror == f"cannot be written: {tmp_path / 'notes.txt'} is a file, not a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("name, write", WRITERS, ids=[w[0] for w in WRITERS])
def test_a_writer_whose_target_is_a_folder_says_so_and_leaves_no_temporary_file(tmp_path, name, write):
    target = tmp_path / "summary.json"
    target.mkdir()
    error = _failure(write, target)
    assert error.filename == str(target) and error.strerror == "cannot be written: it is a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]


def test_a_sweep_record_that_cannot_be_written_is_named(tmp_path):
    (tmp_path / "runs").write_text("a file where the runs folder should be")
    with pytest.raises(OSError) as info:
        write_record(tmp_path / "runs", "grid", {"a": "b"})
    target = record_path(tmp_path / "runs", "grid")
    assert info.value.filename == str(target)
    assert info.value.strerror == f"cannot be written: {tmp_path / 'runs'} is a file, not a folder"


def test_assembling_the_model_on_a_full_disk_names_the_model_file(tmp_path, monkeypatch):
    part = tmp_path / "part1"
    part.write_bytes(b"weights")
    spec = weights.LocalModelSpec(name="t", title="t", distribution="t-part{i}", module="t_part{i}", version="1",
                                  parts=1, size=7, sha256=hashlib.sha256(b"weights").hexdigest(), filename="t.gguf")

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(src), str(dst))

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError) as info:
        weights.assemble("t", tmp_path / "models", parts=[part], spec=spec)
    assert info.value.filename == str(tmp_path / "models" / "t.gguf") and "part-" not in str(info.value)
    assert info.value.strerror == f"cannot be written: no space left for it in {tmp_path / 'models'}"


def test_the_command_line_names_the_folder_not_a_temporary_file(tmp_path, web_fixture):
    fx = web_fixture
    target = tmp_path / "nonexistent" / "r.html"
    result = CliRunner().invoke(cli, ["runs", "report", fx.continual, "--run-dir", fx.runs, "--db", fx.memory,
                                      "-o", str(target)])
    assert result.exit_code == 1 and ".tmp" not in result.output
    assert f"{target}: cannot be written: the folder {target.parent} does not exist" in result.output
    exported = CliRunner().invoke(cli, ["concepts", "export", str(target.with_name("m.yaml")), "--db", fx.memory])
    assert exported.exit_code == 1 and ".partial" not in exported.output
    assert f"the folder {target.parent} does not exist" in exported.output


def test_unwritable_keeps_the_class_and_errno_of_the_failure(tmp_path):
    error = unwritable(tmp_path / "x" / "y.json", FileNotFoundError(errno.ENOENT, "No such file", "/x/.y.json.tmp"))
    assert type(error) is FileNotFoundError and error.errno == errno.ENOENT
    assert str(tmp_path / "x" / "y.json") in str(error) and ".tmp" not in str(error)
