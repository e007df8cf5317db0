"""solve and seed say what they do as they do it: the run id and directory first, then per task
its steps, elapsed time and running totals; plain lines off a terminal, a live display on one,
nothing with --quiet; stdout keeps only the result. The embedded model's assembly reports bytes."""

from __future__ import annotations

import io
import re

from click.testing import CliRunner
from runner_support import TASK_IDS, empty_memory, script_run

from arcmemo.cli import cli
from arcmemo.run.progress.reporter import PlainReporter, QuietReporter, Reporter, make_reporter

FAKE = ["--solver-model", "fake", "--aux-model", "fake", "--select-model", "fake"]


def solve(tmp_path, *args):
    return CliRunner().invoke(cli, ["solve", "--tasks", ",".join(TASK_IDS[:2]), "--retries", "1", "-n", "2",
                                    "--db", empty_memory(tmp_path / "m.db"), "--run-dir", str(tmp_path / "runs"),
                                    *FAKE, *args])


def test_solve_says_what_it_does_as_plain_lines(tmp_path, fake_model):
    script_run(fake_model, unsolved={TASK_IDS[1]})
    result = solve(tmp_path)
    assert result.exit_code == 0, result.output
    (run,) = (tmp_path / "runs").iterdir()
    lines = result.stderr.splitlines()
    assert lines[0] == f"started solve run {run.name} in {run}"           # first: what to --resume
    first, second = TASK_IDS[:2]
    for step in ("reading memory", "attempt 1 of 2", "attempt 2 of 2", "scoring"):
        assert f"[tasks 1/2] {first}: {step}" in lines
    assert not [line for line in lines if line.endswith(": selecting")]   # the empty memory asks no model to select
    assert f"[tasks 2/2] {second}: attempt 2 of 2, retry 1" in lines      # the unsolved one is retried
    done = [line for line in lines if line.startswith(f"[tasks 1/2] {first} solved")]
    assert len(done) == 1 and re.search(r"\(\d+:\d\d\) \| oracle@1 \(one thread\) 100\.0 · [\d,]+ tokens · \$0\.000$",
                                        done[0])
    assert "[tasks 2/2]" in lines[-1] and "oracle@1 (one thread) 50.0" in lines[-1]
    assert "started solve run" not in result.stdout and result.stdout.startswith(f"run {run.name}\n")


def test_selecting_is_said_when_the_read_asks_the_select_model(tmp_path, fake_model):
    from arcmemo.memory.store import Memory

    script_run(fake_model)
    with Memory(tmp_path / "m.db") as memory:
        memory.add({"format": "ps", "name": "recolour by table", "kind": "routine", "description": "a colour map"},
                   actor="test")
    result = solve(tmp_path)
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    first = TASK_IDS[0]
    assert lines.index(f"[tasks 1/2] {first}: reading memory") < lines.index(f"[tasks 1/2] {first}: selecting")
    assert fake_model.calls_for("select_ps")


def test_quiet_prints_no_progress(tmp_path, fake_model):
    script_run(fake_model)
    result = solve(tmp_path, "-q")
    assert result.exit_code == 0 and result.stderr == ""


def test_seed_progress_and_problems_on_their_own_lines(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "0d3d703e.py").write_text("def transform(grid):\n    return grid\n")
    result = CliRunner().invoke(cli, ["seed", str(seeds), "--db", str(tmp_path / "m.db"),
                                      "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith("started seed run ")
    assert "[verifying 1/1] 0d3d703e.py: running against every pair" in lines
    assert any(line.startswith(f"{seeds / '0d3d703e.py'}: train[0] wrong output") for line in lines)


def test_live_reporter_draws_and_prints_finished_items_above(tmp_path):
    from rich.console import Console

    from arcmemo.run.progress.live import LiveReporter

    out = io.StringIO()
    reporter = LiveReporter(Console(file=out, force_terminal=True, width=120))
    reporter.started("r1", tmp_path, kind="solve")
    for done in range(0, 101, 25):
        reporter.bytes("assembling the model file", done, 100)
    reporter.begin(2, "tasks")
    reporter.item("0d3d703e")
    reporter.step("attempt 1 of 2, retry 1")
    reporter.totals("oracle@2 100.0 · 1,234 tokens · $0.010")
    reporter.item_done("solved · 1 concepts offered")
    reporter.note("a note [not markup]")
    reporter.close()
    text = out.getvalue()
    assert "started solve run" in text and "0d3d703e solved · 1 concepts offered" in text
    assert "a note [not markup]" in text and "attempt 1 of 2, retry 1" in text


def test_reporters_for_terminals_pipes_and_quiet(monkeypatch):
    assert isinstance(make_reporter(quiet=True), QuietReporter)
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert isinstance(make_reporter(), PlainReporter)
    stream = io.StringIO()
    plain = PlainReporter(stream)
    for done in (0, 10, 55, 100):
        plain.bytes("assembling", done * 2**20, 100 * 2**20)
    assert stream.getvalue().splitlines() == ["assembling: 0 of 100 MiB", "assembling: 10 of 100 MiB",
                                              "assembling: 55 of 100 MiB", "assembling: 100 of 100 MiB"]
    Reporter().step("nothing happens")                       # the silent base


def test_the_embedded_models_assembly_reports_its_bytes(tmp_path, monkeypatch):
    from test_llm_local import _fake_parts

    from arcmemo.llm import weights

    spec, content = _fake_parts(tmp_path, monkeypatch)
    seen = []
    weights.assemble("local-small", tmp_path / "models", spec=spec, progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (len(content), len(content)) and all(t == len(content) for _, t in seen)
    seen.clear()
    weights.assemble("local-small", tmp_path / "models", spec=spec, progress=lambda *a: seen.append(a))
    assert seen == []                                         # assembled once: nothing to report later
