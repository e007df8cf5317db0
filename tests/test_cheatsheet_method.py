"""Dynamic Cheatsheet, cumulative (the `cheatsheet` method) as its paper runs it: the curator rewrites the
sheet after every task, failed ones too, reading the solver's own answer and judging it itself; the
train gate (an option, off by default) keeps to the tasks whose program passed every train pair."""

from __future__ import annotations

from method_support import FAILED, SOLVED, block_tasks, experiences

from arcmemo.memory.store import Memory
from arcmemo.methods import WriteContext, load_method

SHEET = "<cheatsheet>\n- {}\n</cheatsheet>"


def test_the_curator_runs_after_every_task_and_reads_the_answer_not_a_verdict(tmp_path, fake_model, fake_llm):
    fake_model.queue("cheatsheet", SHEET.format("table first"), SHEET.format("table first; check every example"))
    with Memory(str(tmp_path / "memory.db")) as memory:
        events = load_method("cheatsheet").write(experiences(block_tasks()), memory, fake_llm, WriteContext(run_id="r"))
        assert [(e.task_id, e.extended) for e in events] == [(SOLVED, ["cheatsheet"]), (FAILED, ["cheatsheet"])]
        assert memory.get("cheatsheet", format="sheet").description == "- table first; check every example"
    after_failure = fake_model.calls_for("cheatsheet")[1].prompt
    assert "def transform(grid):\n    return grid" in after_failure and "Example 1: wrong output" in after_failure
    assert "was solved" not in after_failure and "passed" not in after_failure.split("# The attempt")[1]


def test_the_train_gate_keeps_to_tasks_that_passed_their_train_pairs(tmp_path, fake_model, fake_llm):
    fake_model.queue("cheatsheet", SHEET.format("table first"))
    with Memory(str(tmp_path / "memory.db")) as memory:
        events = load_method("cheatsheet").write(experiences(block_tasks()), memory, fake_llm,
                                                 WriteContext(run_id="r", options={"train_gate": True}))
    assert [e.task_id for e in events] == [SOLVED] and len(fake_model.calls_for("cheatsheet")) == 1
