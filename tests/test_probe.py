"""Probing memory's helpers (run/stages/probe.py): which calls are tried, that a call giving every
train output is found by running it in the real sandbox, and that a solve offers it first and
names it in the hint (--no-probe-helpers: not)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from test_concept_helpers import VERIFIED, rotate_concept
from test_helper_runs import CALLS, TASKS, memory, run  # noqa: F401  (memory: the helper runs' fixture)

from arcmemo.core.tasks import load_tasks
from arcmemo.memory.helpers.probing import MAX_CALLS_PER_HELPER, candidate_calls
from arcmemo.memory.helpers.value import Helper, Verified
from arcmemo.memory.views.library import Library
from arcmemo.run.config import RunConfig
from arcmemo.run.records.report import summary_rows
from arcmemo.run.stages.inferred import TaskFacts, task_colors
from arcmemo.run.stages.prepared import Prepared
from arcmemo.run.stages.probe import probe
from arcmemo.sandbox import get_sandbox

FLIP = '''import numpy as np


def flip_grid(grid, axis, copy=True):
    """Mirror the grid.

    Example: flip_grid(np.array([[1, 2]]), "horizontal") -> [[2, 1]]
    """
    grid = np.asarray(grid)
    return (grid[:, ::-1] if axis == "horizontal" else grid[::-1, :]).copy()
'''


def concept(name: str, source: str, params: list[tuple[str, str]], output: str = "grid", cid: int = 1):
    helper = Helper(name, source, (), Verified.from_data(VERIFIED))
    return SimpleNamespace(id=cid, name=name, output_typing=output, helper=helper,
                           parameters=[{"name": n, "typing": t} for n, t in params])


def source(signature: str) -> str:
    return f"def {signature}:\n    return grid\n"


@pytest.mark.parametrize("signature, params, output, expected", [
    ("turn(grid, k)", [("grid", "grid"), ("k", "int")], "grid", ["turn(grid, 1)", "turn(grid, 2)", "turn(grid, 3)",
                                                                  "turn(grid, 4)"]),
    ("paint(grid, color)", [("grid", "grid"), ("color", "color")], "grid", ["paint(grid, 0)", "paint(grid, 5)"]),
    ("mirror(grid, axis)", [("grid", "grid"), ("axis", "horizontal | vertical")], "grid",
     ["mirror(grid, 'horizontal')", "mirror(grid, 'vertical')"]),
    ("blobs(grid, connectivity=4)", [("grid", "grid"), ("connectivity", "4 | 8")], "grid",
     ["blobs(grid, connectivity=4)", "blobs(grid, connectivity=8)"]),
    ("keep(grid, wrap=False)", [("grid", "grid"), ("wrap", "bool")], "grid", ["keep(grid, wrap=True)",
                                                                                "keep(grid, wrap=False)"]),
    # an optional parameter of a type with too many values stays at its default
    ("shade(grid, rule=None)", [("grid", "grid"), ("rule", "cell rule")], "grid", ["shade(grid)"]),
    # not tried: a required parameter that cannot be filled, a first parameter that is not the
    # grid, something other than a grid returned, a type word among the choices
    ("recolor(grid, mapping)", [("grid", "grid"), ("mapping", "color mapping")], "grid", []),
    ("join(blocks)", [("blocks", "list[list[grid]]")], "grid", []),
    ("count(grid, color)", [("grid", "grid"), ("color", "color")], "int", []),
    ("crop(grid, region)", [("grid", "grid"), ("region", "object | mask")], "grid", []),
])
def test_the_calls_tried_come_from_the_typed_parameters(signature, params, output, expected):
    name = signature.split("(")[0]
    assert candidate_calls(concept(name, source(signature), params, output), TaskFacts(colors=(0, 5))) == expected


def test_too_many_combinations_are_not_tried():
    params = [("grid", "grid"), ("a", "color"), ("b", "color")]
    few, many = TaskFacts(colors=tuple(range(5))), TaskFacts(colors=tuple(range(10)))
    assert candidate_calls(concept("two", source("two(grid, a, b)"), params), few) != []   # 25 calls
    assert len(candidate_calls(concept("two", source("two(grid, a, b)"), params), few)) <= MAX_CALLS_PER_HELPER
    assert candidate_calls(concept("two", source("two(grid, a, b)"), params), many) == []       # 100


def test_the_probe_finds_the_call_that_gives_every_train_output():
    tasks = load_tasks("training", ids=["6150a2bd", "68b16354", "0d3d703e"])
    rotate = concept("rotate_grid", rotate_concept()["helper"]["source"], [("grid", "grid"), ("quarter_turns", "int")])
    flip = concept("flip_grid", FLIP, [("grid", "grid"), ("axis", "horizontal | vertical"), ("copy", "bool")], cid=2)
    sandbox, helpers = get_sandbox(), Prepared(Library([rotate, flip]))
    fits, tried = probe(tasks.by_id("6150a2bd"), helpers, sandbox)      # a half turn
    assert [(f.concept_id, f.call) for f in fits] == [(1, "rotate_grid(grid, 2)")] and tried == 4 + 4
    fits, _ = probe(tasks.by_id("68b16354"), helpers, sandbox)           # upside down
    assert [f.call for f in fits] == ["flip_grid(grid, 'vertical', copy=True)"]
    assert probe(tasks.by_id("0d3d703e"), helpers, sandbox)[0] == []     # a recolouring: nothing fits
    assert task_colors(tasks.by_id("0d3d703e")) == sorted(task_colors(tasks.by_id("0d3d703e")))


# `arm` leaves a mark on the helpers module; `liar` gives a half turn only where the mark is,
# which in a batch it is after arm's call, and in a run of its own never
POISON = '''import numpy as np

ARMED = []


def arm(grid, k):
    ARMED.append(k)
    return np.asarray(grid)


def liar(grid, k):
    grid = np.asarray(grid)
    return grid[::-1, ::-1].copy() if ARMED else grid
'''


def test_a_call_fits_only_when_it_fits_alone():
    """Calls are tried many to a sandbox run; one whose outputs were right there only because
    another call changed the helpers' state is not a fit: a fit is confirmed in a run of its own."""
    task = load_tasks("training", ids=["6150a2bd"]).by_id("6150a2bd")        # a half turn
    arm = concept("arm", POISON, [("grid", "grid"), ("k", "int")])
    liar = concept("liar", POISON, [("grid", "grid"), ("k", "int")], cid=2)
    fits, tried = probe(task, Prepared(Library([arm, liar])), get_sandbox())
    assert tried == 8 and fits == []


@pytest.mark.parametrize("probing", [True, False])
def test_a_fit_adds_to_what_the_read_shows(tmp_path, fake_model, fake_llm, memory, probing):  # noqa: F811
    """The probe never replaces the method's read: the select model still chooses (its choice is in
    the hint), and the fitting call is named first, with only its helper offered."""
    memory.merge({"name": "flip grid", "kind": "routine", "output_typing": "grid", "description": "mirror it",
                  "parameters": [{"name": "grid", "typing": "grid"}, {"name": "axis", "typing": "horizontal | vertical"},
                                 {"name": "copy", "typing": "bool"}],
                  "helper": {"name": "flip_grid", "source": FLIP, "depends": [], "verified": dict(VERIFIED)}},
                 actor="test")
    fake_model.on("select_ps", lambda messages: "```yaml\n- plain structure\n- flip grid\n```")   # not the rotation
    fake_model.on("solve", lambda messages: CALLS)
    runner, summary = run(tmp_path, fake_llm, memory, probe_helpers=probing)
    prompt = fake_model.calls_for("solve")[0].messages[1]["content"]
    events = {e["task_id"]: e for e in runner.rundir.events() if e["type"] == "task"}
    chosen = [r["concepts"] for r in runner.rundir.selections()]
    assert len(fake_model.calls_for("select_ps")) == 2 and chosen == [["plain structure", "flip grid"]] * 2
    assert "plain structure" in prompt                  # the read's hint, whatever the probe found
    if probing:                      # the fitting call named first, and only its helper offered
        fits = prompt.index("gave exactly that example's output")
        assert prompt.index("    rotate_grid(grid, 2)\n") > fits       # named first: before the concepts
        assert fits < prompt.index("# Concepts from memory") < prompt.index("# Helper functions from memory")
        assert "from memory_helpers import rotate_grid\n" in prompt and "import flip_grid" not in prompt
        assert summary["oracle2"] == 100.0
        assert all(events[t]["helper_fits"] == ["rotate_grid(grid, 2)"] for t in TASKS)
        assert summary["probe_fit_tasks"] == sorted(TASKS)
        assert ("tasks where a helper call gave every train output (probe)", 2) in summary_rows(summary)
        use = {r["name"]: (r["offered"], r["called"]) for r in events[TASKS[0]]["concept_use"]}
        assert use["rotate grid"] == (1, 1) and use["flip grid"] == (1, 0)
    else:
        assert "from memory_helpers import flip_grid\n" in prompt and "rotate_grid" not in prompt
        assert "concept: rotate grid" not in prompt
        assert summary["oracle2"] == 0.0
        assert all(events[t]["helper_fits"] == [] for t in TASKS) and summary["probe_fit_tasks"] == []
    assert runner.rundir.config()["settings"]["probe_helpers"] is probing


@pytest.mark.parametrize("mode", ["none", "oe", "cheatsheet", "reasoningbank", "ace"])
def test_every_method_probes_the_same_way_when_asked(tmp_path, fake_model, fake_llm, memory, mode):  # noqa: F811
    """Memory's probe is a stage of every method: asked for, it finds the same fit whatever the method
    reads, names it and offers its helper; left to the method's default, these methods do not probe."""
    fake_model.on("solve", lambda messages: CALLS)
    fake_model.on("caption", lambda messages: "<observations>\n- a\n</observations>")
    fake_model.on("select_oe", lambda messages: "```yaml\n[]\n```")
    runner, summary = run(tmp_path / "on", fake_llm, memory, selection=mode, probe_helpers=True, continual=True)
    assert "from memory_helpers import rotate_grid\n" in fake_model.calls_for("solve")[0].messages[1]["content"]
    assert all(e["helper_fits"] == ["rotate_grid(grid, 2)"] for e in runner.rundir.events() if e["type"] == "task")
    assert summary["oracle2"] == 100.0 and summary["fit_answer_tasks"] == sorted(TASKS)
    fake_model.calls.clear()
    runner, summary = run(tmp_path / "default", fake_llm, memory, selection=mode, probe_helpers=None)
    assert runner.rundir.config()["settings"]["probe_helpers"] is False
    assert "memory_helpers" not in fake_model.calls_for("solve")[0].messages[1]["content"]
    assert all(e["helper_fits"] == [] for e in runner.rundir.events() if e["type"] == "task")


def test_a_run_recorded_before_the_probe_resumes_without_it():
    assert RunConfig.from_dict({"source": "training"}).probe_helpers is False
    assert RunConfig(source="training").probe_helpers is True              # ps's default
    assert RunConfig(source="training", selection="ace").probe_helpers is False


def test_select_shows_what_the_probe_chose(memory, fake_model):  # noqa: F811
    from click.testing import CliRunner

    from arcmemo.cli import cli

    fake_model.on("select_ps", lambda messages: "```yaml\n- plain structure\n```")
    args = ["select", "6150a2bd", "--db", str(memory.url), "--select-model", "fake", "--aux-model", "fake"]
    probed = CliRunner().invoke(cli, args)
    assert probed.exit_code == 0, probed.output
    assert "probe: every train output from rotate_grid(grid, 2) (named first in the hint)" in probed.output
    assert "plain structure" in probed.output.split("--- hint ---")[0] and len(fake_model.calls_for("select_ps")) == 1
    assert "rotate_grid(grid, 2)" in probed.output.split("--- hint ---")[1]       # as the solver's prompt shows it
    guessed = CliRunner().invoke(cli, args + ["--no-probe-helpers"])
    assert guessed.exit_code == 0 and "probe:" not in guessed.output
    assert "plain structure" in guessed.output.split("--- hint ---")[0]


def test_a_task_is_probed_once_whatever_its_threads_and_retries(tmp_path, fake_model, fake_llm, memory,  # noqa: F811
                                                                 monkeypatch):
    import arcmemo.run.stages.probe as probe_module

    probed = []

    def counting(task, concepts, sandbox, **kwargs):
        probed.append(task.id)
        return probe(task, concepts, sandbox, **kwargs)

    monkeypatch.setattr(probe_module, "probe", counting)
    fake_model.on("select_ps", lambda messages: "```yaml\n- plain structure\n```")       # the re-selections
    fake_model.on("solve", lambda messages: "```python\ndef transform(grid):\n    return [[0]]\n```")
    runner, _ = run(tmp_path, fake_llm, memory, probe_helpers=True, threads=2, retries=1, reselect_on_retry=True)
    assert sorted(probed) == sorted(TASKS)
    events = [e for e in runner.rundir.events() if e["type"] == "task"]
    assert all(e["helper_fits"] == ["rotate_grid(grid, 2)"] for e in events)
    assert all(r["helpers"] == ["rotate_grid"] for e in events for t in e["threads"] for r in t["reselections"])


@pytest.mark.parametrize("as_answers", [True, False])
def test_a_fit_is_a_candidate_answer_made_by_memory(tmp_path, fake_model, fake_llm, memory, as_answers):  # noqa: F811
    from click.testing import CliRunner

    from arcmemo.cli import cli

    fake_model.on("solve", lambda messages: "```python\ndef transform(grid):\n    return grid\n```")   # wrong
    runner, summary = run(tmp_path, fake_llm, memory, probe_helpers=True, fits_as_answers=as_answers)
    events = {e["task_id"]: e for e in runner.rundir.events() if e["type"] == "task"}
    assert all(e["helper_fits"] == ["rotate_grid(grid, 2)"] for e in events.values())
    assert all(not e["passed_train"] for e in events.values())          # the model's program: memory learns nothing
    steps = [(s["label"], s["sample"], s["passed_train"]) for s in events[TASKS[0]]["threads"][0]["steps"]]
    if as_answers:                  # the fit's program ran on the test inputs and ranked first by its train pairs
        assert summary["oracle2"] == 100.0 and summary["fit_answer_tasks"] == sorted(TASKS)
        assert all(e["fit_answers"] == ["rotate_grid(grid, 2)"] for e in events.values())
        assert steps == [("memory fit", -1, True), ("", 0, False)]
        assert summary["table4"]["oracle"][0][0] == 100.0                  # Table 4 counts it at depth 0
        assert ("tasks answered by memory's fit (its output submitted)", 2) in summary_rows(summary)
        assert ("concepts offered / helper called / by a passing program / in a solved task",       # counted too
                "2 / 0 + 2 by memory's fit / 0 + 2 / 0 + 2") in summary_rows(summary)
        assert ("passed train pairs (the model's program or memory's fit)", 2) in summary_rows(summary)
        shown = CliRunner().invoke(cli, ["runs", "show", str(runner.rundir.path), "--task", TASKS[0]])
        assert shown.exit_code == 0, shown.output
        assert "solved by memory's fit; train pairs passed by memory's fit" in shown.output
        assert ("memory's fit rotate_grid(grid, 2): gave every train output, right on the test (submitted as attempt 1)"
                in shown.output)
        assert "Attempt 1 · memory's fit" in shown.output          # the picture says who made the right attempt
    else:
        assert summary["oracle2"] == 0.0 and summary["fit_answer_tasks"] == []
        assert steps == [("", 0, False)] and all(e["fit_answers"] == [] for e in events.values())
    assert summary["concept_use"]["called"] == 0                       # memory's own call is not the model's use
    assert runner.rundir.config()["settings"]["fits_as_answers"] is as_answers


def test_a_run_recorded_before_fits_were_answers_resumes_without_them():
    assert RunConfig.from_dict({"source": "training", "probe_helpers": True}).fits_as_answers is False
    assert RunConfig(source="training").fits_as_answers is True


def test_memory_learns_nothing_from_its_own_fit(tmp_path, fake_model, fake_llm, memory):  # noqa: F811
    from arcmemo.run.stages.probe import FIT_LABEL, model_steps

    fake_model.on("solve", lambda messages: "```python\ndef transform(grid):\n    return grid\n```")   # wrong
    before = memory.revision()
    runner, summary = run(tmp_path, fake_llm, memory, probe_helpers=True, continual=True, k=1)
    assert summary["fit_answer_tasks"] == sorted(TASKS) and summary["writes"] == 0 and memory.revision() == before
    threads = next(e for e in runner.rundir.events() if e["type"] == "task")["threads"]
    assert [s["label"] for s in threads[0]["steps"]] == [FIT_LABEL, ""]
    assert [s["label"] for s in model_steps(threads)[0]["steps"]] == [""]     # what a memory method is shown


def test_in_pass_order_a_later_pass_keeps_the_fits_answer(tmp_path, fake_model, fake_llm, memory):  # noqa: F811
    fake_model.on("solve", lambda messages: "```python\ndef transform(grid):\n    return grid\n```")   # never right
    runner, summary = run(tmp_path, fake_llm, memory, probe_helpers=True, continual=True, k=2, retries=1,
                          protocol={"name": "arcmemo", "continual_order": "pass"})
    latest = {e["task_id"]: e for e in runner.rundir.events() if e["type"] == "task"}      # the second pass's
    assert {e["pass_index"] for e in latest.values()} == {2}
    assert all(e["fit_answers"] == ["rotate_grid(grid, 2)"] for e in latest.values())
    assert [s["label"] for s in latest[TASKS[0]]["threads"][0]["steps"]] == ["memory fit", "", ""]
    assert summary["fit_answer_tasks"] == sorted(TASKS) and summary["table4"]["oracle"][0][0] == 100.0
