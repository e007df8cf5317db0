"""`arcmemo serve` in a real browser: headless Chromium (Debian's chromium + chromium-driver) driven
by Selenium, against the real command serving a copy of the fixture memory and runs.

It checks what a person sees (the cells' colours, the score table, a revision's diff, live
progress) and does what a person does (an edit, a bad edit). Every kind of page is opened and
saved whole as a screenshot in the test's tmp dir; on each, the grids' cells are at least
20 px, no two visible blocks of the page overlap, no chart legend lies over its plot, and
nothing is wider than the window. Without the browser it skips and says why (.ci/run installs it).
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
from pathlib import Path

import pytest
from PIL import Image
from web_support import LEARNED, copy_fixture, helper_concept, serve_process

from arcmemo.core.tasks import load_tasks
from arcmemo.memory.store import Memory
from arcmemo.pictures import COLOURS
from arcmemo.pictures.palette import rgb
from arcmemo.run.records.rundir import RunDir

pytestmark = pytest.mark.slow

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,1000")
WAIT_S = 30


def _skip_reason() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (DRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return f"{path} is missing: apt-get install -y {package} (as root; .ci/run does)"
    return None


BIG_TASK = "3631a71a"        # four 30x30 train pairs: too wide for one band at 20 px cells


def _near_miss_grid(fixture) -> list[list[int]]:
    truth = load_tasks("training", ids=[fixture.unsolved]).answers[fixture.unsolved].test_outputs[0]
    near = [list(row) for row in truth]
    for r, c in ((0, 0), (0, 1), (1, 1), (2, 2)):
        near[r][c] = (near[r][c] + 1) % 10
    return near


def _near_miss(fixture, root: Path) -> None:
    """The served copy's unsolved task gets a prediction with four wrong cells beside its wrong-shaped one."""
    near = _near_miss_grid(fixture)
    events = root / "runs" / fixture.continual / "events.jsonl"
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    for event in lines:
        if event["type"] == "task" and event["task_id"] == fixture.unsolved:
            event["predictions"] = [[near, [[0]]]]
    events.write_text("".join(json.dumps(e) + "\n" for e in lines))


@pytest.fixture(scope="module")
def served(web_fixture, tmp_path_factory):
    """`arcmemo serve --port 0` in a subprocess over a copy of the fixture (one attempt a near miss, one
    concept with a helper); yields (base URL, root)."""
    reason = _skip_reason()
    if reason:
        print(f"skipping the browser tests: {reason}")
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("served") / "copy"
    memory = copy_fixture(web_fixture, root)
    _near_miss(web_fixture, root)
    with Memory(str(memory)) as m:
        m.add(helper_concept(web_fixture.continual), actor="test")
    env = dict(os.environ, ARCMEMO_HOME=str(root / "home"))
    with serve_process(["--db", str(memory), "--runs", str(root / "runs")], env) as url:
        yield url, root


@pytest.fixture(scope="module")
def browser(served, tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + (f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(WAIT_S)
    yield driver
    driver.quit()


def _open(browser, url: str, shot: Path):
    browser.get(url)
    _screenshot(browser, shot)


def _screenshot(browser, shot: Path) -> None:
    """The whole page, not just the window (Chromium's DevTools capture beyond the viewport)."""
    width, height = browser.execute_script("const e = document.documentElement; "
                                           "return [e.scrollWidth, Math.max(e.scrollHeight, document.body.scrollHeight)]")
    clip = {"x": 0, "y": 0, "width": width, "height": min(height, 16000), "scale": 1}
    shot.write_bytes(base64.b64decode(browser.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})["data"]))
    assert Image.open(io.BytesIO(shot.read_bytes())).format == "PNG"


def _fills(browser, css: str) -> list[str]:
    """The colours the browser paints the cells matched by `css` with."""
    return browser.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => getComputedStyle(e).fill)", css)


def _css_rgb(value: int) -> str:
    return "rgb({}, {}, {})".format(*rgb(COLOURS[value]))


def _wait(browser, condition):
    """Wait for `condition`; an element the page replaced meanwhile (live progress) is looked up again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, WAIT_S, ignored_exceptions=[StaleElementReferenceException]).until(condition)


def test_runs_and_run_pages_show_the_scores(served, browser, web_fixture, tmp_path):
    from selenium.webdriver.common.by import By

    url, _ = served
    _open(browser, url + "/runs", tmp_path / "runs.png")
    browser.find_element(By.LINK_TEXT, web_fixture.continual).click()
    _wait(browser, lambda b: "Run " + web_fixture.continual in b.find_element(By.TAG_NAME, "h1").text)
    browser.save_screenshot(str(tmp_path / "run.png"))
    rows = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")[1].text
            for r in browser.find_elements(By.CSS_SELECTOR, "table.summary tr") if r.find_elements(By.TAG_NAME, "td")}
    assert rows["oracle@1 over one thread, retry depth 0 (the paper's score)"] == "66.67" and rows["tasks"] == "3 of 3"
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure.chart svg")) == 4
    assert browser.find_element(By.CSS_SELECTOR, "figure.chart svg").size["width"] > 200   # drawn, not empty


def test_task_pages_paint_the_palette(served, browser, web_fixture, tmp_path):
    from selenium.webdriver.common.by import By

    url, _ = served
    task = load_tasks("training", ids=["007bbfb7"]).tasks[0]
    _open(browser, url + "/tasks/007bbfb7?dataset=training", tmp_path / "task.png")
    first = _fills(browser, ".puzzle svg g.grid:first-of-type g.cells rect")
    assert first == [_css_rgb(v) for row in task.train[0].input for v in row]
    # the attempt at the task the run did not solve: the cell is outlined and the truth drawn beside it
    unsolved = load_tasks("training", ids=[web_fixture.unsolved])
    _open(browser, f"{url}/runs/{web_fixture.continual}/tasks/{web_fixture.unsolved}", tmp_path / "attempt.png")
    grids = browser.find_elements(By.CSS_SELECTOR, ".attempts svg g.grid")
    truth = unsolved.answers[web_fixture.unsolved].test_outputs[0]
    expected_fills = browser.execute_script(
        "return Array.from(arguments[0].querySelectorAll('g.cells rect')).map(e => getComputedStyle(e).fill)",
        grids[-1])
    assert expected_fills == [_css_rgb(v) for row in truth for v in row]
    near = _near_miss_grid(web_fixture)
    attempt_fills = browser.execute_script(
        "return Array.from(arguments[0].querySelectorAll('g.cells rect')).map(e => getComputedStyle(e).fill)",
        grids[1])
    assert attempt_fills == [_css_rgb(v) for row in near for v in row]      # a wrong cell keeps its colour
    marks = browser.find_elements(By.CSS_SELECTOR, ".attempts path.differs")
    assert marks and all(m.is_displayed() for m in marks)
    assert browser.find_element(By.CSS_SELECTOR, ".attempts rect.wrong-shape").is_displayed()
    titles = [t.text for t in browser.find_elements(By.CSS_SELECTOR, ".attempts svg text.title")]
    assert "Attempt 1 · the model (4 cells differ)" in titles and "Attempt 2 (1x1, expected 3x3)" in titles
    assert "<script>" in browser.find_element(By.CSS_SELECTOR, "details pre").get_attribute("textContent")  # shown as text


def test_edit_and_bad_edit_on_a_concept_page(served, browser, web_fixture, tmp_path):
    from selenium.webdriver.common.by import By

    url, root = served
    with Memory(str(root / "memory.db")) as memory:
        concept = memory.get(LEARNED)
        before = memory.revision()
    _open(browser, f"{url}/concepts/{concept.id}", tmp_path / "concept.png")
    diffs = browser.find_elements(By.CSS_SELECTOR, ".revision .diff")      # newest first
    assert "+- " + web_fixture.tasks[2] in diffs[0].text                    # extended: a task joined used_in
    assert "+name: " + LEARNED in diffs[-1].text                            # added: the whole concept
    area = browser.find_element(By.NAME, "text")
    text = area.get_attribute("value").replace("lookup table", "colour table")
    browser.execute_script("arguments[0].value = arguments[1]", area, text)
    reason = browser.find_element(By.NAME, "reason")
    reason.clear()
    reason.send_keys("clearer wording")
    browser.find_element(By.CSS_SELECTOR, "#edit-form button").click()
    notice = _wait(browser, lambda b: b.find_elements(By.ID, "edited"))[0]
    browser.save_screenshot(str(tmp_path / "edited.png"))
    assert notice.text == f"Saved as revision {before + 1}."
    newest = browser.find_element(By.CSS_SELECTOR, ".revision .diff")
    assert "-description: map every cell's colour through a lookup table" in newest.text
    assert "+description: map every cell's colour through a colour table" in newest.text
    added = browser.find_element(By.CSS_SELECTOR, ".revision .diff .add")
    assert added.value_of_css_property("background-color") == "rgba(230, 255, 236, 1)"   # green, as a diff reads

    area = browser.find_element(By.NAME, "text")
    browser.execute_script("arguments[0].value = arguments[1]", area, "kind: banana\n")
    browser.find_element(By.CSS_SELECTOR, "#edit-form button").click()
    error = _wait(browser, lambda b: b.find_elements(By.ID, "edit-error"))[0]
    browser.save_screenshot(str(tmp_path / "bad-edit.png"))
    assert "kind" in error.text and error.is_displayed()
    assert browser.find_element(By.NAME, "text").get_attribute("value") == "kind: banana\n"
    with Memory(str(root / "memory.db")) as memory:
        assert memory.revision() == before + 1
        assert memory.history(concept.id)[-1].reason == "clearer wording"
        assert memory.get(concept.id).kind == "routine"


def test_live_progress_follows_a_running_run(served, browser, web_fixture, tmp_path):
    from selenium.webdriver.common.by import By

    url, root = served
    source, live = root / "runs" / web_fixture.baseline, root / "runs" / "live-run"
    live.mkdir()
    (live / "submissions").mkdir()
    shutil.copy(source / "config.json", live / "config.json")
    tasks = [e for e in map(json.loads, (source / "events.jsonl").read_text().splitlines()) if e["type"] == "task"]
    rundir = RunDir(live)
    with rundir.hold():                              # the process running it holds its lock
        rundir.append({k: v for k, v in tasks[0].items() if k != "time"})
        _open(browser, url + "/runs/live-run", tmp_path / "live.png")
        done = "//div[@id='progress']//th[text()='tasks done']/following-sibling::td"
        assert _wait(browser, lambda b: b.find_element(By.XPATH, done).text) == "1 of 3"
        browser.execute_script("window.stillThisPage = true")
        rundir.append({k: v for k, v in tasks[1].items() if k != "time"})
        _wait(browser, lambda b: b.find_element(By.XPATH, done).text == "2 of 3")
        assert browser.execute_script("return window.stillThisPage === true")     # polled in place, not reloaded
        assert browser.find_element(By.ID, "progress").get_attribute("data-state") == "running"


def test_the_report_file_opens_offline(browser, web_fixture, tmp_path):
    from click.testing import CliRunner
    from selenium.webdriver.common.by import By

    from arcmemo.cli import cli

    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["runs", "report", web_fixture.continual, "--run-dir", str(web_fixture.runs),
                                      "--db", str(web_fixture.memory), "-o", str(out)])
    assert result.exit_code == 0, result.output
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions",
                            {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    try:
        _open(browser, out.as_uri(), tmp_path / "report.png")
        sections = browser.find_elements(By.CSS_SELECTOR, "section.task")
        assert len(sections) == len(web_fixture.tasks)
        assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
        assert _fills(browser, ".puzzle svg g.cells rect")[:1] != []
    finally:
        browser.execute_cdp_cmd("Network.emulateNetworkConditions",
                                {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


# Whatever on a page lies where it should not: blocks (the children of main, of a task section, of
# the helper box, of a chart figure) overlapping each other, a picture's titles over each other or
# over a grid, a chart's legend over its plot area, anything wider than the window. Returns
# descriptions of what is wrong.
LAYOUT_PROBLEMS = r"""
const problems = [];
const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (e.getAttribute('class') ? '.' + e.getAttribute('class').split(' ').join('.') : '');
const shown = e => { const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
const cross = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
const apart = (items, what) => { for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++)
    if (cross(items[i].getBoundingClientRect(), items[j].getBoundingClientRect()))
        problems.push(what + ': ' + name(items[i]) + ' overlaps ' + name(items[j])); };
for (const box of document.querySelectorAll('main, main section.task, main .helper, main figure.chart, main form, '
                                         + 'main .overviews, main .overview, main .task-cards'))
    apart(Array.from(box.children).filter(e => e.tagName !== 'SCRIPT' && shown(e)), name(box));
for (const picture of document.querySelectorAll('svg.arc-picture'))
    apart(Array.from(picture.querySelectorAll(':scope > text.title, :scope > g.grid')), 'picture');
for (const chart of document.querySelectorAll('figure.chart svg')) {
    const plots = Array.from(chart.querySelectorAll('g[id*="axes_"] > g[id*="patch_"]:first-child'));
    for (const legend of chart.querySelectorAll('g[id*="legend_"]'))
        for (const plot of plots) if (cross(legend.getBoundingClientRect(), plot.getBoundingClientRect()))
            problems.push('a chart legend lies over its plot: ' + chart.closest('figure').querySelector('figcaption').innerText);
}
if (document.documentElement.scrollWidth > window.innerWidth)
    problems.push('the page is ' + document.documentElement.scrollWidth + ' px wide, the window ' + window.innerWidth);
return problems;
"""

CELL_SIZES = """
return Array.from(document.querySelectorAll('svg.arc-picture g.cells rect'))
    .map(r => Math.min(r.getBoundingClientRect().width, r.getBoundingClientRect().height));
"""


def test_every_page_kind_reads_well(served, browser, web_fixture, tmp_path):
    """Each kind of page, saved whole as a screenshot: readable cells, nothing over anything else."""
    url, root = served
    fx = web_fixture
    with Memory(str(root / "memory.db")) as memory:
        helper_id = memory.get("rotate grid").id
    report = tmp_path / "report.html"
    from click.testing import CliRunner

    from arcmemo.cli import cli

    made = CliRunner().invoke(cli, ["runs", "report", fx.continual, fx.baseline, "--run-dir", str(root / "runs"),
                                    "--db", str(root / "memory.db"), "-o", str(report)])
    assert made.exit_code == 0, made.output
    pages = {
        "runs": "/runs", "run": f"/runs/{fx.continual}", "run-task": f"/runs/{fx.continual}/tasks/{fx.unsolved}",
        "compare": f"/runs/compare?run={fx.continual}&run={fx.baseline}", "tasks": "/tasks?dataset=training",
        "task": "/tasks/007bbfb7?dataset=training&answers=1", "task-30x30": f"/tasks/{BIG_TASK}?dataset=training",
        "concepts": "/concepts", "concept": f"/concepts/{helper_id}", "report": report.as_uri(),
    }
    found = {}
    for kind, path in pages.items():
        _open(browser, path if path.startswith("file:") else url + path, tmp_path / f"{kind}.png")
        cells = browser.execute_script(CELL_SIZES)
        found[kind] = (len(cells), min(cells, default=None), browser.execute_script(LAYOUT_PROBLEMS))
    print("screenshots in", tmp_path)
    for kind, (_, smallest, problems) in found.items():
        assert not problems, (kind, problems)
        assert smallest is None or smallest >= 20, (kind, smallest)
    for kind in ("run-task", "task", "task-30x30", "report"):
        assert found[kind][0] > 0, kind                              # these pages do draw grids
    browser.get(url + "/tasks?dataset=training")
    drawn = browser.execute_script("return Array.from(document.querySelectorAll('.task-cards img'))"
                                   ".map(i => i.complete && i.naturalWidth > 0)")
    assert len(drawn) == 60 and all(drawn)                           # a picture of each task in the list
