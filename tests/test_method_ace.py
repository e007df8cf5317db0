"""The ACE memory method (arcmemo/methods/ace*.py): the playbook shown whole or cut to the best
bullets within the budget, the reflector's tags as the bullets' counters, the curator's delta
operations applied one revision each (unknown ids refused), malformed answers asked again and
then recorded with nothing stored, grow-and-refine merging near-duplicates with their counters
and history, its options, and a continual run against the stub endpoint whose playbook grows
and is read back."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from llm_stub import StubServer, stub_llm
from runner_support import TASK_IDS, seed_code, task_of

from arcmemo.cli import cli
from arcmemo.core.tasks import load_tasks
from arcmemo.memory.io.imports import export_yaml, import_file
from arcmemo.memory.store import Memory
from arcmemo.methods import AttemptView, Experience, MethodOptionError, WriteContext, load_method, select
from arcmemo.methods.ace.curate import parse_deltas, playbook_part
from arcmemo.methods.ace.method import AceOptions
from arcmemo.methods.ace.playbook import canonical_id, playbook, ranked
from arcmemo.methods.ace.refine import duplicates, refine, similarity, words
from arcmemo.methods.ace.reflect import Reflection, parser
from arcmemo.methods.options import read_options
from arcmemo.selection import SelectionSettings

SOLVED, FAILED = "0d3d703e", "25d8a9c8"
FAILING = "def transform(grid):\n    return grid\n"


def bullet(number: int, content: str, section: str = "strategies", **meta) -> dict:
    return {"format": "playbook", "name": f"ace-{number:05d}", "description": content,
            "meta": {"section": section, **meta}}


def yaml_block(text: str) -> str:
    return f"```yaml\n{text}\n```"


@pytest.fixture
def memory(tmp_path):
    with Memory(str(tmp_path / "memory.db")) as m:
        yield m


@pytest.fixture
def tasks():
    return {t.id: t for t in load_tasks("training", ids=[SOLVED, FAILED]).tasks}


def experience(task, *, passed: bool, shown=()) -> Experience:
    program = seed_code(task.id) if passed else FAILING
    attempt = AttemptView(0, 0, 0, program, (passed,) * len(task.train), 1.0 if passed else 0.4,
                          error=None if passed else "wrong_output",
                          feedback=None if passed else "Example 1: the output differs in 6 cells")
    return Experience(task=task, pass_index=1, program=program, reasoning="a colour table", passed_train=passed,
                      attempts=(attempt,), shown=tuple(shown))


class Judge:
    """A run's judge, recorded into the memory's usage rows as the runner does."""

    def __init__(self, memory, run_id="r1"):
        self.memory, self.run_id, self.calls = memory, run_id, []

    def __call__(self, task_id, verdicts):
        self.calls.append((task_id, dict(verdicts)))
        self.memory.record_judgement(run_id=self.run_id, pass_index=1, task_id=task_id, verdicts=verdicts)


def context(memory, **options) -> WriteContext:
    return WriteContext(run_id="r1", options=options, judge=Judge(memory))


# -- read ---------------------------------------------------------------------------------------------

def test_the_whole_playbook_is_shown_with_ids_and_counters_under_its_sections(memory, tasks):
    ids = [memory.add(b, actor="test").id for b in (
        bullet(1, "Compare the grids' sizes first."), bullet(2, "Do not assume the background is 0.", "pitfalls"),
        bullet(3, "np.rot90(grid, k) turns a grid by k quarter turns.", "code"))]
    memory.record_judgement(run_id="r0", pass_index=1, task_id="t1", verdicts={ids[1]: "helpful", ids[2]: "harmful"})
    selection = select(tasks[SOLVED], memory, SelectionSettings(mode="ace"))
    assert not selection.fallback and selection.concept_ids == ids
    hint = selection.hint
    assert hint.index("## strategies") < hint.index("## pitfalls") < hint.index("## code")
    assert "- [ace-00001] (helpful 0, harmful 0) Compare the grids' sizes first." in hint
    assert "- [ace-00002] (helpful 1, harmful 0) Do not assume" in hint
    assert "- [ace-00003] (helpful 0, harmful 1) np.rot90" in hint
    assert selection.stats == {"memory_size": 3, "shown": 3, "cut": 0, "hint_tokens_est": selection.stats[
        "hint_tokens_est"]}


def test_over_the_budget_the_best_ranked_bullets_are_shown(memory, tasks):
    """helpful minus harmful first, then the most recently written; a bullet that does not fit is passed over."""
    pad = " Check it against every example." * 4           # about 48 tokens a bullet
    ids = {n: memory.add(bullet(n, text + pad), actor="test").id for n, text in (
        (1, "Old and never judged."), (2, "Judged helpful twice."), (3, "Look for a frame. " * 40),
        (4, "Judged harmful."), (5, "New and never judged."))}
    for task, verdicts in (("t1", {ids[2]: "helpful", ids[3]: "helpful", ids[4]: "harmful"}),
                           ("t2", {ids[2]: "helpful", ids[3]: "helpful"})):
        memory.record_judgement(run_id="r0", pass_index=1, task_id=task, verdicts=verdicts)
    assert [b.id for b in ranked(playbook(memory))] == ["ace-00003", "ace-00002", "ace-00005", "ace-00001",
                                                        "ace-00004"]
    selection = select(tasks[SOLVED], memory, SelectionSettings(mode="ace", hint_budget=200))
    shown = [c.name for c in memory.list("playbook") if c.id in selection.concept_ids]
    assert shown == ["ace-00001", "ace-00002", "ace-00005"]       # 3 is too long alone, 4 did not fit after them
    assert selection.stats["cut"] == 2 and selection.stats["hint_tokens_est"] <= 200
    assert selection.hint.index("[ace-00001]") < selection.hint.index("[ace-00002]") < selection.hint.index(
        "[ace-00005]")                                              # shown in id order
    capped = select(tasks[SOLVED], memory, SelectionSettings(mode="ace", options={"max_bullets": 2}))
    assert [c.name for c in memory.list("playbook") if c.id in capped.concept_ids] == ["ace-00002", "ace-00003"]


def test_an_empty_playbook_shows_nothing_and_a_run_without_continual_is_refused(memory, tasks):
    selection = select(tasks[SOLVED], memory, SelectionSettings(mode="ace"))
    assert selection.hint == "" and selection.concept_ids == [] and not selection.fallback
    ace = load_method("ace")
    assert "holds no playbook for --method ace" in ace.check(memory, continual=False)
    assert ace.check(memory, continual=True) is None


# -- write: reflector, judge, curator ------------------------------------------------------------------------

def test_a_write_tags_the_shown_bullets_and_applies_the_curators_operations(memory, tasks, fake_model, fake_llm):
    one = memory.add(bullet(1, "Build a colour table from the examples."), actor="test")
    two = memory.add(bullet(2, "Always mirror the grid.", "pitfalls"), actor="test")
    fake_model.queue("ace_reflect", yaml_block(
        "diagnosis: the colour table fitted every example\ntags:\n  ace-00001: helpful\n  '[ace-2]': harmful\n"
        "  ace-00099: neutral\ninsights:\n  - Check that every colour maps to exactly one colour."))
    fake_model.queue("ace_curate", yaml_block(
        "- op: add\n  section: checks\n  content: Check that every colour maps to exactly one colour.\n"
        "- op: edit\n  id: ace-00001\n  content: Build a colour table from the examples and apply it per cell.\n"
        "- op: remove\n  id: ace-2\n- op: edit\n  id: ace-00002\n  content: too late\n"
        "- op: remove\n  id: ace-00042"))
    ctx = context(memory)
    before = memory.revision()
    events = load_method("ace").write([experience(tasks[SOLVED], passed=True, shown=(one.id, two.id))], memory,
                                      fake_llm, ctx)
    assert len(events) == 1 and not events[0].failed
    event = events[0]
    assert (event.added, event.extended, event.removed) == (["ace-00003"], ["ace-00001"], ["ace-00002"])
    assert "ace-00099, not shown to the task: ignored" in event.error
    assert "edit ace-00002: no such bullet" in event.error and "remove ace-00042: no such bullet" in event.error
    assert ctx.judge.calls == [(SOLVED, {one.id: "helpful", two.id: "harmful"})]
    assert memory.usage(concept_ids=[one.id])[one.id].helpful == 1
    # the reflector saw the shown bullets with their ids, the curator the playbook and the lessons
    reflect, curate = fake_model.calls_for("ace_reflect")[0], fake_model.calls_for("ace_curate")[0]
    assert "- [ace-00001] (helpful 0, harmful 0) Build a colour table" in reflect.prompt
    assert "A program passed every example" in reflect.prompt and seed_code(SOLVED).strip() in reflect.prompt
    assert "Test input" not in reflect.prompt                      # train pairs only
    assert "[ace-00002]" in curate.prompt and "- Check that every colour maps" in curate.prompt
    assert reflect.task_id == curate.task_id == SOLVED
    # one revision per applied operation, each with run, task and model
    revisions = [r for r in memory.history(None) if r.id > before]
    assert [(r.op, r.name) for r in revisions] == [("add", "ace-00003"), ("edit", "ace-00001"),
                                                   ("delete", "ace-00002")]
    assert {(r.run_id, r.task_id, r.model, r.actor) for r in revisions} == {("r1", SOLVED, "fake", "ace-curator")}
    added = memory.get("ace-00003", format="playbook")
    assert added.meta == {"section": "checks"} and added.used_in == [SOLVED] and added.source == "self"


def test_failures_are_reflected_on_unless_the_option_says_no(memory, tasks, fake_model, fake_llm):
    fake_model.on("ace_reflect", lambda messages: yaml_block("diagnosis: d\ntags: {}\ninsights: []"))
    ace = load_method("ace")
    block = [experience(tasks[SOLVED], passed=True), experience(tasks[FAILED], passed=False)]
    events = ace.write(block, memory, fake_llm, context(memory))
    assert [e.task_id for e in events] == [SOLVED, FAILED] and not any(e.failed for e in events)
    failed_prompt = fake_model.calls_for("ace_reflect")[1].prompt
    assert "No program passed every example" in failed_prompt
    assert "example 1 wrong" in failed_prompt and "the output differs in 6 cells" in failed_prompt
    assert fake_model.calls_for("ace_curate") == []                 # no lessons, nothing to curate
    events = ace.write(block, memory, fake_llm, context(memory, reflect_on_failures=False))
    assert [e.task_id for e in events] == [SOLVED]


def test_the_reflector_reads_the_reasoning_and_refines_its_answer_over_rounds(memory, tasks, fake_model, fake_llm):
    """ACE's reflector reads the solver's trace, and (reflect_rounds) is shown its last answer and asked
    for a better one; the last usable round is what the curator gets."""
    fake_model.queue("ace_reflect", yaml_block("diagnosis: first\ntags: {}\ninsights:\n  - a rough lesson"),
                     yaml_block("diagnosis: second\ntags: {}\ninsights:\n  - a sharper lesson"))
    fake_model.on("ace_curate", lambda messages: yaml_block("- op: add\n  section: strategies\n  content: x"))
    ace = load_method("ace")
    ace.write([experience(tasks[SOLVED], passed=True)], memory, fake_llm, context(memory, reflect_rounds=2))
    first, second = fake_model.calls_for("ace_reflect")
    assert "a colour table" in first.prompt                         # the solver's reasoning
    assert second.messages[1]["content"].count("a rough lesson") == 1 and "Refine your reflection" in \
        second.messages[-1]["content"]
    assert "a sharper lesson" in fake_model.calls_for("ace_curate")[0].prompt


@pytest.mark.parametrize("step", ["ace_reflect", "ace_curate"])
def test_malformed_answers_are_asked_again_then_recorded_and_nothing_is_stored(step, memory, tasks, fake_model,
                                                                             fake_llm):
    memory.add(bullet(1, "Build a colour table."), actor="test")
    good_reflection = yaml_block("diagnosis: d\ntags: {}\ninsights:\n  - a lesson")
    if step == "ace_reflect":
        fake_model.queue(step, yaml_block("diagnosis: d\ntags:\n  ace-00001: great"), "no YAML at all")
    else:
        fake_model.queue("ace_reflect", good_reflection)
        fake_model.queue(step, yaml_block("- op: add\n  section: musings\n  content: x"),
                         yaml_block("- op: rewrite\n  content: the whole playbook"))
    stored = [(c.name, c.content_hash) for c in memory.list()]
    before = memory.revision()
    events = load_method("ace").write([experience(tasks[SOLVED], passed=True)], memory, fake_llm, context(memory))
    assert len(events) == 1 and events[0].failed and events[0].error.startswith(f"{step}: unreadable answer")
    first, second = fake_model.calls_for(step)
    assert "I could not use your answer" in second.prompt
    assert ("tags.ace-00001: expected helpful, harmful, neutral, got 'great'" if step == "ace_reflect"
            else "section must be one of strategies, pitfalls, code, checks, got 'musings'") in second.prompt
    assert [(c.name, c.content_hash) for c in memory.list()] == stored and memory.revision() == before
    [failure] = memory.write_failures(run_id="r1")
    assert (failure.task_id, failure.step) == (SOLVED, step) and failure.raw


def test_a_failed_write_is_asked_afresh_next_time_not_replayed_from_the_cache(memory, tasks, fake_model, fake_llm):
    fake_model.queue("ace_reflect", "junk", "junk", yaml_block("diagnosis: d\ntags: {}\ninsights: []"))
    ace = load_method("ace")
    assert ace.write([experience(tasks[SOLVED], passed=True)], memory, fake_llm, context(memory))[0].failed
    assert not ace.write([experience(tasks[SOLVED], passed=True)], memory, fake_llm, context(memory))[0].failed
    assert [c.sample for c in fake_model.calls_for("ace_reflect")] == [0, 0, 1]


def test_the_operations_of_one_answer_apply_whole_or_not_at_all(memory, tasks, fake_model, fake_llm, monkeypatch):
    """One transaction per answer: an operation the store fails undoes the ones before it."""
    memory.add(bullet(1, "Build a colour table."), actor="test")
    fake_model.queue("ace_reflect", yaml_block("diagnosis: d\ntags: {}\ninsights:\n  - a lesson"))
    fake_model.queue("ace_curate", yaml_block("- op: add\n  section: checks\n  content: fine\n"
                                              "- op: remove\n  id: ace-00001"))

    def broken_delete(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(memory, "delete", broken_delete)
    before = memory.revision()
    events = load_method("ace").write([experience(tasks[SOLVED], passed=True)], memory, fake_llm, context(memory))
    assert events[0].failed and events[0].error == "ace: RuntimeError: disk full"
    assert memory.revision() == before and [c.name for c in memory.list()] == ["ace-00001"]
    assert [f.step for f in memory.write_failures(run_id="r1")] == ["ace"]


def test_ids_are_never_reused(memory, tasks, fake_model, fake_llm):
    memory.add(bullet(1, "one"), actor="test")
    memory.add(bullet(2, "two"), actor="test")
    memory.delete("ace-00002", actor="test", reason="gone", format="playbook")
    fake_model.queue("ace_reflect", yaml_block("diagnosis: d\ntags: {}\ninsights:\n  - a lesson"))
    fake_model.queue("ace_curate", yaml_block("- op: add\n  section: code\n  content: three\n"
                                              "- op: add\n  section: code\n  content: four"))
    events = load_method("ace").write([experience(tasks[SOLVED], passed=True)], memory, fake_llm, context(memory))
    assert events[0].added == ["ace-00003", "ace-00004"]


# -- the answers' shapes ------------------------------------------------------------------------------------

def test_the_reflectors_answer_is_read_leniently_where_it_is_safe():
    parse = parser(["ace-00001", "ace-00002"])
    reflection = parse("diagnosis: fine\ntags:\n  '[ACE-00001]': Helpful\n  2: neutral\n  ace-7: harmful\n"
                       "insights: one lesson")
    assert reflection.tags == {"ace-00001": "helpful", "ace-00002": "neutral"}
    assert reflection.dropped == ["ace-00007"] and reflection.insights == ["one lesson"]
    assert canonical_id("ace-17") == "ace-00017" and canonical_id("rule 3") is None and canonical_id(True) is None
    # an imported playbook's bullets may have names of their own
    assert parser(["border rule"])("diagnosis: d\ntags:\n  '[Border Rule]': harmful").tags == {"border rule": "harmful"}
    for text, error in (("- a list", "expected a YAML mapping"), ("diagnosis: d\nmood: ok", "unknown key(s) mood"),
                        ("tags: {}", "missing key 'diagnosis'"),
                        ("diagnosis: d\ninsights: [a, b, c, d]", "4 lessons is too many"),
                        ("diagnosis: d\ntags:\n  the first: helpful", "'the first' is not a bullet id")):
        with pytest.raises(ValueError, match=re.escape(error)):
            parse(text)


def test_answers_that_are_not_valid_yaml_are_read_line_by_line_when_their_shape_is_plain():
    """What the embedded 1.5B model answered (unfenced, a lesson holding ': ' and braces), and a
    curator's content holding ': ' and code, are read as meant; anything else is the YAML error."""
    answered = ("diagnosis: The program did not swap the colours in pairs as required.\n\ntags:\n  ace-00002: harmful\n\n"
                "insights:\n  - The mapping should be {1: 5, 2: 6, 3: 4, 8: 9}.\n  - Check: every colour maps once.")
    reflection = parser(["ace-00001", "ace-00002"])(answered)
    assert reflection.diagnosis == "The program did not swap the colours in pairs as required."
    assert reflection.tags == {"ace-00002": "harmful"}
    assert reflection.insights == ["The mapping should be {1: 5, 2: 6, 3: 4, 8: 9}.", "Check: every colour maps once."]
    deltas = parse_deltas(yaml_block("- op: add\n  section: code\n  content: |\n    def border(g):\n"
                                     "        return g[0]: first row\n- op: edit\n  id: ace-00001\n"
                                     "  content: Note: {a: b} maps colours"))
    assert [(d.op, d.content) for d in deltas] == [("add", "def border(g):\n    return g[0]: first row"),
                                                   ("edit", "Note: {a: b} maps colours")]
    unclosed = "I reviewed it.\n```yaml\ndiagnosis: it copied the input\ntags:\n  ace-00002: helpful\ninsights: []\n"
    assert parser(["ace-00002"])(unclosed).tags == {"ace-00002": "helpful"}   # the model never closed its fence
    with pytest.raises(ValueError, match="invalid YAML"):
        parser(["ace-00001"])("diagnosis: d\ninsights: [unclosed: {\nwhat is this")
    with pytest.raises(ValueError, match="invalid YAML"):
        parse_deltas("- op: add\n  section: code\n  content: {a: [\nstray text")


def test_the_curators_operations_are_checked():
    deltas = parse_deltas(yaml_block("- op: ADD\n  section: Pitfalls\n  content: x\n- op: remove\n  id: 3"))
    assert [(d.op, d.id, d.section, d.content) for d in deltas] == [("add", None, "pitfalls", "x"),
                                                                    ("remove", "ace-00003", None, None)]
    assert parse_deltas(yaml_block("[]")) == [] and parse_deltas("[]") == []
    assert parse_deltas("- op: remove\n  id: '[Border Rule]'", names=["border rule"])[0].id == "border rule"
    for text, error in (("- op: add\n  content: x", "operation 1: 'add' needs section as text"),
                        ("- op: remove\n  id: ace-1\n  content: x", "'remove' takes id, not content"),
                        ("- op: merge\n  id: ace-1", "op must be one of add, edit, remove"),
                        ("- op: edit\n  id: the best\n  content: x", "'the best' is not a bullet id"),
                        ("\n".join(["- op: remove\n  id: 1"] * 9), "9 operations is too many"),
                        (f"- op: add\n  section: code\n  content: {'x' * 1600}", "is too long")):
        with pytest.raises(ValueError, match=re.escape(error)):
            parse_deltas(yaml_block(text))


def test_a_large_playbook_is_narrowed_for_the_curator_to_the_bullets_closest_to_the_lessons(memory):
    for n in range(1, 41):
        memory.add(bullet(n, f"Filler bullet number {n} about shapes and borders in general."), actor="test")
    memory.add(bullet(41, "Sort the objects by size before recolouring them."), actor="test")
    reflection = Reflection("d", insights=["recolouring objects by their size rank"])
    note, listing = playbook_part(playbook(memory), reflection, 150)
    assert "Only the" in note and "of 41 bullets" in note and "[ace-00041]" in listing
    assert playbook_part(playbook(memory), reflection, 10_000) == ("", playbook_part(playbook(memory), reflection,
                                                                                     10_000)[1])


# -- grow-and-refine --------------------------------------------------------------------------------------------

def test_lexical_similarity_keeps_negations_and_numbers_apart():
    same = similarity(words("Count the colours in each example grid."), words("Count the colours in every example grid"))
    assert same == 1.0
    assert similarity(words("Count colours, then sort shapes."), words("Count colours, then sort big shapes.")) == 0.8
    assert similarity(words("Transpose the grid first."), words("Do not transpose the grid first.")) == 0
    assert similarity(words("Pad the grid by 1 cell: np.pad(g, 1)"), words("Pad the grid by 2 cells: np.pad(g, 2)")) == 0


def test_near_duplicates_merge_into_the_better_bullet_keeping_counters_and_history(memory, tasks, fake_model,
                                                                                 fake_llm):
    keep = memory.add(bullet(1, "Count the colours of every example before guessing the rule."), actor="test",
                      task_id="t0")
    twin = memory.add(bullet(2, "Always count the colours of every example before guessing the rule!", "checks"),
                      actor="test", task_id="t1")
    other = memory.add(bullet(3, "Do not count the colours of every example before guessing the rule."),
                       actor="test")
    memory.record_judgement(run_id="r0", pass_index=1, task_id="t1", verdicts={twin.id: "helpful", keep.id: "harmful"})
    memory.record_judgement(run_id="r0", pass_index=1, task_id="t2", verdicts={twin.id: "helpful"})
    assert [(m.absorbed, m.survivor) for m in duplicates(playbook(memory), 0.8)] == [("ace-00001", "ace-00002")]
    fake_model.on("ace_reflect", lambda messages: yaml_block("diagnosis: d\ntags: {}\ninsights: []"))
    messages = []
    ctx = WriteContext(run_id="r1", progress=messages.append)
    load_method("ace").write([experience(tasks[SOLVED], passed=True)], memory, fake_llm, ctx)
    assert [c.name for c in memory.list("playbook")] == ["ace-00002", "ace-00003"]
    survivor = memory.get("ace-00002", format="playbook")
    assert survivor.meta == {"section": "checks", "carried": {"helpful": 0, "harmful": 1},
                             "merged_from": ["ace-00001"]}
    assert survivor.used_in == ["t1", "t0"] and other.id in {c.id for c in memory.list()}
    counts = {b.id: (b.helpful, b.harmful) for b in playbook(memory)}
    assert counts == {"ace-00002": (2, 1), "ace-00003": (0, 0)}
    history = memory.history(None)
    assert [(r.op, r.name, r.actor, r.run_id) for r in history[-2:]] == [
        ("edit", "ace-00002", "ace-refine", "r1"), ("delete", "ace-00001", "ace-refine", "r1")]
    assert "ace-00001 merged into it (similarity 0.86)" in history[-2].reason
    assert "merged into ace-00002" in history[-1].reason
    assert any("grow-and-refine: ace-00001 merged into ace-00002" in m for m in messages)


@pytest.mark.parametrize("options, merged", [({}, True), ({"refine": False}, False), ({"refine_above": 2}, False),
                                             ({"refine_above": 1}, True), ({"dedup_threshold": 1.0}, False)])
def test_when_grow_and_refine_runs(options, merged, memory, tasks, fake_model, fake_llm):
    memory.add(bullet(1, "Count the colours of every example first."), actor="test")
    memory.add(bullet(2, "Count the colours of every example first, always."), actor="test")
    fake_model.on("ace_reflect", lambda messages: yaml_block("diagnosis: d\ntags: {}\ninsights: []"))
    load_method("ace").write([experience(tasks[SOLVED], passed=True)], memory, fake_llm, context(memory, **options))
    assert len(memory.list("playbook")) == (1 if merged else 2)


# -- options, store round trip, CLI -----------------------------------------------------------------------------

@pytest.mark.parametrize("options, error", [
    ({"max_bullets": -1}, "option max_bullets must be between 0 and 100000, got -1"),
    ({"dedup_threshold": 1.5}, "option dedup_threshold must be between 0.1 and 1.0, got 1.5"),
    ({"dedup_threshold": "high"}, "option dedup_threshold must be a number, got 'high'"),
    ({"reflect_on_failures": "yes"}, "option reflect_on_failures must be true or false, got 'yes'"),
    ({"curator_tokens": 10}, "option curator_tokens must be between 200 and 100000, got 10"),
])
def test_bad_option_values_are_refused_at_start_naming_the_option(options, error):
    from arcmemo.run.config import RunConfig

    with pytest.raises(MethodOptionError, match=re.escape(f"memory method 'ace': {error}")):
        RunConfig(selection="ace", method_options=options)
    assert read_options(AceOptions, {"max_bullets": 3, "dedup_threshold": 1}) == AceOptions(max_bullets=3,
                                                                                          dedup_threshold=1.0)


def test_the_playbook_round_trips_through_export_and_import_and_is_listed(memory, tmp_path):
    memory.add(bullet(1, "Count the colours first.", carried={"helpful": 2, "harmful": 0},
                      merged_from=["ace-00004"]), actor="test")
    memory.add(bullet(2, "def border(g):\n    return g[0] + g[-1]", "code"), actor="test")
    text = export_yaml(memory)
    path = tmp_path / "playbook.yaml"
    path.write_text(text)
    with Memory(str(tmp_path / "other.db")) as other:
        import_file(other, path, actor="test")
        assert export_yaml(other) == text
        assert {b.id: (b.helpful, b.section) for b in playbook(other)} == {"ace-00001": (2, "strategies"),
                                                                          "ace-00002": (0, "code")}
    listed = CliRunner().invoke(cli, ["concepts", "list", "--format", "playbook", "--db", memory.url, "--json"])
    assert listed.exit_code == 0, listed.output
    assert [row["name"] for row in json.loads(listed.output)] == ["ace-00001", "ace-00002"]
    methods = CliRunner().invoke(cli, ["methods", "list"])
    ace = methods.output.split("\nace  (")[1]       # its block (the last method listed)
    assert "dedup_threshold=0.8" in ace


# -- a continual run against the stub endpoint -----------------------------------------------------------------

def stub_answers():
    """The stub's answers by what is asked: the solver gets a task's seed solution (or a failing program
    for the unsolved ones), the reflector tags every bullet it was shown helpful when the attempt
    passed and harmful when not, the curator adds one lesson per task (the fourth restates the first)."""
    lessons = iter(["Look for a colour table that maps every colour to one colour.",
                    "When the output keeps the input's size, try cell-by-cell rules first.",
                    "Compare the object counts of input and output.",
                    "Look for a colour table that maps every colour to one single colour."])
    unsolved = {TASK_IDS[1], TASK_IDS[3]}

    def answer(body):
        text = "\n".join(str(m.get("content", "")) for m in body["messages"])
        if "You review one attempt at an ARC grid puzzle" in text:
            verdict = "helpful" if "A program passed every example" in text else "harmful"
            shown = sorted(set(re.findall(r"\[(ace-\d{5})\]", text)))
            tags = "".join(f"\n  {i}: {verdict}" for i in shown) or " {}"
            return yaml_block(f"diagnosis: as expected\ntags:{tags}\ninsights:\n  - a lesson")
        if "You keep a playbook for solving ARC grid puzzles" in text:
            return yaml_block(f"- op: add\n  section: strategies\n  content: {next(lessons)}")
        task_id = task_of(body["messages"])
        code = FAILING if task_id in unsolved or task_id is None else seed_code(task_id)
        return f"```python\n{code}```"

    return answer


def test_a_continual_run_grows_the_playbook_and_reads_it_back(tmp_path):
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    ids = TASK_IDS[:4]
    memory = Memory(str(tmp_path / "memory.db"))
    with StubServer(answer=stub_answers()) as stub:
        config = RunConfig(source="training", task_ids=ids, selection="ace", continual=True, k=2, retries=0,
                           helpers=False)
        runner = new_runner(config, memory=memory, make_llm=lambda run_id: stub_llm(stub.base_url),
                            sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                            runs_root=str(tmp_path / "runs"))
        summary = runner.run()
    assert summary["writes"] == 4 and summary["write_failures"] == 0
    assert summary["passed_train"] == sorted([ids[0], ids[2]])
    # block 1 grew the playbook from a success and a failure; block 2 was shown it
    selections = [json.loads(line) for line in (runner.rundir.path / "selections.jsonl").read_text().splitlines()]
    by_task = {s["task_id"]: s for s in selections}
    first_two = [c.id for c in memory.list("playbook") if c.name in ("ace-00001", "ace-00002")]
    assert by_task[ids[0]]["concept_ids"] == by_task[ids[1]]["concept_ids"] == []
    assert by_task[ids[2]]["concept_ids"] == by_task[ids[3]]["concept_ids"] == first_two
    solve_prompts = [r for r in stub.requests if "[ace-00001]" in json.dumps(r["messages"])
                     and "transform" in json.dumps(r["messages"]) and "You review" not in json.dumps(r["messages"])
                     and "You keep a playbook" not in json.dumps(r["messages"])]
    assert len(solve_prompts) == 2                                   # the two solves of block 2
    # block 2's verdicts: one task passed, one failed, both shown the same two bullets
    usage = memory.usage(run_id=runner.rundir.run_id)
    assert [(usage[i].helpful, usage[i].harmful, usage[i].offered_passing) for i in first_two] == [(1, 1, 1)] * 2
    # the fourth lesson restated the first: grow-and-refine merged it, keeping its history
    assert [c.name for c in memory.list("playbook")] == ["ace-00001", "ace-00002", "ace-00003"]
    assert [r.op for r in memory.history("ace-00004", format="playbook")] == ["add", "delete"]
    # and the next read shows the grown playbook with its counters
    final = select(load_tasks("training", ids=[ids[0]]).tasks[0], memory, SelectionSettings(mode="ace"))
    assert "- [ace-00001] (helpful 1, harmful 1) Look for a colour table" in final.hint
    assert len(final.concept_ids) == 3
    memory.close()


def test_the_concept_page_shows_a_bullets_section_counters_carried_and_what_merged_into_it(memory, tmp_path):
    testclient = pytest.importorskip("starlette.testclient")
    from arcmemo.web.app import create_app

    keep = memory.add(bullet(1, "Count the colours of every example first."), actor="test")
    memory.add(bullet(2, "Count the colours of every example first!", "checks"), actor="test")
    refine(memory, playbook(memory), 0.8, run_id=None)
    (tmp_path / "runs").mkdir()
    app = create_app(memory, tmp_path / "runs", actor="user:tester", allowed_hosts=["testserver"])
    with testclient.TestClient(app) as client:
        page = client.get(f"/concepts/{keep.id}").text
    assert "<b>section</b>: strategies" in page and "<b>merged_from</b>: [&#39;ace-00002&#39;]" in page
    assert "grow-and-refine: ace-00002 merged into it (similarity 1.00)" in page
