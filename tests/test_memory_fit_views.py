"""Every view of a task's answers says who answered (issue 39 point 1), over a run where memory's fit
solved both tasks and the model's program was wrong: `runs show` (and --task), the web task page
and the run page's task table, the HTML report and compare's "only X solves" say memory's fit and
its call (run/records/answered.py, the one wording), never a bare "solved" beside "failed".
The browser test saves screenshots of the task page, the run page and the report (docs/images/
with ARCMEMO_SCREENSHOTS=DIR) and looks for the fit's call on them."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from test_concept_helpers import rotate_concept
from test_helper_runs import TASKS

from arcmemo.cli import cli

CALL = "rotate_grid(grid, 2)"
WRONG = "```python\ndef transform(grid):\n    return grid\n```"       # the model's program: wrong on every pair


def _build(root: Path) -> SimpleNamespace:
    """A memory holding the verified rotate_grid helper, a run whose probe found its fit and
    submitted it (the model's program wrong), and a run without memory: their ids and paths."""
    from arcmemo.llm.backend import register_model, unregister_model
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.llm.fake import FakeModel
    from arcmemo.memory.store import Memory
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    ids = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARCMEMO_HOME", str(root / "home"))
        fake = FakeModel("fake")
        register_model("fake", fake)
        fake.on("solve", lambda messages: WRONG)
        fake.on("select_ps", lambda messages: "```yaml\n- rotate grid\n```")
        llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", concurrency=2,
                              backoff_base_s=0.001, backoff_max_s=0.01, max_attempts=2, cache=False))
        try:
            with Memory(root / "memory.db") as memory:
                memory.merge(rotate_concept(), actor="test", task_id="6150a2bd")
                for settings in (dict(probe_helpers=True, fits_as_answers=True), dict(selection="none")):
                    config = RunConfig(source="training", task_ids=TASKS, retries=0, **settings)
                    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                                        solver=load_solver("program-synthesis"), runs_root=str(root / "runs"))
                    runner.run()
                    ids.append(runner.rundir.run_id)
        finally:
            llm.close()
            unregister_model("fake")
    return SimpleNamespace(root=root, memory=root / "memory.db", runs=root / "runs", fit=ids[0], plain=ids[1],
                           task=TASKS[0])


@pytest.fixture(scope="module")
def fit_run(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("fit_run"))


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_runs_show_counts_memorys_fit_and_says_why_the_scores_differ(fit_run):
    shown = _cli("runs", "show", fit_run.fit, "--run-dir", str(fit_run.runs))
    rows = dict(re.findall(r"^(.+?)  +(\S.*)$", shown, re.M))
    assert rows["passed train pairs (the model's program or memory's fit)"] == "2"
    assert rows["concepts offered / helper called / by a passing program / in a solved task"].startswith(
        "2 / 0 + 2 by memory's fit / 0 + 2 / 0 + 2")
    assert rows["what broke (tasks)"] == "nothing"
    assert rows["why these scores differ"].startswith("the submitted oracle@1 is the mean over the two submitted grids")
    assert "one of the two was right" in rows["why these scores differ"]
    assert rows["method options (ps)"] == "failure_lessons=include, learn_from_failures=False, reads_from=[], use_prior=False"
    assert rows["memory at the start"] == "ps: 1 items (0 from the seed solutions)"
    per_task = _cli("runs", "show", fit_run.fit, "--run-dir", str(fit_run.runs), "--tasks")
    assert per_task.count("passed by memory's fit (the model's program failed)") == 2
    task = _cli("runs", "show", fit_run.fit, "--run-dir", str(fit_run.runs), "--task", fit_run.task)
    assert f"memory's fit {CALL}: gave every train output, right on the test (submitted as attempt 1)" in task
    assert "the model's program (thread 1, sample 0, retry 0): wrong on the train pairs" in task


def test_compare_says_who_solved_what_only_one_run_solves(fit_run):
    shown = _cli("runs", "compare", fit_run.fit, fit_run.plain, "--run-dir", str(fit_run.runs))
    line = next(line for line in shown.replace("\n  ", " ").splitlines() if line.startswith(f"only {fit_run.fit}"))
    assert line.startswith(f"only {fit_run.fit} solves with its submitted attempts (2): ")
    assert all(f"{task} (memory's fit {CALL} submitted)" in line for task in TASKS)


def test_the_web_pages_and_the_report_say_memorys_fit_answered(fit_run, tmp_path):
    starlette_testclient = pytest.importorskip("starlette.testclient")
    from arcmemo.memory.store import Memory
    from arcmemo.web.app import create_app

    with Memory(fit_run.memory) as memory:
        app = create_app(memory, fit_run.runs, actor="user:tester", allowed_hosts=["testserver"])
        with starlette_testclient.TestClient(app) as client:
            task = client.get(f"/runs/{fit_run.fit}/tasks/{fit_run.task}").text
            run = client.get(f"/runs/{fit_run.fit}").text
    assert '<span class="ok">solved by memory&#39;s fit</span>' in task
    assert f"memory&#39;s fit {CALL.replace(chr(39), '&#39;')}: gave every train output, right on the test" in task
    assert "not what solved the task (memory's fit did)" in task         # the model's program, labelled
    assert "Error: wrong_output" not in task
    assert "Why they differ: the submitted oracle@1 is the mean over the two submitted grids" in task   # 0.50 beside 1.00
    assert '<th>passed train pairs (the model\'s program or memory\'s fit)</th><td class="num">2</td>' in run
    table = run.split('<table class="tasks">')[1].split("</table>")[0]
    assert "train pairs passed by memory" not in table and "<td>failed</td>" not in table
    assert table.count("passed by memory&#39;s fit (the model&#39;s program failed)") == 2
    report = tmp_path / "report.html"
    _cli("runs", "report", fit_run.fit, "--run-dir", str(fit_run.runs), "--db", str(fit_run.memory), "-o", str(report))
    text = report.read_text()
    assert text.count(f"memory&#39;s fit {CALL.replace(chr(39), '&#39;')}: gave every train output") == 2


@pytest.mark.slow
def test_screenshots_of_the_task_page_run_page_and_report_show_the_fits_call(fit_run, tmp_path):
    """Headless Chromium over `arcmemo serve` (tests/test_web_browser.py's set-up): the fit's call is on
    the task page, the run page says memory's fit passed the train pairs, the report shows the call."""
    from test_web_browser import _screenshot, _skip_reason
    from web_support import serve_process

    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    from selenium.webdriver.common.by import By

    report = tmp_path / "report.html"
    _cli("runs", "report", fit_run.fit, "--run-dir", str(fit_run.runs), "--db", str(fit_run.memory), "-o", str(report))
    shots = Path(os.environ.get("ARCMEMO_SCREENSHOTS") or tmp_path)
    env = dict(os.environ, ARCMEMO_HOME=str(fit_run.root / "home"))
    with _driver(tmp_path) as browser, \
            serve_process(["--db", str(fit_run.memory), "--runs", str(fit_run.runs)], env) as url:
        browser.get(f"{url}/runs/{fit_run.fit}/tasks/{fit_run.task}")
        answers = browser.find_element(By.CSS_SELECTOR, "ul.answers").text
        assert f"memory's fit {CALL}: gave every train output, right on the test (submitted as attempt 1)" in answers
        assert browser.find_element(By.CSS_SELECTOR, "h3 span.ok").text == "solved by memory's fit"
        _screenshot(browser, shots / "task-page-memory-fit.png")
        browser.get(f"{url}/runs/{fit_run.fit}")
        cells = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "table.tasks td")]
        assert "solved by memory's fit" in cells and "failed" not in cells
        _screenshot(browser, shots / "run-page-memory-fit.png")
        browser.get(report.as_uri())
        assert f"memory's fit {CALL}" in browser.find_element(By.TAG_NAME, "body").text
        _screenshot(browser, shots / "report-memory-fit.png")


class _driver:
    """Headless Chromium as tests/test_web_browser.py starts it, closed at the end."""

    def __init__(self, tmp_path: Path):
        self.profile = tmp_path / "chromium-profile"

    def __enter__(self):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from test_web_browser import CHROMIUM, DRIVER, FLAGS, WAIT_S

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in (*FLAGS, f"--user-data-dir={self.profile}"):
            options.add_argument(flag)
        self.browser = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
        self.browser.set_page_load_timeout(WAIT_S)
        return self.browser

    def __exit__(self, *exc):
        self.browser.quit()
        shutil.rmtree(self.profile, ignore_errors=True)
