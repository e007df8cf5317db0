"""The strict score a run's protocol chose (`--strict-variant`) is the one every view shows: `runs
list`, `runs show`, `runs compare` (and `--mean`), the HTML report and the web page agree."""

from __future__ import annotations

import html
import json
import re

import pytest
from click.testing import CliRunner
from test_paper_protocol import solve_run
from test_protocol_runs import ANSWERS, P1, STRICT_PLAN, depth_of

from arcmemo.cli import cli
from arcmemo.core.table import cell
from arcmemo.run.records.report import COMPARE_HEADER

starlette_testclient = pytest.importorskip("starlette.testclient")


def invoke(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def released_run(tmp_path, fake_model, fake_llm):
    """A released-code run (strict variant train-test-last-step) whose two strict scores differ."""
    def answer(messages, request):
        plan = STRICT_PLAN[request.sample]
        return ANSWERS[plan[min(depth_of(messages), len(plan) - 1)]]()

    fake_model.on("solve", answer, with_request=True)
    runner, summary = solve_run(tmp_path, fake_llm, task_ids=[P1], selection="none", threads=3, retries=2,
                                protocol="released-code")
    return runner.rundir, summary


def test_every_view_shows_the_strict_variant_the_run_chose(released_run, tmp_path):
    rundir, summary = released_run
    run, runs = rundir.run_id, tmp_path / "runs"
    assert summary["strict_variant"] == "train-test-last-step"
    chosen = summary["strict_train_test_last_step"]["strict"][2][1]     # retry depth 2, k = 2: the headline's cell
    other = summary["table4"]["strict"][2][1]
    assert chosen != other, "the script must tell the two variants apart"
    shown = cell(chosen) + " †"                   # a released-code run is test-informed
    label = "strict@2, train and test pairs, last step (the released driver's), the same depth"

    listed = {row["run"]: row for row in json.loads(invoke("runs", "list", "--json", "--run-dir", runs))}
    assert listed[run]["strict"] == chosen and listed[run]["strict_variant"] == "train-test-last-step"
    assert json.loads(invoke("runs", "show", run, "--json", "--run-dir", runs))["score"]["strict"] == chosen

    show = invoke("runs", "show", run, "--run-dir", runs)
    (row,) = [line for line in show.splitlines() if line.strip().startswith(label)]
    assert shown in row and cell(other) not in row
    assert "strict@k, the released driver's" in show          # the strict block is the chosen variant's

    compare = invoke("runs", "compare", run, run, "--run-dir", runs)
    (line, _) = [line for line in compare.splitlines() if line.strip().startswith(run)]
    assert re.split(r"\s{2,}", line.strip())[COMPARE_HEADER.index("strict@k")] == shown
    assert json.loads(invoke("runs", "compare", run, "--json", "--run-dir", runs))[0]["strict"] == chosen

    mean = json.loads(invoke("runs", "compare", run, "--mean", "--json", "--run-dir", runs))
    assert mean["headline"]["strict"]["mean"] == chosen and mean["strict_variant"] == "train-test-last-step"
    assert mean["strict"][2][1]["mean"] == chosen
    mean_text = invoke("runs", "compare", run, "--mean", "--run-dir", runs)
    (row,) = [line for line in mean_text.splitlines() if line.strip().startswith(label)]
    assert cell(chosen) in row

    report = tmp_path / "report.html"
    invoke("runs", "report", run, "--run-dir", runs, "--db", tmp_path / "memory.db", "-o", report)
    assert _row(report.read_text(encoding="utf-8"), label) == shown

    from arcmemo.memory.store import Memory
    from arcmemo.web.app import create_app

    with Memory(str(tmp_path / "memory.db")) as memory:
        app = create_app(memory, runs, actor="user:tester", allowed_hosts=["testserver"])
        with starlette_testclient.TestClient(app) as client:
            page = client.get(f"/runs/{run}")
            assert page.status_code == 200
            assert _row(page.text, label) == shown
            compared = client.get(f"/runs/compare?run={run}&run={run}")
            assert compared.status_code == 200
            cells = [re.findall(r'<td class="num">([^<]*)</td>', row)
                     for row in re.findall(r"<tr>(.*?)</tr>", compared.text, re.S) if f">{run}<" in row]
            assert cells and all(html.unescape(c[COMPARE_HEADER.index("strict@k")]) == shown for c in cells)


def _row(page: str, label: str) -> str:
    """The value cell of the summary row `label` in an HTML page."""
    found = [html.unescape(value) for name, value in re.findall(r"<td>([^<]*)</td><td[^>]*>([^<]*)</td>", page)
             if html.unescape(name) == label]
    assert len(found) == 1, (label, found)
    return found[0]


def test_a_run_of_the_clean_protocol_shows_table_5s_strict(tmp_path, fake_model, fake_llm):
    def answer(messages, request):
        plan = STRICT_PLAN[request.sample]
        return ANSWERS[plan[min(depth_of(messages), len(plan) - 1)]]()

    fake_model.on("solve", answer, with_request=True)
    runner, summary = solve_run(tmp_path, fake_llm, task_ids=[P1], selection="none", threads=3, retries=2)
    show = invoke("runs", "show", runner.rundir.run_id, "--run-dir", tmp_path / "runs")
    (row,) = [line for line in show.splitlines() if line.strip().startswith("strict@2, the same cell of Table 5")]
    assert cell(summary["table4"]["strict"][2][1]) in row
    assert "strict@k (Table 5" in show
