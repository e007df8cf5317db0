"""ReasoningBank as a memory method (`reasoningbank`): items distilled from successes and from
failures (judged by the train pairs, shown nothing else), appended under names of their own,
a malformed answer retried then recorded as a write failure storing nothing; the items of the
most similar puzzles read back in a continual run; its options checked when a run starts; its
items exported, imported, listed and shown like any other."""

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

from arcmemo.core.parsing import ParseError
from arcmemo.methods import MethodOptionError, WriteContext, load_method, select
from arcmemo.methods.reasoningbank.method import parse_items
from arcmemo.methods.task_profile import task_profile
from arcmemo.selection import SelectionSettings

ITEM = "- title: {title}\n  description: {description}\n  content: {content}\n"


def answer(*titles: str, content: str = "Build the table from the examples.") -> str:
    body = "".join(ITEM.format(title=t, description="When colours change cell by cell.", content=content)
                   for t in titles)
    return f"It worked because the table is fixed.\n```yaml\n{body}```"


TASKS = block_tasks()


@pytest.fixture
def method():
    return load_method("reasoningbank")


def write(method, memory, llm, **options):
    return method.write(experiences(TASKS), memory, llm, WriteContext(run_id="r1", options=options))


# -- reading an answer -------------------------------------------------------------------------------

def test_an_answer_gives_at_most_three_items_as_the_store_keeps_them():
    items = parse_items("failure", "change: colourmap")(answer("One.", "Two", "Three", "Four"))
    assert [i["name"] for i in items] == ["One", "Two", "Three"]           # the paper's three, a title's dot dropped
    assert items[0]["format"] == "bank" and items[0]["suggestion"] == "Build the table from the examples."
    assert items[0]["meta"] == {"origin": "failure", "task_profiles": ["change: colourmap"]}


@pytest.mark.parametrize("text, problem", [
    ("I have no items.", "fenced"),
    ("```yaml\ntitle: one\n```", "a YAML list of memory items"),
    ("```yaml\n- just words\n```", "item 1 is not a mapping"),
    ("```yaml\n- title: t\n  description: d\n```", "item 1 has no text for content"),
    ("```yaml\n- title: t\n  description: d\n  content: [a, b]\n```", "item 1 has no text for content"),
    (answer("x" * 121), "a title is a short name, at most 120 characters"),
    ("```yaml\n- title: t\n  description: d\n  content: " + "y" * 50_001 + "\n```", "item 1: suggestion:"),
])
def test_an_unusable_answer_is_refused_saying_why(text, problem):
    with pytest.raises(ParseError, match=problem):
        parse_items("success", "")(text)


# -- writing -------------------------------------------------------------------------------------------

def test_a_success_and_a_failure_each_get_their_own_extraction(method, memory, fake_model, fake_llm):
    fake_model.queue("reasoningbank_success", answer("Learn the colour table"))
    fake_model.queue("reasoningbank_failure", answer("Check every example", content="Run it on all of them."))
    events = write(method, memory, fake_llm)
    assert [(e.task_id, e.added, e.failed) for e in events] == [(SOLVED, ["Learn the colour table"], False),
                                                               (FAILED, ["Check every example"], False)]
    success, failure = fake_model.calls_for("reasoningbank_success")[0], fake_model.calls_for("reasoningbank_failure")[0]
    assert "def transform" in success.prompt and "why this approach worked" in success.prompt
    # the failure is shown what train pairs said of its try: verdicts, error, feedback; and no test input
    assert "example 1 wrong, example 2 wrong" in failure.prompt and "wrong_output" in failure.prompt
    assert "Example 1: wrong output" in failure.prompt and "Test input" not in failure.prompt
    kept = {c.name: c for c in memory.list("bank")}
    assert kept["Learn the colour table"].meta == {"origin": "success", "task_profiles": [task_profile(TASKS[SOLVED])]}
    assert kept["Check every example"].meta["origin"] == "failure"
    assert kept["Check every example"].used_in == [FAILED] and kept["Check every example"].source == "self"
    history = memory.history("Check every example", "bank")
    assert [(r.op, r.run_id, r.task_id, r.actor) for r in history] == [("add", "r1", FAILED, "reasoningbank")]


def test_items_are_appended_a_taken_title_numbered_an_equal_item_kept_once(method, memory, fake_model,
                                                                           fake_llm):
    fake_model.queue("reasoningbank_success", answer("Learn the colour table"))
    fake_model.queue("reasoningbank_failure", answer("Learn the colour table", content="Another lesson."))
    first = write(method, memory, fake_llm)
    assert [e.added for e in first] == [["Learn the colour table"], ["Learn the colour table #2"]]
    # another run, other reasoning: the same item again, and a third one under that title
    fake_model.queue("reasoningbank_success", answer("Learn the colour table"))
    fake_model.queue("reasoningbank_failure", answer("Learn the colour table", content="A third lesson."))
    later = [dataclasses.replace(e, reasoning="thought again") for e in experiences(TASKS)]
    again = method.write(later, memory, fake_llm, WriteContext(run_id="r2"))
    assert [(e.added, e.extended) for e in again] == [([], []), (["Learn the colour table #3"], [])]
    assert len(memory.list("bank")) == 3 and memory.get("Learn the colour table", format="bank").used_in == [SOLVED]


def test_an_equal_item_from_another_puzzle_keeps_every_source(method, memory, fake_model, fake_llm):
    """Distilled again from another puzzle, an item is found from both: that puzzle joins its used_in
    and its profile its task_profiles (matched by all), in one revision."""
    fake_model.queue("reasoningbank_success", answer("Learn the colour table"), answer("Learn the colour table"))
    solved, failed = experiences(TASKS)
    both = [solved, dataclasses.replace(failed, passed_train=True, program=solved.program, attempts=solved.attempts)]
    events = method.write(both, memory, fake_llm, WriteContext(run_id="r1"))
    assert [(e.added, e.extended) for e in events] == [(["Learn the colour table"], []),
                                                      ([], ["Learn the colour table"])]
    (item,) = memory.list("bank")
    assert item.used_in == [SOLVED, FAILED]
    assert item.meta["task_profiles"] == [task_profile(TASKS[SOLVED]), task_profile(TASKS[FAILED])]


def test_a_malformed_answer_is_retried_then_recorded_and_nothing_is_stored(method, memory, fake_model,
                                                                           fake_llm):
    fake_model.queue("reasoningbank_success", "no items here", answer("Learn the colour table"))   # fixed on retry
    fake_model.queue("reasoningbank_failure", "```yaml\n- title: t\n```", "still nothing")
    events = write(method, memory, fake_llm)
    assert (events[0].added, events[0].failed) == (["Learn the colour table"], False)
    assert events[1].failed and "unreadable answer after 2 attempts" in events[1].error
    retry = fake_model.calls_for("reasoningbank_failure")[1]
    assert "item 1 has no text for description, content" in retry.messages[-1]["content"]
    assert [c.name for c in memory.list()] == ["Learn the colour table"]
    (failure,) = memory.write_failures(run_id="r1")
    assert (failure.task_id, failure.step, failure.raw) == (FAILED, "reasoningbank_failure", "still nothing")
    # a later write of the task asks afresh instead of replaying the failed answers from the call cache
    fake_model.queue("reasoningbank_failure", answer("Check every example"))
    method.write(experiences(TASKS)[1:], memory, fake_llm, WriteContext(run_id="r1"))
    assert [c.name for c in memory.list()] == ["Learn the colour table", "Check every example"]


def test_without_failures_only_successes_are_distilled_and_shown(method, memory, fake_model, fake_llm):
    fake_model.queue("reasoningbank_success", answer("Learn the colour table"))
    events = write(method, memory, fake_llm, include_failures=False)
    assert [e.task_id for e in events] == [SOLVED] and not fake_model.calls_for("reasoningbank_failure")
    memory.add({"format": "bank", "name": "Do not copy the input", "description": "d", "suggestion": "s",
                "meta": {"origin": "failure", "task_profile": task_profile(TASKS[SOLVED])}}, actor="test")
    both = select(TASKS[SOLVED], memory, SelectionSettings(mode="reasoningbank"))
    only = select(TASKS[SOLVED], memory, SelectionSettings(mode="reasoningbank",
                                                           options={"include_failures": False}))
    named = {c.id: c.name for c in memory.list()}
    assert sorted(named[i] for i in both.concept_ids) == ["Do not copy the input", "Learn the colour table"]
    assert [named[i] for i in only.concept_ids] == ["Learn the colour table"]


# -- reading -------------------------------------------------------------------------------------------

def bank_item(name: str, profile: str, origin: str = "success") -> dict:
    return {"format": "bank", "name": name, "description": f"when {name}", "suggestion": f"do {name}",
            "meta": {"origin": origin, "task_profile": profile}}


def test_the_items_of_the_most_similar_puzzles_are_shown_with_title_and_content(memory):
    memory.add(bank_item("crop the object", "size: outputsmaller\nrelation: cropped"), actor="t")
    memory.add(bank_item("read the table", "size: samesize tinygrids\nchange: manychanges colourmap"), actor="t")
    memory.add(bank_item("do not guess", "size: samesize tinygrids\nchange: colourmap", origin="failure"), actor="t")
    selection = select(TASKS[SOLVED], memory, SelectionSettings(mode="reasoningbank", options={"top_k": 2}))
    named = {c.id: c.name for c in memory.list()}
    assert [named[i] for i in selection.concept_ids] == ["read the table", "do not guess"]
    # each item whole, as the paper injects it: title, description (when it applies), content
    assert selection.hint.index("read the table\n   When: when read the table\n   do read the table") < \
        selection.hint.index("do not guess (a lesson")
    assert selection.reasoning == task_profile(TASKS[SOLVED]) and selection.stats["memory_size"] == 3
    assert selection.usage is None                               # no model asked


def test_an_empty_bank_shows_nothing_and_a_read_only_run_on_it_is_refused(method, memory):
    selection = select(TASKS[SOLVED], memory, SelectionSettings(mode="reasoningbank"))
    assert (selection.hint, selection.concept_ids, selection.fallback) == ("", [], False)
    assert "holds no ReasoningBank items" in method.check(memory, continual=False)
    assert method.check(memory, continual=True) is None


@pytest.mark.parametrize("options, says", [
    ({"top_k": 0}, "option top_k must be between 1 and 50, got 0"),
    ({"top_k": "3"}, "option top_k must be a whole number, got '3'"),
    ({"include_failures": "yes"}, "option include_failures must be true or false, got 'yes'"),
])
def test_a_bad_option_value_is_refused_when_a_run_starts(options, says):
    from arcmemo.run.config import RunConfig

    with pytest.raises(MethodOptionError, match=f"memory method 'reasoningbank': {says}"):
        RunConfig(selection="reasoningbank", method_options=options)
    assert RunConfig(selection="reasoningbank", method_options={"top_k": 5, "include_failures": False})


# -- a continual run -----------------------------------------------------------------------------------

def test_a_continual_run_grows_the_bank_and_reads_it_back(tmp_path, fake_model, fake_llm):
    from runner_support import TASK_IDS, script_run

    ids = TASK_IDS[:4]
    script_run(fake_model, unsolved={ids[1], ids[3]})
    fake_model.on("reasoningbank_success", lambda messages: answer(f"worked {len(fake_model.calls)}"))
    fake_model.on("reasoningbank_failure", lambda messages: answer(f"failed {len(fake_model.calls)}"))
    runner, memory = run_continual("reasoningbank", ids, tmp_path, fake_llm)
    summary = runner.run()
    assert summary["writes"] == 4 and summary["write_failures"] == 0
    bank = memory.list("bank")
    assert [(c.used_in, c.meta["origin"]) for c in bank] == [([ids[0]], "success"), ([ids[1]], "failure"),
                                                             ([ids[2]], "success"), ([ids[3]], "failure")]
    block_one = {c.id: c.name for c in bank[:2]}
    solves = fake_model.calls_for("solve")
    assert not any(name in solves[0].prompt + solves[1].prompt for name in block_one.values())
    selections = [json.loads(line) for line in (runner.rundir.path / "selections.jsonl").read_text().splitlines()]
    for record, solve in zip(selections[2:], solves[2:], strict=True):       # block 2 reads what block 1 wrote
        assert record["mode"] == "reasoningbank" and record["concept_ids"]
        assert set(record["concept_ids"]) <= set(block_one)
        assert all(block_one[i] in solve.prompt for i in record["concept_ids"])
    usage = memory.usage(run_id=runner.rundir.run_id)
    assert sum(usage[i].offered for i in block_one) == sum(len(r["concept_ids"]) for r in selections[2:])


# -- the store's views ---------------------------------------------------------------------------------

def test_bank_items_export_import_list_and_show_like_any_item(method, memory, fake_model, fake_llm, tmp_path):
    fake_model.queue("reasoningbank_success", answer("Learn the colour table"))
    fake_model.queue("reasoningbank_failure", answer("Check every example"))
    write(method, memory, fake_llm)
    text, listed = round_trip_and_list(memory, "bank", tmp_path)
    assert "origin: failure" in text and "task_profiles:" in text and "suggestion:" in text
    assert "Learn the colour table" in listed and "Check every example" in listed


def test_the_concept_page_shows_a_bank_item_and_a_case_with_their_fields(memory, tmp_path):
    testclient = pytest.importorskip("starlette.testclient")
    from arcmemo.web.app import create_app

    item = memory.add(bank_item("read the table", "change: colourmap", origin="failure"), actor="t")
    case = memory.add({"format": "case", "name": SOLVED, "description": "change: colourmap",
                       "implementation": ["def transform(grid):\n    return grid"]}, actor="t")
    app = create_app(memory, tmp_path / "runs", actor="user:tester", allowed_hosts=["testserver"])
    with testclient.TestClient(app) as client:
        page = client.get(f"/concepts/{item.id}").text
        assert "do read the table" in page and "when read the table" in page
        assert "origin" in page and "failure" in page and "colourmap" in page
        page = client.get(f"/concepts/{case.id}").text
        assert "def transform(grid)" in page and "change: colourmap" in page
