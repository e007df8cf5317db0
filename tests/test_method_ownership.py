"""Each memory method owns the items it shows the model (issue 40): a run reads and writes only its
own method's items (memory/store/scoped.py), unless the method option reads_from names others;
`none` learns nothing; lessons from failures belong to the method that wrote them; consolidation
stays within one method's items."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_support import TASK_IDS, script_run

from arcmemo.memory.errors import ConceptExists, UnknownConcept
from arcmemo.memory.schema.concept import owner_of
from arcmemo.memory.store import Memory
from arcmemo.memory.store.scoped import method_memory
from arcmemo.memory.views.library import library
from arcmemo.methods import MethodOptionError
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver

PS_LESSON = {"format": "oe", "situation": "A ps run's lesson: the output keeps the input's size.",
             "suggestion": "Start from a copy of the input.", "meta": {"from": "failure", "method": "ps"}}
OE_LESSON = {"format": "oe", "situation": "An oe lesson: colours swap in pairs.", "suggestion": "Find the pairs."}


@pytest.fixture
def memory(tmp_path):
    memory = Memory(str(tmp_path / "memory.db"))
    memory.add({"name": "recolor", "kind": "routine", "description": "a colour table"}, actor="test")
    memory.add(PS_LESSON, actor="test")
    memory.add(OE_LESSON, actor="test")
    yield memory
    memory.close()


def test_an_item_belongs_to_the_method_its_meta_names_else_to_its_formats_owner(memory):
    owners = {c.name: owner_of(c) for c in memory.list()}
    assert sorted(owners.values()) == ["oe", "ps", "ps"]
    assert owner_of({"format": "playbook"}) == "ace" and owner_of({"format": "sheet"}) == "cheatsheet"


def test_a_method_sees_and_writes_only_its_own_items(memory):
    oe, ps = method_memory(memory, "oe"), method_memory(memory, "ps")
    assert [c.suggestion for c in oe.list("oe")] == [OE_LESSON["suggestion"]]
    assert [c.suggestion for c in ps.list("oe")] == [PS_LESSON["suggestion"]]
    assert oe.get("recolor") is None and ps.get("recolor").name == "recolor"
    written = ps.merge({"format": "oe", "situation": "Another ps lesson.", "suggestion": "Count first."},
                       actor="test").concept
    assert owner_of(written) == "ps" and written.meta == {"method": "ps"}
    assert oe.merge({"format": "oe", "situation": "x", "suggestion": "y"}, actor="test").concept.meta is None
    diary = method_memory(memory, "diary")
    with pytest.raises(ConceptExists, match="belongs to method 'ps', not 'diary'"):
        diary.merge({"name": "recolor", "description": "taken over"}, actor="test")
    with pytest.raises(UnknownConcept):
        oe.delete("recolor", actor="test", reason="not mine")
    assert memory.get("recolor").description == "a colour table"
    shared = method_memory(memory, "oe", reads_from=["ps"])
    assert len(shared.list("oe")) == 4
    with pytest.raises(ConceptExists, match="'oe' reads it but may not change it"):
        shared.edit("recolor", {"description": "changed"}, actor="test", reason="r")


def test_a_methods_library_is_the_whole_one_filtered_once_per_revision(memory):
    whole = library(memory, "ps")
    assert library(method_memory(memory, "ps"), "ps") is whole           # every PS concept is ps's
    oe = library(method_memory(memory, "oe"), "oe")
    assert [c.suggestion for c in oe.concepts] == [OE_LESSON["suggestion"]]
    assert library(method_memory(memory, "oe"), "oe") is oe               # kept with the revision
    memory.add({"format": "oe", "situation": "New.", "suggestion": "Newer."}, actor="test")
    assert len(library(method_memory(memory, "oe"), "oe").concepts) == 2


def test_reads_from_is_an_option_of_every_method(memory):
    assert RunConfig(selection="ace", method_options={"reads_from": "ps, oe"}).method_options["reads_from"] == \
        ["oe", "ps"]
    assert RunConfig(selection="ace").method_options["reads_from"] == []
    with pytest.raises(MethodOptionError, match="reads_from must name memory methods"):
        RunConfig(selection="ps", method_options={"reads_from": 3})


def solve(tmp_path: Path, llm, memory, name: str, **settings):
    config = RunConfig(source="training", task_ids=TASK_IDS[:2], retries=0, probe_helpers=False, **settings)
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"), run_id=name)
    return runner, runner.run()


def test_none_with_continual_leaves_memory_as_it_was(tmp_path, fake_model, fake_llm, memory):
    script_run(fake_model)
    path = Path(str(memory.url))
    before = path.read_bytes()
    runner, summary = solve(tmp_path, fake_llm, memory, "none", selection="none", continual=True, k=1)
    assert summary["writes"] == 0 and summary["passed_train"]          # it solved, and learned nothing
    assert path.read_bytes() == before
    assert not fake_model.calls_for("ps_abstraction")


def test_an_oe_run_never_shows_what_a_ps_run_wrote_unless_told_to(tmp_path, fake_model, fake_llm, memory):
    script_run(fake_model)
    fake_model.on("caption", lambda messages: "<observations>\n- colours change\n</observations>\n"
                                              "<speculation>\n- a table\n</speculation>")
    fake_model.on("select_oe", lambda messages: "```yaml\n- 1\n```")
    solve(tmp_path, fake_llm, memory, "oe", selection="oe")
    prompts = [c.prompt for c in fake_model.calls_for("select_oe")]
    assert prompts and all(PS_LESSON["suggestion"] not in p and OE_LESSON["suggestion"] in p for p in prompts)
    fake_model.calls.clear()
    solve(tmp_path, fake_llm, memory, "oe-shared", selection="oe", method_options={"reads_from": ["ps"]})
    assert all(PS_LESSON["suggestion"] in c.prompt for c in fake_model.calls_for("select_oe"))


def test_a_runs_consolidation_merges_only_its_methods_items(memory):
    from arcmemo.consolidation.plan import Merge, Plan, apply_plan

    other = memory.add({"name": "recolour", "kind": "routine", "description": "a colour table",
                        "meta": {"method": "diary"}}, actor="test")
    plan = Plan(merges=[Merge(survivor=memory.get("recolor"), absorbed=[other])])
    (done,) = apply_plan(method_memory(memory, "ps"), plan, actor="test")
    assert done[1] is None and done[2] == f"no item {other.id} of method 'ps'"
    assert memory.get("recolour") is not None
