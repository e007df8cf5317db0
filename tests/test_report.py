"""`arcmemo runs report` and the terminal drawings of `tasks show` and `runs show --task`."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser

from click.testing import CliRunner
from PIL import Image
from rich.console import Console
from web_support import LEARNED

from arcmemo.cli import cli
from arcmemo.core.tasks import load_tasks
from arcmemo.pictures import Panel
from arcmemo.pictures.terminal import print_rows

NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


class _Resources(HTMLParser):
    """Every element that could make a browser fetch something, and every id."""

    def __init__(self):
        super().__init__()
        self.fetching, self.ids, self.tags = [], [], set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        attrs = dict(attrs)
        self.ids += [attrs["id"]] if "id" in attrs else []
        for name in ("src", "href", "xlink:href", "action", "data", "poster", "srcset"):
            value = attrs.get(name) or ""
            if value and not value.startswith("#"):
                self.fetching.append((tag, name, value))


def test_report_is_one_offline_file_with_every_task(web_fixture, tmp_path):
    fx = web_fixture
    out = tmp_path / "report.html"
    result = invoke("runs", "report", fx.continual, fx.baseline, "--run-dir", fx.runs, "--db", fx.memory, "-o", out)
    assert result.exit_code == 0, result.output
    assert f"wrote {out} (2 runs, 6 tasks" in result.output
    html = out.read_text(encoding="utf-8")
    parser = _Resources()
    parser.feed(html)
    assert parser.fetching == []                                   # nothing to load: no src, no link, no script
    assert not {"script", "link", "img", "iframe", "object"} & parser.tags
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
    assert urls <= NAMESPACES, urls - NAMESPACES                   # only XML namespace names, never fetched
    assert "@import" not in html and "url(http" not in html
    for run in (fx.continual, fx.baseline):
        for task in fx.tasks:
            assert f'id="task-{run}-{task}"' in html
    assert len(parser.ids) == len(set(parser.ids))                 # several inline SVGs, no id clash
    assert "oracle@1 over one thread, retry depth 0 (the paper&#39;s score)" in html
    assert "ARC Prize score (2 submitted attempts)" in html and "official" not in html
    assert f"only {fx.baseline} solves with its submitted attempts (1): {fx.unsolved}" in html
    assert html.count('<figure class="chart">') == 4               # depth, efficiency, memory, concept usage
    assert 'class="wrong-shape"' in html and "Expected" in html        # attempts against the truth
    assert "The selection's reasoning" in html and "&lt;script&gt;alert(&#39;x&#39;)" in html
    assert "<b>bold</b>" not in html
    assert f"added {LEARNED}" in html                              # the memory written from a task


def test_report_without_the_memory_still_works(web_fixture, tmp_path):
    fx = web_fixture
    out = tmp_path / "report.html"
    result = invoke("runs", "report", fx.continual, "--run-dir", fx.runs, "--db", tmp_path / "gone.db", "-o", out)
    assert result.exit_code == 0, result.output
    assert "is not at hand" in result.output and "pass --db" in result.output
    assert not (tmp_path / "gone.db").exists()                     # a missing memory is not created
    html = out.read_text()
    assert "#1" in html and all(f'id="task-{fx.continual}-{t}"' in html for t in fx.tasks)


def test_report_of_an_unknown_run_is_a_clean_error(tmp_path):
    result = invoke("runs", "report", "nope", "--run-dir", tmp_path, "-o", tmp_path / "r.html")
    assert result.exit_code == 1 and "no run 'nope'" in result.output and not (tmp_path / "r.html").exists()


def test_tasks_show_draws_the_puzzle_as_digits_off_a_terminal(tmp_path):
    task = load_tasks("training", ids=["007bbfb7"]).tasks[0]
    result = invoke("tasks", "show", "007bbfb7")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "007bbfb7: 5 train pairs, 1 test input"
    assert lines[1].split() == ["Example", "1", "input", "Example", "1", "output"]
    first_row = " ".join(str(v) for v in task.train[0].input[0])
    assert lines[2].split()[:3] == first_row.split()
    assert "Test 1 input" in result.output and "Test 1 answer" not in result.output
    assert "Test 1 answer" in invoke("tasks", "show", "007bbfb7", "--answers").output
    png = tmp_path / "t.png"
    written = invoke("tasks", "show", "007bbfb7", "--dataset", "training", "-o", png)
    assert written.exit_code == 0 and Image.open(io.BytesIO(png.read_bytes())).format == "PNG"
    assert written.output == f"wrote {png} (007bbfb7: 5 train pairs, 1 test input)\n"     # no grids as well
    bad = invoke("tasks", "show", "007bbfb7", "-o", tmp_path / "t.gif")
    assert bad.exit_code == 2 and ".png or .svg" in bad.output
    missing = invoke("tasks", "show", "nope")
    assert missing.exit_code == 1 and "no task 'nope'" in missing.output


def test_runs_show_task_marks_differing_cells(web_fixture):
    fx = web_fixture
    result = invoke("runs", "show", fx.continual, "--run-dir", fx.runs, "--task", fx.unsolved)
    assert result.exit_code == 0, result.output
    assert f"{fx.unsolved}, pass 1: oracle@1 (one thread) over its threads 0.00, ARC Prize (submitted) 0.00" \
        in result.output
    assert "Attempt 1 · the model (1x1, expected 3x3)" in result.output and "Expected" in result.output
    assert "0*" in result.output and "differ from the expected output" in result.output
    solved = invoke("runs", "show", fx.continual, "--run-dir", fx.runs, "--task", fx.tasks[1])
    assert "*" not in solved.output.split("\n", 1)[1].replace("(* in plain text)", "")
    missing = invoke("runs", "show", fx.continual, "--run-dir", fx.runs, "--task", "nope")
    assert missing.exit_code == 1 and "has no finished task 'nope'" in missing.output


def test_terminal_colours_on_a_terminal():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=120)
    print_rows([[Panel("got", ((1, 2),), ((1, 3),)), Panel("want", ((1, 3),))]], console)
    text = out.getvalue()
    assert "48;2;0;116;217m" in text           # blue (1) as a cell background
    assert "48;2;255;65;54m" in text           # red (2)
    assert text.count("××") == 1               # the one differing cell
    assert "got" in text and "want" in text
