"""benchmarks/efficacy.py --methods: the memory methods' table is what the rows' records say.

The fast tests run two rows (none, cheatsheet) in-process with the scripted fake model, laid out
as the benchmark lays its rows out, and check every cell of the table against the script and
the records; the slow one runs the benchmark itself (each row a real `arcmemo solve` process
with the scripted model) twice, and once more after a row's run lost its summary.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from runner_support import TASK_IDS, empty_memory, script_run, seed_code, task_of

from benchmarks import efficacy_methods as em

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOLVED_FIRST, SOLVED_ON_RETRY = TASK_IDS[:2]       # one block each (k=1)
SETTINGS = ["--tasks", f"{SOLVED_FIRST},{SOLVED_ON_RETRY}", "--continual", "-k", "1", "--retries", "1"]
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


def _run_row(row: em.Row, root: Path, start: str) -> None:
    """The row's solve as the benchmark would start it, here in-process with the fake model."""
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.memory.store import Memory
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    assert em.prepare_row(row, root, SETTINGS, start) is False
    models = LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", backoff_base_s=0.001)
    made = []

    def make_llm(run_id):
        made.append(LLM(models, run_id=run_id))
        return made[-1]

    config = RunConfig(source="training", task_ids=[SOLVED_FIRST, SOLVED_ON_RETRY], selection=row.method,
                       continual=True, k=1, retries=1)
    with Memory(str(root / "memory.db")) as memory:
        new_runner(config, memory=memory, make_llm=make_llm, sandbox=get_sandbox(),
                   solver=load_solver("program-synthesis"), runs_root=str(root / "runs")).run()
    made[0].close()


@pytest.fixture
def two_rows(tmp_path, fake_model):
    _script(fake_model)
    start = empty_memory(tmp_path / "start.db")
    before = Path(start).read_bytes()
    rows = [em.Row("none", "none"), em.Row("cheatsheet", "cheatsheet")]
    for row in rows:
        _run_row(row, tmp_path / row.name, start)
    assert Path(start).read_bytes() == before          # every row wrote its own copy
    return tmp_path, [em.read_row(row, tmp_path / row.name) for row in rows]


def _calls(run_id: str) -> list[sqlite3.Row]:
    from arcmemo.llm.log import log_path

    with sqlite3.connect(log_path()) as db:
        db.row_factory = sqlite3.Row
        return db.execute("SELECT * FROM calls WHERE run_id = ?", (run_id,)).fetchall()


def test_the_methods_table_is_what_the_records_say(two_rows):
    work, results = two_rows
    header, rows = em.table(results)
    assert header == ["row", "state", "solved", "passed train", "oracle@1 d0", "oracle@1 d1", "tokens in",
                      "tokens out", "model s", "calls (cached)", "memory start", "after each block", "memory end",
                      "writes (failed)", "vs none"]
    cells = {row[0]: dict(zip(header, row)) for row in rows}
    for name in ("none", "cheatsheet"):
        # the script: one task solved at depth 0, the other at depth 1; both written (one block each)
        assert (cells[name]["state"], cells[name]["solved"], cells[name]["passed train"]) == ("done", "2/2", 2)
        assert (cells[name]["oracle@1 d0"], cells[name]["oracle@1 d1"]) == ("50.00", "100.00")
    # memory: none learns nothing (its memory stays empty); the cheatsheet writes its sheet after both tasks
    assert cells["none"]["writes (failed)"] == "0 (0)" and cells["cheatsheet"]["writes (failed)"] == "2 (0)"
    assert (cells["none"]["memory start"], cells["none"]["after each block"], cells["none"]["memory end"]) == (
        "0", "0, 0", "0")
    assert (cells["cheatsheet"]["memory start"], cells["cheatsheet"]["after each block"],
            cells["cheatsheet"]["memory end"]) == ("0", "1, 1", "1")
    from arcmemo.memory.store import Memory

    with Memory(str(work / "cheatsheet" / "memory.db"), read_only=True) as memory:
        assert memory.get("cheatsheet", format="sheet").description.strip() == SHEET.split("\n")[1]
    assert cells["cheatsheet"]["vs none"] == "+0 -0 (p 1.00)" and cells["none"]["vs none"] == "-"
    # tokens: none asked everything afresh, so its call log equals its summary's usage
    none, sheet = results
    usage = none.summary["usage"]
    assert (cells["none"]["tokens in"], cells["none"]["tokens out"]) == (usage["prompt_tokens"],
                                                                         usage["completion_tokens"])
    assert cells["none"]["calls (cached)"] == f"{usage['calls']} (0)"
    # the cheatsheet's first solve is none's request (neither shows a hint yet): the cache answered it, and the
    # table counts it at what none's call cost
    usage = sheet.summary["usage"]
    cached = [c for c in _calls(sheet.run.run_id) if c["cached"]]
    assert cached and cells["cheatsheet"]["calls (cached)"] == f"{usage['calls']} ({usage['cache_hits']})"
    firsts = {c["cache_key"]: c for c in _calls(none.run.run_id) if not c["cached"]}
    assert cells["cheatsheet"]["tokens in"] == usage["prompt_tokens"] + sum(
        firsts[c["cache_key"]]["prompt_tokens"] for c in cached)


def test_a_row_started_otherwise_is_refused_naming_what_differs(two_rows):
    work, _ = two_rows
    row = em.Row("none", "none")
    assert em.check_row(row, work / "none", SETTINGS) is True
    other = [*SETTINGS[:-1], "2"]
    with pytest.raises(em.RowError, match=r"--retries 1 -> 2"):
        em.check_row(row, work / "none", other)
    with pytest.raises(em.RowError, match=r"method 'none' -> 'ps'"):
        em.check_row(em.Row("none", "ps"), work / "none", SETTINGS)
    (work / "none" / "row.json").unlink()
    with pytest.raises(em.RowError, match="did not start"):
        em.check_row(row, work / "none", SETTINGS)


def test_ablation_rows_follow_the_flags_solve_has():
    rows, notes = em.plan_rows(["ps", "oe", "none", "ace"], None, available={"--use-prior", "--consolidate-every"},
                               consolidate_every=2)
    assert [(r.name, r.method, r.flags) for r in rows] == [
        ("ps", "ps", ()), ("oe", "oe", ()), ("none", "none", ()), ("ace", "ace", ()),
        ("ps+use-prior", "ps", ("--use-prior",)), ("ps+consolidate-every-2", "ps", ("--consolidate-every", "2")),
        ("oe+use-prior", "oe", ("--use-prior",)), ("oe+consolidate-every-2", "oe", ("--consolidate-every", "2"))]
    assert notes == ["ablation learn-from-failures: not in this arcmemo (its solve has no --learn-from-failures)"]
    rows, _ = em.plan_rows(["none", "ps"], ["use-prior"], available={"--use-prior"}, consolidate_every=1)
    assert [r.name for r in rows] == ["none", "ps", "ps+use-prior"]
    with pytest.raises(em.RowError, match="no --learn-from-failures"):
        em.plan_rows(["ps"], ["learn-from-failures"], available=set(), consolidate_every=1)
    with pytest.raises(em.RowError, match="unknown ablation"):
        em.plan_rows(["ps"], ["prior"], available=set(), consolidate_every=1)


def test_sign_test():
    assert em.sign_test(0, 0) == em.sign_test(1, 1) == 1.0
    assert em.sign_test(6, 0) == em.sign_test(0, 6) == 2 / 64
    assert em.sign_test(3, 1) == 2 * 5 / 16


def _benchmark(work: Path, start: str, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "benchmarks" / "efficacy.py"), "--methods", "none,ps", "--ablations", "none",
               "--tasks", ",".join(TASK_IDS[:2]), "-k", "1", "--model", "fake", "--memory", start, "--work", str(work),
               "--arcmemo", f"{sys.executable} {HERE / 'fake_solve_cli.py'}", *extra]
    return subprocess.run(command, capture_output=True, text=True, env=os.environ.copy(), timeout=300)


@pytest.mark.slow
def test_the_benchmark_runs_each_row_once_and_resumes_a_stopped_one(tmp_path):
    start = empty_memory(tmp_path / "start.db")
    work = tmp_path / "work"
    first = _benchmark(work, start)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("starting") == 2 and "resuming" not in first.stderr
    table = first.stdout.splitlines()[1:4]
    assert [line.split()[:3] for line in table[1:]] == [["none", "done", "2/2"], ["ps", "done", "2/2"]]
    again = _benchmark(work, start)                     # finished rows are only read
    assert again.returncode == 0 and again.stderr == "" and again.stdout.splitlines()[1:4] == table
    assert _benchmark(work, start, "--report").stdout.splitlines()[1:4] == table
    [run] = em._runs(work / "ps")
    (run.path / "summary.json").unlink()                # a run that stopped before its summary
    report = _benchmark(work, start, "--report")
    assert report.returncode == 1 and not em.finished(work / "ps")
    assert report.stdout.splitlines()[3].split()[:3] == ["ps", "partial", "2/2"]    # read from its events
    resumed = _benchmark(work, start)
    assert resumed.returncode == 0 and "ps: resuming" in resumed.stderr and "none:" not in resumed.stderr
    assert resumed.stdout.splitlines()[1:4] == table and [r.path for r in em._runs(work / "ps")] == [run.path]
