"""Helpers from memory in the solve loop: offered with the selected concepts, importable by the
solver's programs, their calls counted per concept (in the run's task events and summary; in
the memory for runs that write it);
--helpers off offers none. The scripted fake model, the real sandbox and solver."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_concept_helpers import ROTATE, rotate_concept

from arcmemo.cli import cli
from arcmemo.cli.concepts import _run_usage
from arcmemo.memory.store import Memory
from arcmemo.memory.store.usage import ConceptUse
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.run.records.report import summary_rows
from arcmemo.run.stages.offer import FEW_HELPERS, MANY_HELPERS, helper_limit, helper_use, offer_helpers
from arcmemo.run.stages.prepared import prepared
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import Attempt, load_solver

TASKS = ["6150a2bd", "3c9b0459"]     # both: turn the grid by 180 degrees
CALLS = "```python\nfrom memory_helpers import rotate_grid\n\ndef transform(grid):\n    return rotate_grid(grid, 2)\n```"
OWN = "```python\nimport numpy as np\n\ndef transform(grid):\n    return np.rot90(grid, 2)\n```"


@pytest.fixture
def memory(tmp_path):
    with Memory(tmp_path / "memory.db") as m:
        m.merge(rotate_concept(), actor="test", task_id="6150a2bd")
        m.merge({"name": "plain structure", "kind": "structure", "description": "no code"}, actor="test")
        yield m


def run(tmp_path, llm, memory, **settings):
    """A solve of TASKS; the probe is off unless asked for (tests/test_probe.py tests it)."""
    config = RunConfig(source="training", task_ids=TASKS, **{"retries": 0, "probe_helpers": False, **settings})
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
    return runner, runner.run()


def test_selected_helpers_are_offered_called_and_counted(tmp_path, fake_model, fake_llm, memory):
    fake_model.on("select_ps", lambda messages: "```yaml\n- rotate grid\n- plain structure\n```")
    replies = iter([CALLS, OWN])
    fake_model.on("solve", lambda messages: next(replies))
    runner, summary = run(tmp_path, fake_llm, memory)
    prompts = [c.messages[1]["content"] for c in fake_model.calls_for("solve")]
    assert all("from memory_helpers import rotate_grid" in p and "- rotate_grid(grid, quarter_turns)" in p
               for p in prompts)
    assert summary["oracle2"] == 100.0
    events = {e["task_id"]: e for e in runner.rundir.events() if e["type"] == "task"}
    rotate = memory.get("rotate grid").id
    first, second = (events[t] for t in TASKS)
    assert first["helpers_offered"] == second["helpers_offered"] == ["rotate_grid"]
    assert {r["name"]: (r["offered"], r["called"], r["called_passing"], r["solved"]) for r in first["concept_use"]} == {
        "rotate grid": (1, 1, 1, 1), "plain structure": (1, 0, 0, 0)}
    assert {r["name"]: r["called"] for r in second["concept_use"]} == {"rotate grid": 0, "plain structure": 0}
    assert summary["concept_use"] == {"offered": 4, "called": 1, "called_passing": 1, "solved": 1, "offered_passing": 4}
    assert memory.usage() == {}      # a read-only run leaves memory as it was; its counts are in its events
    assert _run_usage(str(runner.rundir.path), None)[rotate] == ConceptUse(offered=2, called=1, called_passing=1,
                                                                           solved=1, offered_passing=2)
    stats = CliRunner().invoke(cli, ["concepts", "stats", "--db", str(memory.url), "--run", str(runner.rundir.path),
                                     "--json"])
    assert stats.exit_code == 0, stats.output
    assert [(r["name"], r["helper"], r["offered"], r["called"], r["called_passing"], r["solved"])
            for r in json.loads(stats.output)] == [("rotate grid", "rotate_grid", 2, 1, 1, 1),
                                                   ("plain structure", None, 2, 0, 0, 0)]
    assert ("concepts offered / helper called / by a passing program / in a solved task",
            "4 / 1 / 1 / 1") in \
        summary_rows(summary)
    assert runner.rundir.config()["settings"]["max_helpers"] == MANY_HELPERS    # the fake declares no context


def test_a_run_that_writes_memory_counts_its_use_there(tmp_path, fake_model, fake_llm, memory):
    fake_model.on("select_ps", lambda messages: "```yaml\n- rotate grid\n- plain structure\n```")
    replies = iter([CALLS, OWN])
    fake_model.on("solve", lambda messages: next(replies))
    runner, _ = run(tmp_path, fake_llm, memory, continual=True, k=1)
    rotate = memory.get("rotate grid").id
    assert memory.usage()[rotate] == ConceptUse(offered=2, called=1, called_passing=1, solved=1, offered_passing=2)
    assert memory.usage(run_id=runner.rundir.run_id)[rotate] == ConceptUse(2, 1, 1, 1, 2)


def test_a_reselection_before_a_retry_offers_its_concepts_helpers(tmp_path, fake_model, fake_llm, memory):
    def choose(messages):
        again = "A first try failed" in messages[0]["content"]
        return "```yaml\n- " + ("rotate grid" if again else "plain structure") + "\n```"

    fake_model.on("select_ps", choose)
    fake_model.on("solve", lambda messages: OWN.replace("np.rot90(grid, 2)", "grid") if len(messages) == 2 else CALLS)
    runner, summary = run(tmp_path, fake_llm, memory, retries=1, reselect_on_retry=True, probe_helpers=False)
    first, retry = (c.messages for c in fake_model.calls_for("solve")[:2])
    assert "memory_helpers" not in first[1]["content"]                   # the first hint has no helper
    assert "from memory_helpers import rotate_grid" in retry[-1]["content"]
    assert "- rotate_grid(grid, quarter_turns)" in retry[-1]["content"]
    assert summary["oracle2"] == 100.0                                     # the retry's program could import it
    events = {e["task_id"]: e for e in runner.rundir.events() if e["type"] == "task"}
    assert all(events[t]["helpers_offered"] == ["rotate_grid"] for t in TASKS)
    assert {r["name"]: (r["offered"], r["called"], r["called_passing"], r["solved"])
            for r in events[TASKS[0]]["concept_use"]} == {"rotate grid": (1, 1, 1, 1), "plain structure": (1, 0, 0, 0)}
    assert events[TASKS[0]]["threads"][0]["reselections"][0]["helpers"] == ["rotate_grid"]


def test_helpers_off_offers_none_and_the_program_cannot_import_them(tmp_path, fake_model, fake_llm, memory):
    fake_model.on("select_ps", lambda messages: "```yaml\n- rotate grid\n```")
    fake_model.on("solve", lambda messages: CALLS)
    runner, summary = run(tmp_path, fake_llm, memory, helpers=False)
    prompt = fake_model.calls_for("solve")[0].messages[1]["content"]
    assert "# Concepts from memory" in prompt and "memory_helpers" not in prompt
    assert summary["oracle2"] == 0.0 and summary["concept_use"]["called"] == 0
    event = next(e for e in runner.rundir.events() if e["type"] == "task")
    assert event["helpers_offered"] == [] and event["error"] == "exception"   # nothing to import: the program fails
    assert _run_usage(str(runner.rundir.path), None)[memory.get("rotate grid").id] == ConceptUse(offered=2)


def test_how_many_helpers_and_which(memory):
    class Model:
        def __init__(self, window):
            self.window = window

        def context_window(self, role):
            return self.window

    assert helper_limit(Model(8192)) == FEW_HELPERS and helper_limit(Model(128_000)) == MANY_HELPERS
    assert helper_limit(Model(8192), 5) == 5
    concepts = prepared(memory)
    rotate = memory.get("rotate grid")
    assert offer_helpers(concepts, [rotate.id], 0) is None
    offered = offer_helpers(concepts, [c.id for c in concepts.concepts], 3)
    assert offered.names() == ["rotate_grid"] and offered.offered[0].concept == "rotate grid"
    assert offered.module.count("def rotate_grid") == 1 and ROTATE.splitlines()[3] in offered.module
    memory.merge({**rotate_concept(), "name": "turn grid", "helper": {
        **rotate_concept()["helper"], "name": "turn_grid", "source": ROTATE.replace("def rotate_grid", "def turn_grid")}},
        actor="test")
    concepts = prepared(memory)
    turn = memory.get("turn grid")
    assert offer_helpers(concepts, [turn.id, rotate.id], 1).names() == ["turn_grid"]    # the order given
    assert offer_helpers(concepts, [turn.id, rotate.id], 1, {rotate.id: ConceptUse(3, 3, 2, 1)}).names() == ["rotate_grid"]
    used = helper_use([Attempt(0, 0, "x", "", train_correct=[True], helpers_called=["rotate_grid"])], [],
                      concepts.helper_owner, solved=False)
    assert used == {rotate.id: ConceptUse(offered=0, called=1, called_passing=1, solved=0)}   # reached, not offered
