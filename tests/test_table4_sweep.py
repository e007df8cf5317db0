"""The paper's Table 4 in one command (`arcmemo sweep table4`): its four rows, 3 repeats each, under
either protocol, against a loopback endpoint: the estimate before it starts, a stop at --budget-usd,
the run again going on where it stopped, and the table beside the paper's published numbers."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from llm_stub import StubServer
from runner_support import paper_memory, seed_code, task_of

from arcmemo.cli import cli
from arcmemo.run.jobs.table4 import cells, comparison_text, load_paper
from arcmemo.run.progress.cost import PAPER

A, B = "0d3d703e", "1e0a9b12"          # the loopback model solves A, never B
ROWS = ["baseline", "cheatsheet", "ArcMemo-OE", "ArcMemo-PS"]


def answer(body: dict) -> str:
    """Every step's answer: a concept list for a selection, a program for the solver."""
    code = seed_code(A) if task_of(body["messages"], [A, B]) == A else "def transform(grid):\n    return [[0]]"
    return f"```yaml\n- recolour\n```\n```python\n{code}\n```"


@pytest.fixture
def paper_db(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return paper_memory(tmp_path / "paper.db", {sheet: "- look for a colour table"
                                                for sheet in ("cheatsheet", "cheatsheet-released")})


def table4(tmp_path, stub, *args):
    """`arcmemo sweep table4 ARGS -- ...`: two puzzles, 2 threads, no retry, the loopback endpoint."""
    return CliRunner().invoke(cli, ["sweep", "table4", "--db", str(tmp_path / "paper.db"), "--run-dir",
                                    str(tmp_path / "runs"), "-q", *args, "--", "--split", "training",
                                    "--tasks", f"{A},{B}", "--retries", "0", "--threads", "2",
                                    "--base-url", stub.base_url])


def test_table4_estimates_stops_at_its_budget_goes_on_and_ends_beside_the_paper(tmp_path, paper_db):
    with StubServer(answer=answer) as stub:
        estimate = table4(tmp_path, stub, "--estimate")
        assert estimate.exit_code == 0, estimate.output
        assert re.search(r"sweep table4: 12 of 12 runs to go; estimate: [\d,]+ model calls at most; about "
                         r"\$[\d.,]+ .*, at most \$[\d.,]+", estimate.stderr), estimate.stderr
        assert stub.requests == [] and not (tmp_path / "runs").exists()        # nothing run

        stopped = table4(tmp_path, stub, "--budget-usd", "0.0002")
        assert stopped.exit_code == 0, stopped.output
        assert "--budget-usd 0.0002 stops it" in stopped.stderr and "stopped at --budget-usd 0.0002" in stopped.stderr
        record = json.loads((tmp_path / "runs" / "sweeps" / "table4.json").read_text())
        assert 0 < len(record) < 12 and set(record) <= {"baseline#1", "baseline#2", "baseline#3"}
        asked = len(stub.requests)

        done = table4(tmp_path, stub, "--budget-usd", "1")
        assert done.exit_code == 0, done.output
    assert "stopped at" not in done.stderr and "spent so far $0.000" in done.stderr
    record = json.loads((tmp_path / "runs" / "sweeps" / "table4.json").read_text())
    assert sorted(record) == sorted(f"{row}#{r}" for row in ROWS for r in (1, 2, 3))
    statuses = {json.loads((tmp_path / "runs" / run / "status.json").read_text())["status"] for run in record.values()}
    assert statuses == {"finished"} and len(stub.requests) > asked
    # the repeats of a row each asked for themselves: runs compare --mean takes them as one configuration's
    for row in ROWS:
        mean = CliRunner().invoke(cli, ["runs", "compare", *(record[f"{row}#{r}"] for r in (1, 2, 3)), "--mean",
                                        "--run-dir", str(tmp_path / "runs")])
        assert mean.exit_code == 0 and "3 runs of one configuration" in mean.output, (row, mean.output)
    # the closing table: each row's oracle@k over its 3 repeats beside the paper's
    text = done.stdout.split("beside ", 1)[1]
    assert "Table 4: Full o4-mini Results" in text.splitlines()[0]
    official = text.split("oracle@2 (the official score)", 1)[1]
    assert re.search(r"0\s+baseline\s+50\.00 \(0\.00\) \[3\]\s+55\.17 \(3\.18\)\s+-5\.17\s+no", official), official
    assert re.search(r"0\s+ArcMemo-PS\s+50\.00 \(0\.00\) \[3\]\s+59\.33 \(0\.29\)\s+-9\.33\s+no", official), official


@pytest.mark.slow
def test_table4_under_the_released_codes_protocol_runs_each_rows_released_twin(tmp_path, paper_db):
    with StubServer(answer=answer) as stub:
        result = table4(tmp_path, stub, "--protocol", "released-code")
        assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "runs" / "sweeps" / "table4-released-code.json").read_text())
    assert len(record) == 12
    for key, run in record.items():
        config = json.loads((tmp_path / "runs" / run / "config.json").read_text())
        assert config["protocol"]["name"] == "released-code" and config["settings"]["config_file"].endswith(
            {"baseline": "baseline-released.yaml", "cheatsheet": "cheatsheet-released.yaml",
             "ArcMemo-OE": "arcmemo-oe-released.yaml", "ArcMemo-PS": "arcmemo-ps-released.yaml"}[key.split("#")[0]])
        assert config["settings"]["repeat"] == int(key.split("#")[1]) - 1
    assert "oracle@2 (the official score)" in result.stdout and "55.17 (3.18)" in result.stdout


def test_the_comparison_sets_each_cell_beside_the_paper_and_says_if_it_is_within_the_spread():
    paper = load_paper(PAPER)

    def run(*oracle_by_depth):
        return {"table4": {"threads": 3, "retries": len(oracle_by_depth) - 1,
                           "oracle": [list(r) for r in oracle_by_depth]}}

    rows = {"ArcMemo-PS": [run([49, 58, 63], [57, 66, 75]), run([51, 60, 65], [59, 68, 76])],
            "baseline": [run([46.0, 55.0, 59.0], [57.0, 66.0, 71.0])]}
    found = {(c.row, c.depth, c.k): c for c in cells(rows, paper)}
    assert [c.row for c in cells(rows, paper)][0] == "baseline"               # the paper's row order
    ps = found[("ArcMemo-PS", 0, 2)]                                          # mean 59, std 1.41; the paper's 59.33
    assert (ps.mean, ps.paper, ps.paper_std, ps.repeats) == (59, 59.33, 0.29, 2)
    assert ps.difference == pytest.approx(-0.33) and ps.within is True
    assert found[("ArcMemo-PS", 1, 3)].within is False                        # 75.50 (0.71) against 72.50
    assert found[("baseline", 0, 1)].within is None                           # one repeat: no spread to tell
    text = comparison_text(list(found.values()), paper)
    assert "oracle@2 (the official score)" in text and "59.00 (1.41) [2]" in text and "59.33 (0.29)" in text
