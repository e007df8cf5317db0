"""Dynamic Cheatsheet, retrieval and synthesis (`dc-rs`): the read asks the curator for a sheet made
for this puzzle from the newest sheet and the most similar past cases, and the solver sees that
sheet; the write keeps every puzzle with its answer as a case (only passing ones with `train_gate`)
and the newest task's sheet (the one its read showed), revisioned under its own name beside
DC-Cu's; the cases shown fit `case_tokens`; failures are recorded, nothing invalid kept; a
continual run grows cases and reads them back."""

from __future__ import annotations

import dataclasses
import json

import pytest
from method_support import (
    FAILED,
    SOLVED,
    block_tasks,
    experiences,
    fresh_memory,  # noqa: F401 (the memory fixture)
    round_trip_and_list,
    run_continual,
)

from arcmemo.memory.schema.rules import MAX_ITEM
from arcmemo.methods import MethodOptionError, WriteContext, load_method, select
from arcmemo.methods.dynamic_cheatsheet.retrieval_synthesis import SHEET_NAME, DynamicCheatsheetRS
from arcmemo.methods.task_profile import task_profile
from arcmemo.selection import SelectionSettings

TABLE_CASE = {"format": "case", "name": "c8f0f002", "description": "size: samesize tinygrids\nchange: colourmap",
              "implementation": ["def transform(grid):\n    return [[{1: 5}.get(c, c) for c in r] for r in grid]\n"]}
CROP_CASE = {"format": "case", "name": "1cf80156", "description": "size: outputsmaller\nrelation: cropped",
             "implementation": ["def transform(grid):\n    return grid[1:3]\n"]}


def sheet(text: str) -> str:
    return f"Here it is.\n<cheatsheet>\n{text}\n</cheatsheet>"


TASKS = block_tasks()


@pytest.fixture
def method():
    return DynamicCheatsheetRS()        # its own: what a read remembers for its write is per instance


def settings(**options) -> SelectionSettings:
    return SelectionSettings(mode="dc-rs", options=options)


# -- read ----------------------------------------------------------------------------------------------

def test_with_nothing_kept_the_read_asks_nothing_and_shows_nothing(method, memory, fake_model, fake_llm):
    selection = method.read(TASKS[SOLVED], memory, settings(), fake_llm)
    assert (selection.hint, selection.concept_ids, selection.fallback) == ("", [], False)
    assert fake_model.calls == []


def test_the_read_synthesises_a_sheet_for_this_puzzle_from_the_newest_sheet_and_similar_cases(
        method, memory, fake_model, fake_llm):
    crop = memory.add(CROP_CASE, actor="t")
    table = memory.add(TABLE_CASE, actor="t")
    kept = memory.add({"format": "sheet", "name": SHEET_NAME, "description": "- count colours first"}, actor="t")
    memory.add({"format": "sheet", "name": "cheatsheet", "description": "- DC-Cu's own sheet"}, actor="t")
    fake_model.queue("dc_rs_sheet", sheet("- read the colour table off the examples"))
    selection = method.read(TASKS[SOLVED], memory, settings(top_k=1), fake_llm)
    (call,) = fake_model.calls
    assert (call.step, call.role, call.task_id) == ("dc_rs_sheet", "aux", SOLVED)
    assert "- count colours first" in call.prompt and "DC-Cu's own sheet" not in call.prompt
    assert "Puzzle c8f0f002" in call.prompt and "{1: 5}.get(c, c)" in call.prompt     # the similar case, whole
    assert "1cf80156" not in call.prompt                                                 # top_k=1: not the other
    assert "Example 1 input" in call.prompt and "Test input" not in call.prompt
    assert selection.hint.endswith("- read the colour table off the examples\n")
    assert "count colours first" not in selection.hint                                   # the new sheet alone
    assert selection.concept_ids == [kept.id, table.id] and crop.id not in selection.concept_ids
    assert selection.stats["retrieved"] == 1 and selection.stats["memory_size"] == 2


def test_the_curator_sees_the_similar_cases_that_fit_case_tokens_most_similar_first(method, memory, fake_model,
                                                                                   fake_llm):
    from arcmemo.core.estimate import estimate_tokens
    from arcmemo.methods.dynamic_cheatsheet.retrieval_synthesis import case_block

    big = memory.add({**TABLE_CASE, "situation": "Example 1 input\n" + "1 2 3 4 5 6 7 8 9 0\n" * 400}, actor="t")
    crop = memory.add(CROP_CASE, actor="t")
    fits = estimate_tokens(case_block(1, crop)) + 10
    assert estimate_tokens(case_block(1, big)) > fits
    fake_model.queue("dc_rs_sheet", sheet("- a sheet"))
    selection = method.read(TASKS[SOLVED], memory, settings(top_k=2, case_tokens=max(200, fits)), fake_llm)
    (call,) = fake_model.calls
    assert "Puzzle 1cf80156" in call.prompt and "c8f0f002" not in call.prompt       # the big one passed over
    assert selection.concept_ids == [crop.id] and selection.stats["retrieved"] == 1


def test_a_sheet_it_cannot_read_makes_the_read_fall_back(method, memory, fake_model, fake_llm):
    memory.add(TABLE_CASE, actor="t")
    fake_model.queue("dc_rs_sheet", "no tags", "still no tags")
    selection = select(TASKS[SOLVED], memory, settings(), fake_llm)
    assert selection.fallback and selection.hint == "" and "unreadable answer after 2" in selection.error


# -- write ---------------------------------------------------------------------------------------------

def test_the_write_keeps_every_answer_as_a_case_and_the_sheet_its_read_showed(method, memory, fake_model, fake_llm):
    memory.add(TABLE_CASE, actor="t")
    fake_model.queue("dc_rs_sheet", sheet("- for the failed one"))
    shown = method.read(TASKS[FAILED], memory, settings(), fake_llm)      # the block's newest task, as it was read
    events = method.write(experiences(TASKS), memory, fake_llm, WriteContext(run_id="r1"))
    assert len(fake_model.calls) == 1                                     # remembered, not asked again
    assert [(e.task_id, e.added, e.extended, e.failed) for e in events] == [
        (SOLVED, [SOLVED], [], False), (FAILED, [FAILED], [SHEET_NAME], False)]
    case = memory.get(SOLVED, format="case")
    assert case.description == task_profile(TASKS[SOLVED]) and case.implementation == [experiences(TASKS)[0].program.strip()]
    # each past input with the solver's whole answer, right or not (DC-RS keeps every one)
    failed = memory.get(FAILED, format="case")
    assert "Example 1 input" in failed.situation and failed.suggestion == "copy it"
    kept = memory.get(SHEET_NAME, format="sheet")
    assert shown.hint.endswith(kept.description + "\n") and kept.used_in == [FAILED]
    assert [(r.op, r.actor, r.task_id) for r in memory.history(SHEET_NAME, "sheet")] == [("add", "dc-rs-curator",
                                                                                        FAILED)]
    assert memory.writes_of("r1", FAILED).extended == [SHEET_NAME]     # as a resumed run recovers the write
    # the next block's sheet is a revision of it, made from it
    fake_model.queue("dc_rs_sheet", sheet("- the second sheet"))
    later = [dataclasses.replace(e, reasoning="again") for e in experiences(TASKS)]
    method.write(later, memory, fake_llm, WriteContext(run_id="r2"))
    assert "- for the failed one" in fake_model.calls[-1].prompt
    assert [r.op for r in memory.history(SHEET_NAME, "sheet")] == ["add", "edit"]
    assert memory.get(SHEET_NAME, format="sheet").description == "- the second sheet"


def test_a_write_in_another_process_gets_the_shown_sheet_from_the_call_cache(memory, fake_model, fake_llm):
    memory.add(TABLE_CASE, actor="t")
    fake_model.queue("dc_rs_sheet", sheet("- shown"), sheet("- a different answer"))
    DynamicCheatsheetRS().read(TASKS[FAILED], memory, SelectionSettings(mode="dc-rs", pass_index=1), fake_llm)
    DynamicCheatsheetRS().write(experiences(TASKS), memory, fake_llm, WriteContext(run_id="r1", pass_index=1))
    assert memory.get(SHEET_NAME, format="sheet").description == "- shown"
    assert fake_model.pending("dc_rs_sheet") == 1                          # the second answer was never needed


def test_a_failed_sheet_is_recorded_and_the_case_still_kept(method, memory, fake_model, fake_llm):
    memory.add(TABLE_CASE, actor="t")
    fake_model.queue("dc_rs_sheet", "<cheatsheet>\n" + "word " * 2000 + "\n</cheatsheet>", "nothing")
    events = method.write(experiences(TASKS), memory, fake_llm, WriteContext(run_id="r1"))
    assert events[0].added == [SOLVED] and events[1].failed and "unreadable answer" in events[1].error
    assert memory.get(SHEET_NAME, format="sheet") is None
    (failure,) = memory.write_failures(run_id="r1")
    assert (failure.task_id, failure.step, failure.raw) == (FAILED, "dc_rs_sheet", "nothing")


def test_a_program_too_long_for_a_case_is_recorded_not_kept(method, memory, fake_llm):
    solved = dataclasses.replace(experiences(TASKS)[0], program="x = 1\n" * (MAX_ITEM // 6 + 1))
    (event,) = method.write([solved], memory, fake_llm, WriteContext(run_id="r1"))
    assert event.failed and "a case keeps at most 5,000" in event.error and memory.list() == []
    assert [f.step for f in memory.write_failures(run_id="r1")] == ["dc_rs_case"]


def test_cases_export_and_import_with_their_program(method, memory, fake_llm, tmp_path):
    method.write(experiences(TASKS), memory, fake_llm, WriteContext(run_id="r1"))
    text, listed = round_trip_and_list(memory, "case", tmp_path)
    assert "format: case" in text and "def transform" in text
    assert SOLVED in listed and FAILED in listed


def test_the_train_gate_keeps_only_passing_programs_and_the_curator_sees_the_past_puzzles(method, memory,
                                                                                          fake_model, fake_llm):
    method.write(experiences(TASKS), memory, fake_llm, WriteContext(run_id="r1", options={"train_gate": True}))
    assert [c.name for c in memory.list("case")] == [SOLVED]
    fake_model.queue("dc_rs_sheet", sheet("- a sheet"))
    method.read(TASKS[FAILED], memory, settings(), fake_llm)
    (asked,) = fake_model.calls_for("dc_rs_sheet")
    assert f"Puzzle {SOLVED}\nExample 1 input" in asked.prompt and "The solver's answer" in asked.prompt


@pytest.mark.parametrize("options, says", [
    ({"top_k": 0}, "option top_k must be between 1 and 20, got 0"),
    ({"max_words": 10}, "option max_words must be between 50 and 5000, got 10"),
])
def test_a_bad_option_value_is_refused_when_a_run_starts(options, says):
    from arcmemo.run.config import RunConfig

    with pytest.raises(MethodOptionError, match=f"memory method 'dc-rs': {says}"):
        RunConfig(selection="dc-rs", method_options=options)


def test_a_read_only_run_on_a_memory_with_nothing_to_read_is_refused(memory):
    method = load_method("dc-rs")
    assert "holds no DC-RS cases or sheet" in method.check(memory, continual=False)
    memory.add(TABLE_CASE, actor="t")
    assert method.check(memory, continual=False) is None


# -- a continual run -----------------------------------------------------------------------------------

def test_a_continual_run_keeps_cases_and_reads_them_back(tmp_path, fake_model, fake_llm):
    from runner_support import TASK_IDS, script_run

    ids = TASK_IDS[:6]
    script_run(fake_model, unsolved={ids[1], ids[3]})
    fake_model.on("dc_rs_sheet", lambda messages: sheet(f"- sheet {len(fake_model.calls_for('dc_rs_sheet'))}"))
    runner, memory = run_continual("dc-rs", ids, tmp_path, fake_llm)
    summary = runner.run()
    assert summary["write_failures"] == 0
    assert [c.name for c in memory.list("case")] == ids             # every task, solved or not
    # block 1 read an empty memory: no sheet asked; blocks 2 and 3 asked one per task, their writes none
    asked = fake_model.calls_for("dc_rs_sheet")
    assert [c.task_id for c in asked] == ids[2:]
    assert f"Puzzle {ids[0]}" in asked[0].prompt and "(empty: nothing recorded yet)" in asked[0].prompt
    selections = [json.loads(line) for line in (runner.rundir.path / "selections.jsonl").read_text().splitlines()]
    solves = {c.task_id: c.prompt for c in fake_model.calls_for("solve")}
    for record in selections[2:]:
        assert record["hint"].strip() and record["hint"].splitlines()[-1] in solves[record["task_id"]]
    # the sheet kept after block 2 is the one its newest task (ids[3]) was shown, and block 3 starts from it
    history = memory.history(SHEET_NAME, "sheet")
    assert [(r.op, r.task_id) for r in history] == [("add", ids[3]), ("edit", ids[5])]
    shown_to = {r["task_id"]: r["hint"] for r in selections}
    assert shown_to[ids[3]].endswith(history[0].snapshot["description"] + "\n")
    assert history[0].snapshot["description"] in asked[2].prompt
