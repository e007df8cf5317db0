"""The CLI-wide rules: numeric options range-checked by click before any side effect; a user
error is one or two lines naming what and where, no traceback; a bug keeps its traceback;
bad input files (missing, empty, a directory, not UTF-8) are clean errors."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner
from runner_support import TASK_IDS, empty_memory, script_run

from arcmemo.cli import cli

FAKE = ["--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"]
# numeric options that may take any value
UNBOUNDED = {("solve", "--seed")}


def all_commands(group: click.Group, prefix=()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from all_commands(command, prefix + (name,))
        else:
            yield " ".join(prefix + (name,)), command


def test_every_numeric_option_is_range_checked():
    unchecked = []
    for path, command in all_commands(cli):
        for param in command.params:
            numeric = isinstance(param.type, (click.types.IntParamType, click.types.FloatParamType))
            if numeric and not isinstance(param.type, (click.IntRange, click.FloatRange)) \
                    and (path, param.opts[0]) not in UNBOUNDED:
                unchecked.append(f"{path} {param.opts[0]}")
    assert unchecked == []


def test_every_option_has_help():
    missing = [f"{path} {p.opts[0]}" for path, command in all_commands(cli) for p in command.params
               if isinstance(p, click.Option) and not p.help and p.opts[0] != "--help"]
    assert missing == []


@pytest.mark.parametrize("args, message", [
    (["--limit", "-1"], "--limit must be at least 1, got -1"),
    (["--limit", "0"], "--limit must be at least 1, got 0"),
    (["--top-k", "0", "--selection", "oe"], "--top-k must be at least 1, got 0"),
    (["--continual", "-k", "0"], "-k must be at least 1, got 0"),
    (["--attempts", "0"], "--attempts must be at least 1"),
    (["--retries", "-1"], "--retries must be at least 0"),
    (["--passes", "0"], "--passes must be at least 1"),
    (["--max-tokens", "0"], "--max-tokens must be at least 1"),
    (["--concurrency", "0"], "--concurrency must be at least 1"),
    (["--budget-usd", "0"], "--budget-usd must be above 0"),
    (["--temperature", "-0.5"], "--temperature must be at least 0"),
    (["--temperature", "nan"], "--temperature must be at least 0"),
])
def test_bad_numbers_fail_before_anything_exists(tmp_path, fake_model, args, message):
    db, runs = tmp_path / "memory.db", tmp_path / "runs"
    result = CliRunner().invoke(cli, ["solve", "--tasks", TASK_IDS[0], "--db", str(db), "--run-dir", str(runs),
                                      *FAKE, *args])
    assert result.exit_code == 2 and message in result.output, result.output
    assert "Traceback" not in result.output
    assert not db.exists() and not runs.exists() and fake_model.calls == []


def test_a_read_only_solve_needs_a_memory_that_exists(tmp_path, fake_model):
    """A mistyped --db (or a config's relative path) must not read an empty memory made on the spot."""
    db, runs = tmp_path / "typo.db", tmp_path / "runs"
    args = ["solve", "--tasks", TASK_IDS[0], "--db", str(db), "--run-dir", str(runs), *FAKE]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1 and f"no memory database at {db}" in result.output, result.output
    assert not db.exists() and not runs.exists() and fake_model.calls == []
    script_run(fake_model)
    for more in (["--selection", "none"], ["--continual"]):      # reads nothing, or may start from nothing
        result = CliRunner().invoke(cli, args + more + ["-q"])
        assert result.exit_code == 0, result.output


def test_a_bug_keeps_its_traceback_and_the_run_says_how_to_resume(tmp_path, fake_model, monkeypatch):
    from arcmemo.run.loop import Runner

    script_run(fake_model)

    def broken(self, task, p):
        raise KeyError("internal bug")

    monkeypatch.setattr(Runner, "_solve", broken)
    result = CliRunner().invoke(cli, ["solve", "--tasks", TASK_IDS[0], "--db", empty_memory(tmp_path / "m.db"),
                                      "--run-dir", str(tmp_path / "runs"), *FAKE])
    assert result.exit_code == 1
    assert "Traceback" in result.output and "KeyError: 'internal bug'" in result.output
    (run,) = (tmp_path / "runs").iterdir()
    assert f"arcmemo solve --resume {run}" in result.output
    from arcmemo.run.records.rundir import RunDir

    assert RunDir(run).status()["status"] == "failed"


def test_a_bug_outside_a_run_is_not_dressed_as_a_user_error(tmp_path, monkeypatch):
    import arcmemo.run.session as session

    def broken(*args, **kwargs):
        raise ValueError("internal bug")

    monkeypatch.setattr(session.RunSession, "new_solve", broken)
    result = CliRunner().invoke(cli, ["solve", "--tasks", TASK_IDS[0], "--db", str(tmp_path / "m.db"), *FAKE])
    assert isinstance(result.exception, ValueError)      # raised on: click does not turn it into "Error: ..."


def bad_files(tmp_path):
    """missing, empty, a directory, not UTF-8"""
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "adir").mkdir()
    (tmp_path / "bytes.json").write_bytes(b"\xff\xfe\x00{")
    return {"missing": tmp_path / "missing.json", "empty": tmp_path / "empty.json", "directory": tmp_path / "adir",
            "binary": tmp_path / "bytes.json"}


@pytest.mark.parametrize("kind", ["missing", "empty", "directory", "binary"])
@pytest.mark.parametrize("command", [
    ["solve", "--selection", "none", "--split", "{}"],
    ["solve", "--selection", "none", "--tasks", "{}"],
    ["select", "{}", "--mode", "none"],
    ["seed", "{}", "--check"],
    ["runs", "score", "{}"],
    ["runs", "show", "{}"],
])
def test_bad_input_files_are_one_or_two_clean_lines(tmp_path, command, kind):
    path = bad_files(tmp_path)[kind]
    args = [str(path) if part == "{}" else part for part in command]
    result = CliRunner().invoke(cli, args + (["--db", str(tmp_path / "m.db")] if args[0] != "runs" else []))
    assert result.exit_code in (1, 2), result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    error = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert error and len(result.output.strip().splitlines()) <= 4, result.output
    assert not (tmp_path / "m.db").exists()
