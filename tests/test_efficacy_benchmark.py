"""benchmarks/efficacy_methods.py: memory methods on equal terms, the table what the rows' records say.

The fast tests run two rows (none, cheatsheet) in-process with the scripted fake model, laid out
as the benchmark lays its rows out (each its own memory and call log), and check the table's
cells against the script and the records; the slow one runs the benchmark itself (every row a
real `arcmemo solve` process, seeded starts a real `arcmemo seed`), then again from the records
it wrote, and once more after a row's run lost its summary.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from runner_support import TASK_IDS, script_run, seed_code, task_of

from benchmarks import efficacy_methods as em

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOLVED_FIRST, SOLVED_ON_RETRY = TASK_IDS[:2]       # one block each (k=1)
SHEET = "<cheatsheet>\n- build a colour table from the train pairs and apply it cell by cell\n</cheatsheet>"


def _script(fake):
    """The first task solved at once, the second only on its retry (after feedback); the
    cheatsheet curator answers with one sheet."""
    script_run(fake)

    def solve(messages):
        task_id = task_of(messages)
        retried = any(m["role"] == "assistant" for m in messages)
        if task_id == SOLVED_ON_RETRY and not retried:
            return "```python\ndef transform(grid):\n    return [[0]]\n```"
        return f"```python\n{seed_code(task_id)}\n```"

    fake.on("solve", solve)
    fake.on("cheatsheet", lambda messages: SHEET)


def _grid(work: Path) -> em.Grid:
    return em.Grid(settings=("--tasks", f"{SOLVED_FIRST},{SOLVED_ON_RETRY}", "--continual", "-k", "1", "--retries",
                             "1"), work=work, arcmemo=("arcmemo",), model="fake")


def _run_row(row: em.Row, grid: em.Grid, monkeypatch) -> None:
    """The row's solve as the benchmark would start it, here in-process with the fake model and the
    row's own call log."""
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.memory.store import Memory
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    root = grid.work / row.name
    start, seeded_by = em.start_memory(grid, row)
    root.mkdir(parents=True)
    em.copy_memory(str(start), root / "memory.db")
    (root / "row.json").write_text(json.dumps(em.row_record(row, grid, em.solve_command(grid, row, root, resume=False),
                                                            seeded_by)))
    monkeypatch.setenv("ARCMEMO_LOG_DB", str(root / "calls.db"))
    models = LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", backoff_base_s=0.001)
    made = []

    def make_llm(run_id):
        made.append(LLM(models, run_id=run_id))
        return made[-1]

    config = RunConfig(source="training", task_ids=[SOLVED_FIRST, SOLVED_ON_RETRY], selection=row.method,
                       continual=True, k=1, retries=1, probe_helpers=row.probe)
    with Memory(str(root / "memory.db")) as memory:
        new_runner(config, memory=memory, make_llm=make_llm, sandbox=get_sandbox(),
                   solver=load_solver("program-synthesis"), runs_root=str(root / "runs")).run()
    made[0].close()


@pytest.fixture
def two_rows(tmp_path, fake_model, monkeypatch):
    _script(fake_model)
    grid = _grid(tmp_path)
    rows = [em.Row("none.plain.empty", "none"), em.Row("cheatsheet.plain.empty", "cheatsheet")]
    for row in rows:
        _run_row(row, grid, monkeypatch)
    return grid, [em.read_row(row, tmp_path / row.name) for row in rows]


def test_the_grid_is_every_method_by_probe_and_start():
    rows, notes = em.plan_rows(["none", "ps", "ace"], (), available=set())
    assert [(r.name, r.method, r.probe, r.start) for r in rows] == [
        ("none.probe.empty", "none", True, "empty"), ("none.plain.empty", "none", False, "empty"),   # learns nothing
        ("ps.plain.empty", "ps", False, "empty"),             # probed, ps's own items are memory's helper library
        ("ps.probe.seeded", "ps", True, "seeded"), ("ps.plain.seeded", "ps", False, "seeded"),
        ("ace.probe.empty", "ace", True, "empty"), ("ace.plain.empty", "ace", False, "empty"),
        ("ace.probe.seeded", "ace", True, "seeded"), ("ace.plain.seeded", "ace", False, "seeded")]
    rows, notes = em.plan_rows(["ps"], None, probes=(False,), starts=("empty",), available={"--use-prior"})
    assert [r.name for r in rows] == ["ps.plain.empty", "ps.plain.empty+use-prior"]
    assert notes[0].startswith("ablation learn-from-failures: not in this arcmemo")
    with pytest.raises(em.RowError, match="unknown ablation"):
        em.plan_rows(["ps"], ["prior"], available=set())


def test_the_table_is_what_the_records_say(two_rows):
    grid, results = two_rows
    header, rows = em.table(results)
    cells = {row[0]: dict(zip(header, row)) for row in rows}
    for name in ("none.plain.empty", "cheatsheet.plain.empty"):
        # the script: one task solved at depth 0, the other at depth 1
        assert (cells[name]["state"], cells[name]["solved"], cells[name]["passed train"]) == ("done", "2/2", 2)
    # memory: none learns nothing; the cheatsheet writes its sheet after both tasks
    assert cells["none.plain.empty"]["writes (failed)"] == "0 (0)"
    assert cells["cheatsheet.plain.empty"]["writes (failed)"] == "2 (0)"
    assert cells["none.plain.empty"]["items start>end"] == "0>0" and cells["cheatsheet.plain.empty"][
        "items start>end"] == "0>1"
    # every row asked afresh in its own call log: no call of the cheatsheet row was answered from none's
    none, sheet = results
    for result, name in ((none, "none.plain.empty"), (sheet, "cheatsheet.plain.empty")):
        usage = result.summary["usage"]
        assert cells[name]["calls (cached)"] == f"{usage['calls']} (0)"
        assert cells[name]["tokens in/out"] == f"{usage['prompt_tokens']}/{usage['completion_tokens']}"
    assert cells["cheatsheet.plain.empty"]["vs none"] == "+0 -0 of 2 (p 1.00)"
    assert cells["none.plain.empty"]["vs none"] == "-"
    notes = em.notes(results)
    assert f"vs none over {SOLVED_FIRST}, {SOLVED_ON_RETRY}" in notes[1]


def test_a_cached_call_costs_nothing_and_is_counted_as_cached(two_rows, monkeypatch, fake_model):
    grid, (none, _) = two_rows
    root = grid.work / "none.plain.empty"
    before = em.asked_usage(none.run.run_id, root / "calls.db")
    from arcmemo.llm.log import CallLog

    with CallLog(str(root / "calls.db")) as log:
        call = log.list(run_id=none.run.run_id, limit=None)[0]
        log.record(run_id=call.run_id, task_id=call.task_id, role=call.role, step=call.step, sample=call.sample,
                   model=call.model, endpoint=call.endpoint, key=call.cache_key, request=call.request,
                   response_text=call.response_text, prompt_tokens=call.prompt_tokens,
                   completion_tokens=call.completion_tokens, reasoning_tokens=0, latency_s=5.0, cost_usd=1.0,
                   cached=True, attempts=1, error=None, error_kind=None)
    after = em.asked_usage(none.run.run_id, root / "calls.db")
    assert after["calls"] == before["calls"] + 1 and after["cached"] == before["cached"] + 1
    assert (after["prompt_tokens"], after["seconds"], after["cost_usd"]) == (before["prompt_tokens"],
                                                                             before["seconds"], before["cost_usd"])


def test_a_row_started_otherwise_is_refused_naming_what_differs(two_rows):
    grid, _ = two_rows
    row = em.Row("none.plain.empty", "none")
    root = grid.work / row.name
    recorded = json.loads((root / "row.json").read_text())
    assert em.check_row(row, root, recorded) is True
    with pytest.raises(em.RowError, match=r"model 'fake' -> 'other'"):
        em.check_row(row, root, {**recorded, "model": "other"})
    (root / "row.json").unlink()
    with pytest.raises(em.RowError, match="did not start"):
        em.check_row(row, root, recorded)


def test_sign_test():
    assert em.sign_test(0, 0) == em.sign_test(1, 1) == 1.0
    assert em.sign_test(6, 0) == em.sign_test(0, 6) == 2 / 64
    assert em.sign_test(3, 1) == 2 * 5 / 16


def test_a_record_keeps_the_grid_not_how_it_was_reported():
    """settings.json's command reruns the grid: a report's --report, --records and --from-records
    would make `--from-records` print a table instead of running one."""
    argv = ["--tasks", "a,b", "--report", "--records", "out", "--model", "local", "--records=x",
            "--from-records", "old", "--work", "w"]
    assert em.without(argv, ("--records", "--report", "--from-records")) == [
        "--tasks", "a,b", "--model", "local", "--work", "w"]
    recorded = em.parse(["--tasks", "a,b", "--report", "--records", "out"]).grid_argv
    assert recorded == ["--tasks", "a,b"]


def _benchmark(work: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "benchmarks" / "efficacy_methods.py"), *args, "--work", str(work),
               "--arcmemo", f"{sys.executable} {HERE / 'fake_solve_cli.py'}"]
    return subprocess.run(command, capture_output=True, text=True, env=os.environ.copy(), timeout=600)


GRID = ("--methods", "none,ps", "--tasks", ",".join(TASK_IDS[:2]), "-k", "1", "--model", "fake", "--seeds", "007bbfb7")


def _rows(stdout: str) -> list[list[str]]:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("row "))
    return [line.split()[:3] for line in lines[start + 1:start + 6]]


@pytest.mark.slow
def test_the_benchmark_runs_each_row_once_resumes_and_reruns_from_its_records(tmp_path):
    work, records = tmp_path / "work", tmp_path / "records"
    first = _benchmark(work, *GRID, "--records", str(records))
    assert first.returncode == 0, first.stderr + first.stdout
    assert first.stderr.count("starting") == 5 and first.stderr.count("seeding its start") == 1
    table = _rows(first.stdout)
    assert [row[:2] for row in table] == [["none.probe.empty", "done"], ["none.plain.empty", "done"],
                                          ["ps.plain.empty", "done"], ["ps.probe.seeded", "done"],
                                          ["ps.plain.seeded", "done"]]
    recorded = json.loads((records / "ps.probe.seeded" / "row.json").read_text())
    (seed,) = recorded["seeded_by"]
    assert seed[seed.index("--method") + 1] == "ps" and recorded["seeds"] == ["007bbfb7"]
    library = json.loads((records / "none.probe.empty" / "row.json").read_text())["seeded_by"]
    assert library == [seed]                            # the probe's helpers: ps's seeded concepts, for every method
    assert (records / "table.txt").read_text() == first.stdout
    again = _benchmark(work, *GRID)                     # finished rows are only read
    assert again.returncode == 0 and "starting" not in again.stderr and _rows(again.stdout) == table
    rerun = _benchmark(tmp_path / "rerun", "--from-records", str(records))      # the same grid, afresh
    assert rerun.returncode == 0 and rerun.stderr.count("starting") == 5 and _rows(rerun.stdout) == table
    [run] = em._runs(work / "ps.plain.empty")
    (run.path / "summary.json").unlink()                # a run that stopped before its summary
    report = _benchmark(work, *GRID, "--report")
    assert report.returncode == 1 and _rows(report.stdout)[2][:2] == ["ps.plain.empty", "partial"]
    resumed = _benchmark(work, *GRID)
    assert resumed.returncode == 0 and "ps.plain.empty: resuming" in resumed.stderr
    assert _rows(resumed.stdout) == table


def _seed_run(code: int, **summary):
    """A stand-in for `arcmemo seed`: writes a seed run's summary under the start's folder, exits `code`."""
    def logged(command, log_path, env):
        run = log_path.parent / "runs" / "20261129-000000-abcdef"
        run.mkdir(parents=True, exist_ok=True)
        (run / "summary.json").write_text(json.dumps({"files": 4, "verified": 4, "failed": 0, "write_failures": 0,
                                                      "problems": [], **summary}))
        return code
    return logged


def test_a_seeded_start_keeps_what_its_write_learned_and_counts_the_seeds_it_could_not(tmp_path, monkeypatch):
    grid = _grid(tmp_path)
    problem = "b8825c91.py: reasoningbank write failed (unreadable answer after 2 attempt(s))"
    monkeypatch.setattr(em, "_logged", _seed_run(1, write_failures=1, concepts_added=7, problems=[problem]))
    em.seeded(grid, "reasoningbank")
    record = json.loads((tmp_path / "_starts" / "reasoningbank" / "seeded.json").read_text())
    assert record["write_failures"] == 1 and record["verified"] == 4 and record["problems"] == [problem]
    row = em.Row("reasoningbank.plain.seeded", "reasoningbank", False, "seeded")
    result = em.read_row(row, tmp_path / row.name)
    assert result.seeded == record
    assert "its start could not learn from 1 seed of 4" in em.notes([result])[0]
    for code, summary in ((1, {"failed": 1}), (2, {"write_failures": 1})):      # a seed that failed, or a crash
        monkeypatch.setattr(em, "_logged", _seed_run(code, **summary))
        with pytest.raises(em.RowError, match=f"exited {code}"):
            em.seeded(grid, "ace")
