"""One statistic per name, everywhere: real runs of hand-made thread records (4 puzzles, one with two
test inputs, 3 threads, retry depth 2), and every number each view shows of them, worked out by hand.

The records are played by a scripted solver: SCRIPT[task][thread] is the list of the thread's steps
(retry depth 0, 1, 2), each (its output per test input, whether it passed the train pairs, its
train-cell accuracy). "R" is the right output; any other name is a wrong grid, one per name (so two
threads answering "w1" agree). The run layer scores, records, submits and summarises them as it does
any run; the views read the run directories.
"""

from __future__ import annotations

import gc
import json
import re
from contextlib import contextmanager
from pathlib import Path
from statistics import stdev

import pytest
from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.core.choice import top_predictions
from arcmemo.core.tasks import load_tasks
from arcmemo.llm import Usage
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.run.progress.reporter import Reporter
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import Attempt, SolveResult, Trace

P1, P2, P3, P4 = "0d3d703e", "1e0a9b12", "25d8a9c8", "239be575"     # P4 has two test inputs, a and b
TASKS = [P1, P2, P3, P4]
F, T = False, True

SCRIPT = {
    P1: [[("w_a", F, .5), ("R", T, 1.0)],
         [("w_b", F, .2), ("w_c", F, .2), ("w_d", F, .2)],
         [("w_e", F, .3), ("w_f", F, .3), ("R", T, 1.0)]],
    P2: [[("R", F, .9), ("w_g", F, .5), ("w_h", F, .4)],            # right on test, wrong on train
         [("w1", T, 1.0)],                                          # passes train, wrong on test...
         [("w1", T, 1.0)]],                                         # ...and another thread agrees
    P3: [[("w_i", F, .8), ("w_j", F, .7), ("w_k", F, .6)],
         [("w_l", T, 1.0)],
         [("R", F, .1), ("w_m", F, .2), ("w_n", F, .3)]],
    P4: [[(("R", "w_o"), F, .5), (("w_p", "R"), F, .6), (("w_q", "w_r"), F, .4)],
         [(("w_s", "w_t"), F, .1), (("w_u", "w_v"), F, .1), (("R", "R"), T, 1.0)],
         [(("w_w", "R"), F, .3), (("w_x", "R"), F, .3), (("w_y", "R"), F, .3)]],
}
# The headline: oracle@2 over the 3 threads at retry depth 2. A test input solved by m of 3 threads
# (at any step up to depth 2) is in 1 - C(3-m, 2)/C(3, 2) of the 2-subsets: m=1: 2/3, m=2 or 3: 1.
#   P1: t0 (d1) and t2 (d2): m=2 -> 1          P2: t0 (d0): m=1 -> 2/3
#   P3: t2 (d0): m=1 -> 2/3                    P4: a by t0, t1: m=2 -> 1; b by all: m=3 -> 1; mean 1
#   run: (1 + 2/3 + 2/3 + 1) / 4 = 10/12 = 83.33%
HEADLINE = 100 * 10 / 12
# k=1 at depth 2 (the table's neighbour cell): m/3 per input. P1 2/3, P2 1/3, P3 1/3, P4 (2/3 + 1)/2 = 5/6
#   run: (4/6 + 2/6 + 2/6 + 5/6) / 4 = 13/24 = 54.17%
ORACLE1 = 100 * 13 / 24
# strict@2 (one step solves every test input): P1 m=2 -> 1; P2, P3 m=1 -> 2/3; P4 only t1's d2 step
#   solves a and b: m=1 -> 2/3.   run: (1 + 2/3 + 2/3 + 2/3) / 4 = 3/4 = 75.00%
STRICT = 75.0
# Per task (0..1): P1 1, P2 2/3, P3 2/3, P4 1.
PER_TASK = {P1: 1.0, P2: 2 / 3, P3: 2 / 3, P4: 1.0}
#
# What is submitted: each thread's final program is its best step by train verdict, then train-cell
# accuracy (ties: the earlier step); threads are ranked the same way; per test input the distinct
# grids in that order, two at most, topped up from the threads' own second choices.
#   P1: finals t0 R (passed), t2 R (passed), t1 w_b -> [R, w_b]: attempt 1 right
#   P2: finals t1 w1, t2 w1 (passed), t0 R (.9)    -> [w1, R]:  attempt 2 right
#   P3: finals t1 w_l (passed), t0 w_i (.8), t2 w_n (.3) -> [w_l, w_i]: neither
#   P4: finals t1 (R, R) passed, t0 (w_p, R) .6, t2 (w_w, R) .3
#       a: [R, w_p]; b: R only, topped up with t0's own second choice for b, w_o (its d0 step): [R, w_o]
#       attempt 1 = (R, R) solves both; attempt 2 = (w_p, w_o) neither
# ARC Prize score (oracle@2 of the 2 submitted attempts): P1 1, P2 1, P3 0, P4 1 -> 75.00%
ARC_PRIZE = 75.0
# their oracle@1 (mean over the 2 attempts): P1 1/2, P2 1/2, P3 0, P4 (1/2 + 1/2)/2 -> 1.5/4 = 37.50%
SUBMITTED_ORACLE1 = 37.5
# their strict (one attempt solves every input): P1 1, P2 1, P3 0, P4 1 (attempt 1) -> 75.00%
SUBMITTED_STRICT = 75.0
#
# One thread (thread 0 alone, --threads 1): the headline is oracle@1 over one thread at depth 2.
#   P1 right at d1 -> 1; P2 right at d0 -> 1; P3 never -> 0; P4 a at d0, b at d1 -> 1. -> 75.00%
#   submitted: P1 [R, w_a], P2 [R, w_g], P3 [w_i, w_j], P4 a [w_p, R], b [R, w_o] -> ARC 3/4 = 75.00%;
#   their strict: P4's attempts each solve one input only -> P1 1, P2 1, P3 0, P4 0 -> 50.00%
ONE_THREAD = 75.0
ONE_THREAD_SUBMITTED_STRICT = 50.0
#
# A second run of the 3-thread configuration in which P3's thread 1 is right (the variant):
#   P3: t1 (d0) and t2 (d0) -> m=2 -> 1.   headline: (1 + 2/3 + 1 + 1)/4 = 11/12 = 91.67%
#   submitted P3: t1's R passes -> [R, w_i] -> 1.   ARC Prize: 4/4 = 100%
# runs compare --mean over the two: headline (83.33 + 91.67)/2 = 87.50, sample std 8.33/sqrt(2) = 5.89;
#   ARC Prize (75 + 100)/2 = 87.50, std 25/sqrt(2) = 17.68
VARIANT = {**SCRIPT, P3: [SCRIPT[P3][0], [("R", T, 1.0)], SCRIPT[P3][2]]}
VARIANT_HEADLINE = 100 * 11 / 12
MEAN_HEADLINE, MEAN_HEADLINE_STD = 87.5, stdev([HEADLINE, VARIANT_HEADLINE])
MEAN_ARC, MEAN_ARC_STD = 87.5, stdev([75.0, 100.0])


class ScriptedSolver:
    """Answers each thread's steps from a script (module docstring); its thread is its sample offset."""

    name = "scripted"

    def __init__(self, script):
        self.script = script
        self.truth = load_tasks("training", ids=TASKS).answers_for_scoring(True)
        self.wrong: dict[str, tuple] = {}

    def grid(self, task_id: str, j: int, name: str):
        if name == "R":
            return self.truth[task_id].test_outputs[j]
        index = self.wrong.setdefault(name, len(self.wrong))
        return ((9, index // 10, index % 10),)

    def solve(self, task, hint, ctx) -> SolveResult:
        thread = ctx.settings.sample_offset // ctx.settings.attempts
        attempts = []
        for depth, (outputs, passed, accuracy) in enumerate(self.script[task.id][thread]):
            outputs = (outputs,) if isinstance(outputs, str) else outputs
            attempts.append(Attempt(sample=thread, round=depth, code=f"# {task.id} thread {thread} step {depth}",
                                    raw="", train_correct=[passed] * len(task.train), train_cell_accuracy=accuracy,
                                    test_outputs=[self.grid(task.id, j, o) for j, o in enumerate(outputs)]))
        return SolveResult(attempts=attempts, predictions=top_predictions(attempts, len(task.test_inputs)),
                           trace=Trace(final_code=attempts[-1].code), usage=Usage(), solver=self.name)


class Totals(Reporter):
    """Keeps the progress line's running totals."""

    shows_totals = True

    def __init__(self):
        self.lines: list[str] = []

    def totals(self, text):
        self.lines.append(text)


def play(root: Path, llm, script=SCRIPT, threads: int = 3, run_id: str | None = None, progress=None, solver=None):
    config = RunConfig(source="training", task_ids=TASKS, selection="none", threads=threads, retries=2,
                       solver="scripted")
    progress = progress or Totals()
    runner = new_runner(config, memory=Memory(str(root / "memory.db")), make_llm=lambda _: llm,
                        sandbox=get_sandbox(), solver=solver or ScriptedSolver(script), runs_root=str(root / "runs"),
                        progress=progress, run_id=run_id)
    return runner, runner.run(), progress


@contextmanager
def fake_llm():
    from arcmemo.llm.backend import register_model, unregister_model
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.llm.fake import FakeModel

    register_model("fake", FakeModel("fake"))
    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake"))
    try:
        yield llm
    finally:
        llm.close()
        unregister_model("fake")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The three runs: A (the script, 3 threads), B (the variant), C (thread 0 alone)."""
    root = tmp_path_factory.mktemp("scores")
    with fake_llm() as llm:
        a = play(root, llm, run_id="run-a")
        b = play(root, llm, VARIANT, run_id="run-b")
        c = play(root, llm, threads=1, run_id="run-c")
    return root, {"a": a, "b": b, "c": c}


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def cells(text: str, label: str) -> list[str]:
    """The cells after `label` on its line of a text table."""
    line = next(line for line in text.splitlines() if line.startswith(label))
    return re.split(r"\s{2,}", line[len(label):].strip())


def test_the_summary_holds_the_headline_beside_the_submitted_score(runs):
    _, made = runs
    _, summary, _ = made["a"]
    assert summary["headline"] == {"k": 2, "threads": 3, "retry_depth": 2, "oracle": pytest.approx(HEADLINE),
                                   "strict": pytest.approx(STRICT)}
    assert summary["table4"]["oracle"][2][1] == pytest.approx(HEADLINE)              # the same cell
    assert summary["table4"]["oracle"][2][0] == pytest.approx(ORACLE1)
    assert summary["submitted"] == {"attempts": 2, "oracle1": SUBMITTED_ORACLE1, "oracle2": ARC_PRIZE,
                                    "strict": SUBMITTED_STRICT}
    # the older keys stay, meaning what they always meant: the submitted attempts
    assert (summary["oracle1"], summary["oracle2"], summary["strict"]) == (SUBMITTED_ORACLE1, ARC_PRIZE,
                                                                          SUBMITTED_STRICT)
    assert {t: s["headline"] for t, s in summary["per_task"].items()} == pytest.approx(PER_TASK)
    assert summary["passes"][0]["headline"]["oracle"] == pytest.approx(HEADLINE)
    _, one, _ = made["c"]
    assert one["headline"] == {"k": 1, "threads": 1, "retry_depth": 2, "oracle": ONE_THREAD, "strict": 50.0}
    assert (one["submitted"]["oracle2"], one["submitted"]["strict"]) == (75.0, ONE_THREAD_SUBMITTED_STRICT)


def test_the_progress_line_runs_the_headline(runs):
    _, made = runs
    # after P1: 1; after P2: (1 + 2/3)/2 = 83.3; after P3: 7/9 = 77.8; after P4: 83.3
    assert [line.split(" · ")[0] for line in made["a"][2].lines] == ["oracle@2 100.0", "oracle@2 83.3",
                                                                     "oracle@2 77.8", "oracle@2 83.3"]
    assert made["c"][2].lines[-1].startswith("oracle@1 (one thread) 75.0 · ")


def test_what_a_run_starts_with_is_frozen_out_of_the_collector_until_it_ends(tmp_path):
    class Watched(ScriptedSolver):
        frozen: list[int] = []

        def solve(self, task, hint, ctx):
            self.frozen.append(gc.get_freeze_count())
            return super().solve(task, hint, ctx)

    solver = Watched(SCRIPT)
    with fake_llm() as llm:
        play(tmp_path, llm, threads=1, solver=solver)
    assert solver.frozen and min(solver.frozen) > 1000 and gc.get_freeze_count() == 0


def test_a_reporter_that_shows_no_totals_is_given_none(tmp_path):
    class Silent(Totals):
        shows_totals = False

    with fake_llm() as llm:
        _, _, progress = play(tmp_path, llm, threads=1, progress=Silent())
    assert progress.lines == []


def test_runs_list_show_and_their_json(runs):
    root, _ = runs
    listed = {r["run"]: r for r in json.loads(invoke("runs", "list", "--run-dir", root / "runs", "--json"))}
    assert listed["run-a"]["score"] == pytest.approx(HEADLINE) and listed["run-a"]["statistic"] == "oracle@2"
    assert listed["run-a"]["arc_prize"] == ARC_PRIZE and listed["run-c"]["statistic"] == "oracle@1 (one thread)"
    assert listed["run-c"]["score"] == ONE_THREAD and listed["run-b"]["score"] == pytest.approx(VARIANT_HEADLINE)
    text = invoke("runs", "list", "--run-dir", root / "runs")
    assert cells(text, "run-a")[5:9] == ["4 of 4", "83.33", "oracle@2", "75.00"]     # tasks, score, ARC Prize
    assert cells(text, "run-c")[5:9] == ["4 of 4", "75.00", "oracle@1 (one thread)", "75.00"]
    assert "official" not in text

    shown = invoke("runs", "show", "run-a", "--run-dir", root / "runs", "--tasks")
    assert cells(shown, "oracle@2 over 3 threads, retry depth 2 (the paper's score)") == ["83.33"]
    assert cells(shown, "strict@2, the same cell of Table 5") == ["75.00"]
    assert cells(shown, "ARC Prize score (2 submitted attempts)") == ["75.00"]
    assert cells(shown, "the submitted attempts' oracle@1 / strict") == ["37.50 / 75.00"]
    assert [cells(shown, t)[:2] for t in TASKS] == [["1.00", "1.00"], ["0.67", "1.00"], ["0.67", "0.00"],
                                                   ["1.00", "1.00"]]                  # headline, ARC Prize
    assert "official" not in shown
    as_json = json.loads(invoke("runs", "show", "run-a", "--run-dir", root / "runs", "--json"))
    assert as_json["score"]["value"] == pytest.approx(HEADLINE) and as_json["score"]["arc_prize"] == ARC_PRIZE
    assert as_json["score"]["label"] == "oracle@2 over 3 threads, retry depth 2 (the paper's score)"
    one = invoke("runs", "show", "run-c", "--run-dir", root / "runs")
    assert cells(one, "oracle@1 over one thread, retry depth 2 (the paper's score)") == ["75.00"]
    task = invoke("runs", "show", "run-a", "--run-dir", root / "runs", "--task", P2)
    assert f"{P2}, pass 1: oracle@2 over its threads 0.67, ARC Prize (submitted) 1.00, submitted strict 1.00" in task


def test_runs_compare_and_the_mean_over_repeated_configurations(runs):
    root, _ = runs
    compared = invoke("runs", "compare", "run-a", "run-b", "run-c", "--run-dir", root / "runs")
    # score, statistic, strict@k, ARC Prize, score per pass
    assert cells(compared, "run-a")[3:8] == ["83.33", "oracle@2", "75.00", "75.00", "83.3"]
    assert cells(compared, "run-b")[3:7] == ["91.67", "oracle@2", "83.33", "100.00"]
    assert cells(compared, "run-c")[3:7] == ["75.00", "oracle@1 (one thread)", "50.00", "75.00"]
    records = {r["run"]: r for r in json.loads(invoke("runs", "compare", "run-a", "run-c", "--run-dir",
                                                       root / "runs", "--json"))}
    assert records["run-a"]["score"] == pytest.approx(HEADLINE) and records["run-a"]["arc_prize"] == ARC_PRIZE
    assert records["run-a"]["submitted"] == {"oracle1": 37.5, "oracle2": 75.0, "strict": 75.0}
    assert records["run-c"]["statistic"] == "oracle@1 (one thread)"

    mean = invoke("runs", "compare", "run-a", "run-b", "--mean", "--run-dir", root / "runs")
    assert cells(mean, "oracle@2 over threads, retry depth 2 (the paper's score)") == [
        f"{MEAN_HEADLINE:.2f} ({MEAN_HEADLINE_STD:.2f})"]                                    # 87.50 (5.89)
    assert cells(mean, "ARC Prize score (2 submitted attempts)") == [f"{MEAN_ARC:.2f} ({MEAN_ARC_STD:.2f})"]
    means = json.loads(invoke("runs", "compare", "run-a", "run-b", "--mean", "--json", "--run-dir", root / "runs"))
    assert means["headline"]["oracle"] == {"mean": pytest.approx(MEAN_HEADLINE), "std": pytest.approx(MEAN_HEADLINE_STD)}
    assert means["arc_prize"] == {"mean": MEAN_ARC, "std": pytest.approx(MEAN_ARC_STD)}


def test_the_report_and_the_page(runs):
    root, _ = runs
    out = root / "report.html"
    invoke("runs", "report", "run-a", "run-c", "--run-dir", root / "runs", "-o", out)
    html = out.read_text()
    assert re.search(r"oracle@2 over 3 threads, retry depth 2 \(the paper&#39;s score\)</td><td class=\"num\">83.33<",
                     html)
    assert re.search(r"ARC Prize score \(2 submitted attempts\)</td><td class=\"num\">75.00<", html)
    assert "oracle@2 over its threads 0.67; ARC Prize (submitted) 1.00" in html          # P2's section
    assert "official" not in html

    starlette_testclient = pytest.importorskip("starlette.testclient")
    from arcmemo.web.app import create_app

    with Memory(str(root / "memory.db")) as memory:
        app = create_app(memory, root / "runs", actor="user:test", allowed_hosts=["testserver"])
        with starlette_testclient.TestClient(app) as client:
            listing = client.get("/runs").text
            page = client.get("/runs/run-a").text
            compare = client.get("/runs/compare?run=run-a&run=run-c").text
    row = re.search(r'href="/runs/run-a">run-a</a>.*?</tr>', listing, re.S).group(0)
    assert re.findall(r'<td class="num">([^<]*)(?:</td>| <span class="muted">([^<]*)</span>)', row) == [
        ("4 of 4", ""), ("83.33", "oracle@2"), ("75.00", "")]
    assert ">83.33<" in page and ">75.00<" in page and "oracle@2 over its threads" in page
    assert re.search(r'<td class="num">0.67</td><td class="num">1.00</td>', page)       # P2: headline, ARC
    assert re.findall(r"<tr><td class=\"num\">run-[ac]</td>.*?</tr>", compare) and "83.33" in compare
    assert "official" not in listing + page + compare


def test_the_sweep_table(tmp_path, fake_model, monkeypatch):
    import arcmemo.solverkit

    monkeypatch.setattr(arcmemo.solverkit, "load_solver", lambda name: ScriptedSolver(SCRIPT))
    Memory(str(tmp_path / "start.db")).close()
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(f"name: scores\nsolve: {{source: training, task_ids: [{', '.join(TASKS)}], retries: 2, "
                     "selection: none, solver: scripted, solver_model: fake}\ngrid:\n  threads: [3, 1]\n")
    text = invoke("sweep", sweep, "--db", tmp_path / "start.db", "--run-dir", tmp_path / "runs", "-q")
    record = json.loads((tmp_path / "runs" / "sweeps" / "scores.json").read_text())
    assert cells(text, record["threads=3#1"])[3:7] == ["83.33", "oracle@2", "75.00", "75.00"]
    assert cells(text, record["threads=1#1"])[3:7] == ["75.00", "oracle@1 (one thread)", "50.00", "75.00"]


def copy_run(runs, name: str, to: Path, *, config=None, summary=None) -> Path:
    """A copy of run `name` at `to/runs/<name>`, its config.json and summary.json changed by the given functions."""
    import shutil

    root, _ = runs
    target = to / "runs" / name
    shutil.copytree(root / "runs" / name, target)
    for filename, change in (("config.json", config), ("summary.json", summary)):
        if change is not None:
            path = target / filename
            path.write_text(json.dumps(change(json.loads(path.read_text()))))
    return target


def test_a_test_informed_run_is_marked_wherever_its_score_is_shown(runs, tmp_path):
    copy_run(runs, "run-a", tmp_path, config=lambda c: {**c, "protocol": {"name": "released-code",
                                                                          "retry_when": "test-fails",
                                                                          "test_informed": True}})
    copy_run(runs, "run-b", tmp_path)
    root = tmp_path / "runs"
    # the footnote says which choice let a test output decide (here the record's retry_when)
    footnote = "† test-informed: a test output decided which attempts were retried (retry_when=test-fails)"
    listed = invoke("runs", "list", "--run-dir", root)
    assert cells(listed, "run-a")[6] == "83.33 †" and cells(listed, "run-b")[6] == "91.67" and footnote in listed
    assert json.loads(invoke("runs", "list", "--run-dir", root, "--json"))[0]["test_informed"] is True
    shown = invoke("runs", "show", "run-a", "--run-dir", root)
    assert cells(shown, "oracle@2 over 3 threads, retry depth 2 (the paper's score)") == ["83.33 †"]
    assert cells(shown, "ARC Prize score (2 submitted attempts)") == ["75.00 †"] and footnote in shown
    compared = invoke("runs", "compare", "run-a", "run-b", "--run-dir", root)
    assert cells(compared, "run-a")[3] == "83.33 †" and cells(compared, "run-b")[3] == "91.67" and footnote in compared
    mean = invoke("runs", "compare", "run-a", "run-b", "--mean", "--allow-mismatch", "--run-dir", root)
    assert cells(mean, "oracle@2 over threads, retry depth 2 (the paper's score)")[0].endswith(" †")
    assert "† test-informed: a test output decided" in mean
    invoke("runs", "report", "run-a", "--run-dir", root, "-o", tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    assert ">83.33 †<" in html and footnote in html
    untouched = invoke("runs", "show", "run-b", "--run-dir", root)
    assert "†" not in untouched                                          # a clean run carries no mark

    refused = CliRunner().invoke(cli, ["runs", "export", "run-a", "--run-dir", str(root),
                                       "--kaggle", str(tmp_path / "k.json")])
    assert refused.exit_code == 1 and "is test-informed" in refused.output and "--allow-test-informed" in refused.output
    assert "decided which attempts were retried (retry_when=test-fails)" in refused.output
    assert not (tmp_path / "k.json").exists()
    invoke("runs", "export", "run-a", "--run-dir", root, "--harness", tmp_path / "h", "--allow-test-informed")
    assert len(list((tmp_path / "h").iterdir())) == 4


def test_the_page_marks_a_test_informed_run(runs, tmp_path):
    starlette_testclient = pytest.importorskip("starlette.testclient")
    from arcmemo.web.app import create_app

    copy_run(runs, "run-a", tmp_path, config=lambda c: {**c, "protocol": {"name": "x", "test_informed": True}})
    with Memory(str(tmp_path / "memory.db")) as memory:
        app = create_app(memory, tmp_path / "runs", actor="user:test", allowed_hosts=["testserver"])
        with starlette_testclient.TestClient(app) as client:
            listing, page = client.get("/runs").text, client.get("/runs/run-a").text
    for html in (listing, page):
        assert "83.33 †" in html and "† test-informed" in html
    assert '<td class="num">0.67 †</td><td class="num">1.00 †</td>' in page          # P2 in the task list


def old_summary(summary: dict, table: bool = True) -> dict:
    """A summary as runs recorded it before the headline: submitted-attempt scores (and maybe table4)."""
    old = {k: v for k, v in summary.items() if k not in ("headline", "submitted")}
    old["passes"] = [{k: v for k, v in p.items() if k in ("pass", "tasks", "oracle1", "oracle2", "strict")}
                     for p in summary["passes"]]
    old["per_task"] = {t: {k: v for k, v in s.items() if k != "headline"} for t, s in summary["per_task"].items()}
    if not table:
        old.pop("table4")
    return old


def test_a_run_recorded_before_the_headline_is_read_as_recorded(runs, tmp_path):
    copy_run(runs, "run-a", tmp_path, summary=old_summary)
    copy_run(runs, "run-b", tmp_path, summary=lambda s: old_summary(s, table=False))
    root = tmp_path / "runs"
    # run-a: its recorded table4's cell [2][1] is the headline; its oracle2 is the ARC Prize score
    shown = invoke("runs", "show", "run-a", "--run-dir", root, "--tasks")
    assert cells(shown, "oracle@2 over 3 threads, retry depth 2 (the paper's score)") == ["83.33"]
    assert cells(shown, "ARC Prize score (2 submitted attempts)") == ["75.00"]
    assert cells(shown, P2)[:2] == ["-", "1.00"]                      # per task: no headline was recorded
    # run-b, recorded without table4: no headline, never one made up from its other numbers
    listed = {r["run"]: r for r in json.loads(invoke("runs", "list", "--run-dir", root, "--json"))}
    assert listed["run-b"]["score"] is None and listed["run-b"]["arc_prize"] == 100.0
    assert listed["run-b"]["score_unknown"] == "not recorded (run from before per-thread records)"
    compared = invoke("runs", "compare", "run-a", "run-b", "--run-dir", root)
    assert cells(compared, "run-a")[3] == "83.33" and cells(compared, "run-b")[3].startswith("not recorded")
    assert cells(compared, "run-b")[6] == "100.00"


def test_a_run_without_test_outputs_shows_unknown_everywhere(tmp_path, fake_model, fake_llm):
    from runner_support import TASK_IDS, script_run

    from arcmemo.solverkit import load_solver

    ids = TASK_IDS[:2]
    folder = tmp_path / "tasks"
    folder.mkdir()
    for task in load_tasks("training", ids=ids):
        entry = task.to_dict()
        del entry["id"]                                   # task files with test inputs and no outputs
        (folder / f"{task.id}.json").write_text(json.dumps(entry))
    script_run(fake_model, task_ids=ids)
    config = RunConfig(source=str(folder), selection="none", retries=0)
    runner = new_runner(config, memory=Memory(str(tmp_path / "memory.db")), make_llm=lambda _: fake_llm,
                        sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                        runs_root=str(tmp_path / "runs"))
    assert runner.run()["scored"] is False
    run, root, unknown = runner.rundir.run_id, tmp_path / "runs", "unknown (no test outputs)"
    listed = invoke("runs", "list", "--run-dir", root)
    assert cells(listed, run)[6:9] == [unknown, "oracle@1 (one thread)", "unknown"]
    shown = invoke("runs", "show", run, "--run-dir", root, "--tasks")
    assert cells(shown, "oracle@1 over one thread, retry depth 0 (the paper's score)") == [unknown]
    assert cells(shown, "ARC Prize score (2 submitted attempts)") == [unknown]
    assert cells(shown, ids[0])[:4] == ["unknown"] * 4
    compared = invoke("runs", "compare", run, "--run-dir", root)
    assert cells(compared, run)[3:7] == [unknown, "oracle@1 (one thread)", unknown, unknown]
    invoke("runs", "report", run, "--run-dir", root, "-o", tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    assert f'(the paper&#39;s score)</td><td class="num">{unknown}<' in html
    assert not re.search(r"(score|ARC Prize|submitted[^<]*)</td><td class=\"num\">0\.00", html)
