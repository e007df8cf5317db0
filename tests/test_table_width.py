"""Tables fit the terminal (issue 39 point 3): every command that prints a table, run at
COLUMNS=100 over the fixture memory and runs, prints no line wider than 100; the one table
printer (core/table.py) wraps its widest columns, or stacks a record per row when too wide."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.core.table import fitted, table, terminal_width

WIDTH = 100


@pytest.fixture(scope="module")
def fixture_env(web_fixture, tmp_path_factory):
    """The fixture's runs and memory, and a folder of per-task submissions for `runs score`."""
    submissions = web_fixture.runs / web_fixture.continual / "submissions"
    return SimpleNamespace(fx=web_fixture, submissions=submissions)


def commands(fx, submissions) -> list[list[str]]:
    runs, db = ["--run-dir", str(fx.runs)], ["--db", str(fx.memory)]
    a, b = fx.continual, fx.baseline
    return [
        ["runs", "list", *runs],
        ["runs", "show", a, *runs],
        ["runs", "show", a, "--tasks", *runs],
        ["runs", "show", a, "--task", fx.unsolved, *runs],
        ["runs", "compare", a, b, *runs],
        ["runs", "compare", a, b, "--mean", "--allow-mismatch", *runs],
        ["runs", "selections", a, "--reasoning", *runs],
        ["runs", "score", str(submissions), "--split", "training"],
        ["concepts", "list", *db],
        ["concepts", "stats", "--all", *db],
        ["concepts", "stats", "--run", a, *runs, *db],
        ["concepts", "history", *db],
        ["concepts", "search", "colour", *db],
        ["calls", "list", "--log", str(fx.root / "home" / "calls.db")],
        ["calls", "usage", "--log", str(fx.root / "home" / "calls.db"), "--by", "step"],
        ["methods", "list"],
        ["solvers", "list"],
        ["prompts", "list"],
        ["models", "list"],
        ["settings"],
        ["settings", "--verbose"],
    ]


def test_every_table_printing_command_fits_100_columns(fixture_env, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    monkeypatch.setenv("ARCMEMO_HOME", str(fixture_env.fx.root / "home"))
    wide = {}
    for args in commands(fixture_env.fx, fixture_env.submissions):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code in (0, 1), (args, result.output)       # score exits 1 for a task it scores 0
        assert result.stdout.strip(), args
        over = [line for line in result.stdout.splitlines() if len(line) > WIDTH]     # the tables: stdout
        if over:
            wide[" ".join(args[:2])] = over[:3]
    assert not wide, json.dumps(wide, indent=1)


def test_the_quickstart_and_sweep_tables_fit_too(fixture_env, monkeypatch):
    from arcmemo.cli.quickstart import _report
    from arcmemo.core.settings import Settings
    from arcmemo.run.jobs.sweep import sweep_table
    from arcmemo.run.records.reader import read_run
    from arcmemo.run.records.rundir import RunDir

    monkeypatch.setenv("COLUMNS", str(WIDTH))
    fx = fixture_env.fx
    dirs = [RunDir(fx.runs / fx.continual), RunDir(fx.runs / fx.baseline)]
    runners = [(SimpleNamespace(rundir=d), read_run(d).summary) for d in dirs]
    text = _report(runners, list(fx.tasks), Settings.load(runs_dir=str(fx.runs), db=str(fx.memory)), 12.0)
    text += "\n" + sweep_table(dirs)
    assert [line for line in text.splitlines() if len(line) > WIDTH] == []


def test_a_wide_table_wraps_its_widest_column_then_stacks_a_record_per_row():
    rows = [("20261129-031845-be3a54", "a long value " * 8, "ok")]
    wrapped = table(rows, ("run", "what", "state"), width=60)
    assert max(map(len, wrapped.splitlines())) <= 60
    assert wrapped.splitlines()[2].startswith("20261129-031845-be3a54  a long value")   # the run id is not cut
    many = table([tuple(f"value{i:02d}xx" for i in range(12))], tuple(f"column {i}" for i in range(12)), width=60)
    assert many.splitlines()[:2] == ["column 0:  value00xx", "column 1:  value01xx"]     # one record, stacked
    assert table(rows, ("run", "what", "state"), width=None) == table(rows, ("run", "what", "state"), width=500)


def test_widths_are_narrowed_evenly_and_never_below_the_floor():
    assert fitted([50, 80], 62) == [30, 30]
    assert fitted([5, 200], 40) == [5, 33]
    assert fitted([30] * 12, 100) is None


def test_the_width_is_columns_else_no_limit_off_a_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert terminal_width() == 100
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() is None          # pytest's output is not a terminal: a script reads whole rows


def test_headers_wrap_before_values_and_a_few_wide_records_are_turned():
    rows = [("t1", "1.00", "0.50"), ("t2", "0.00", "0.00")]
    header = ("task", "oracle@1 over its threads", "submitted oracle@1")
    lines = table(rows, header, width=40).splitlines()
    assert lines[:2] == ["task  oracle@1 over     submitted", "      its threads       oracle@1"]
    assert lines[3:] == ["t1    1.00              0.50", "t2    0.00              0.00"]    # values on one line
    runs = [(f"2026112{i}-031845-be3a54", "ps", "oracle@1 (one thread)", "100.00", "2921", "0.0000", "fake")
            for i in range(2)]
    turned = table(runs, ("run", "selection", "statistic", "ARC Prize score (2 submitted attempts)", "tokens",
                          "cost USD", "solver model"), width=80).splitlines()
    assert turned[0].split() == ["run", "20261120-031845-be3a54", "20261121-031845-be3a54"]
    assert turned[2].split() == ["selection", "ps", "ps"] and max(map(len, turned)) <= 80
