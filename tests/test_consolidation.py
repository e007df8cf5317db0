"""Consolidation (issue 30): near-duplicates found by helper behaviour and by words judged by the
scripted model, merged into one concept with nothing lost, refused when they disagree or differ
in format, and split again; the dry run writes nothing; the stats flag; the continual-run hook."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner
from consolidation_support import DIFFERENT, HALF_TURN_CONCEPT, PLANTED, SAME, helper, planted_memory, routine
from runner_support import TASK_IDS, script_run
from test_store import memory_url  # noqa: F401  (the store tests' SQLite/PostgreSQL fixture)

from arcmemo.cli import cli
from arcmemo.consolidation.judge import STEP
from arcmemo.consolidation.plan import apply_plan
from arcmemo.consolidation.wording import word_pairs
from arcmemo.memory.errors import MergeRefused
from arcmemo.memory.store import Memory
from arcmemo.memory.store.merges import undone
from arcmemo.memory.store.usage import ConceptUse
from arcmemo.run.helpers.behaviour import Behaviour, probed
from arcmemo.run.jobs.consolidating import plan_for
from arcmemo.sandbox import get_sandbox


@pytest.fixture
def memory(memory_url):  # noqa: F811  (SQLite, and PostgreSQL when ARCMEMO_TEST_POSTGRES_URL names one)
    with planted_memory(memory_url) as m:
        yield m


def by_name(memory) -> dict:
    return {c.name: c for c in memory.list()}


def invoke(*args, db):
    return CliRunner().invoke(cli, [*args, "--db", str(db)])


# -- finding and merging ------------------------------------------------------------------------

def test_planted_duplicates_merge_and_split_leave_everything(memory, fake_model, fake_llm):
    fake_model.on(STEP, lambda messages: SAME)
    before = by_name(memory)
    history = [(r.id, r.op, r.snapshot) for r in memory.history()]
    plan = plan_for(memory, get_sandbox(), fake_llm)

    merged = {m.survivor.name: sorted(c.name for c in m.absorbed) for m in plan.merges}
    assert merged == {"rotate grid": ["turn grid clockwise"], "color mapping": ["recolour cells by a colour table"]}
    turn, recolour = before["turn grid clockwise"], before["recolour cells by a colour table"]
    [rotate_merge] = [m for m in plan.merges if m.survivor.name == "rotate grid"]
    assert rotate_merge.why[turn.id].startswith("same helper results on") and turn.id in rotate_merge.aligned
    [colors_merge] = [m for m in plan.merges if m.survivor.name == "color mapping"]
    assert "the model: both recolour" in colors_merge.why[recolour.id] and recolour.id not in colors_merge.aligned
    [judged] = plan.judged
    assert judged["same"] and judged["reason"] == "both recolour every cell through one colour table"
    [refused] = plan.refused          # alike in words, helpers that disagree: refused naming both
    assert "'upscale grid'" in refused and "'enlarge grid'" in refused and "different results" in refused
    assert len(fake_model.calls_for(STEP)) == 1              # the disagreeing pair never reached the model

    results = apply_plan(memory, plan)
    assert all(error is None for _, _, error in results)
    now = by_name(memory)
    assert "turn grid clockwise" not in now and "recolour cells by a colour table" not in now
    rotate = now["rotate grid"]
    assert rotate.used_in == ["6150a2bd", "3c9b0459"] and rotate.helper == before["rotate grid"].helper
    assert rotate.cues == ["the output is the input turned", "corners move to the next corner"]
    assert rotate.implementation == ["see rotate grid", "see turn grid clockwise"]
    # its helper takes (grid, quarter_turns): turn's parameters filled those by position
    assert rotate.parameters == [{"name": "grid", "typing": "grid", "description": "the grid"},
                                 {"name": "quarter_turns", "typing": "int", "description": "how many quarter turns"}]
    colors = now["color mapping"]
    assert colors.used_in == ["0d3d703e", "b1948b0a", "c8f0f002"]
    assert [p["name"] for p in colors.parameters] == ["grid", "mapping", "table"]     # no helper: by name
    # every revision is still there, as it was; the merge is on both sides, by `consolidate`
    assert [(r.id, r.op, r.snapshot) for r in memory.history()][:len(history)] == history
    gone = memory.history("turn grid clockwise")[-1]
    assert (gone.op, gone.actor) == ("merged", "consolidate") and "merged into 'rotate grid'" in gone.reason
    assert gone.snapshot["helper"] == turn.helper.to_data() and gone.snapshot["merged_into"]["id"] == rotate.id
    into = memory.history("rotate grid")[-1]
    assert into.op == "merge" and "'turn grid clockwise'" in into.reason and "same helper results" in into.reason
    assert {c.name for c in memory.list(as_of=history[-1][0])} == set(before)

    for survivor in ("rotate grid", "color mapping"):
        memory.split(now[survivor].id, actor="test")
    after = by_name(memory)
    assert {name: c.to_data() for name, c in after.items()} == {name: c.to_data() for name, c in before.items()}
    assert {name: c.id for name, c in after.items()} == {name: c.id for name, c in before.items()}
    assert after["turn grid clockwise"].created_at == turn.created_at
    ops = [r.op for r in memory.history("turn grid clockwise")]
    assert ops == ["add", "merged", "split"] and [r.op for r in memory.history("rotate grid")] == ["add", "merge", "split"]
    assert [(r.id, r.op, r.snapshot) for r in memory.history()][:len(history)] == history


def test_usage_counts_for_the_survivor_while_merged_and_for_the_original_after_a_split(memory):
    c = by_name(memory)
    rotate, turn = c["rotate grid"].id, c["turn grid clockwise"].id
    memory.record_usage(run_id="r", pass_index=1, task_id="t1",
                        used={rotate: ConceptUse(1, 1, 0, 0), turn: ConceptUse(1, 1, 1, 0)})
    memory.record_usage(run_id="r", pass_index=1, task_id="t2", used={turn: ConceptUse(1, 0, 0, 0)})
    assert memory.usage()[rotate] == ConceptUse(1, 1, 0, 0)
    memory.merge_concepts(rotate, [turn], actor="consolidate", aligned={turn})
    # both offered in t1: one task, each counter true if either row was
    assert memory.usage() == {rotate: ConceptUse(2, 1, 1, 0)} == memory.usage(concept_ids=[rotate])
    assert memory.merged_into() == {turn: rotate}
    memory.split(rotate, actor="test")
    assert memory.usage() == {rotate: ConceptUse(1, 1, 0, 0), turn: ConceptUse(2, 1, 1, 0)}
    assert memory.merged_into() == {}


def test_a_split_keeps_what_was_written_to_the_survivor_after_the_merge(memory):
    c = by_name(memory)
    memory.merge_concepts(c["color mapping"].id, [c["recolour cells by a colour table"].id], actor="consolidate")
    memory.merge({"name": "color mapping", "cues": ["learnt later"], "kind": "routine"}, actor="run", task_id="f76d97a5")
    memory.split(c["color mapping"].id, actor="test")
    colors = by_name(memory)["color mapping"]
    assert colors.used_in == ["0d3d703e", "b1948b0a", "f76d97a5"] and colors.cues[-1] == "learnt later"
    assert [p["name"] for p in colors.parameters] == ["grid", "mapping"]
    assert by_name(memory)["recolour cells by a colour table"].to_data() == c["recolour cells by a colour table"].to_data()


def test_undone_is_three_way_field_by_field():
    before = {"description": "a", "cues": ["x", "y"], "used_in": ["t1"], "kind": None}
    merged = {"description": "a", "cues": ["x", "y", "z"], "used_in": ["t1", "t2"], "kind": "routine"}
    now = {"description": "edited", "cues": ["y", "z", "w"], "used_in": ["t1", "t2"], "kind": "routine"}
    out = undone(before, merged, now)
    # changed since: kept (edit), the list keeps what came since (w), loses what the merge brought (z)
    # and what was removed since (x); unchanged since: back to before
    assert (out["description"], out["cues"], out["used_in"], out["kind"]) == ("edited", ["y", "w"], ["t1"], None)


def test_no_model_merges_only_what_behaves_the_same(memory, fake_model, fake_llm):
    plan = plan_for(memory, get_sandbox(), None)
    assert [m.survivor.name for m in plan.merges] == ["rotate grid"] and fake_model.calls == []
    assert any("'color mapping'" in u and "no model asked" in u for u in plan.unjudged)


def test_a_model_answer_that_does_not_read_is_retried_then_reported(memory, fake_model, fake_llm):
    fake_model.queue(STEP, "They look the same to me.", "```yaml\nsame: perhaps\nreason: hard to say\n```")
    plan = plan_for(memory, get_sandbox(), fake_llm)
    assert [m.survivor.name for m in plan.merges] == ["rotate grid"]
    [unjudged] = plan.unjudged
    assert "'color mapping'" in unjudged and "unreadable answer after 2 attempts" in unjudged
    assert "`same` must be yes or no" in unjudged
    retry = fake_model.calls_for(STEP)[1].prompt
    assert "Your answer could not be used" in retry and "They look the same to me." in retry


def test_a_pair_the_model_calls_different_stays(memory, fake_model, fake_llm):
    fake_model.on(STEP, lambda messages: DIFFERENT)
    plan = plan_for(memory, get_sandbox(), fake_llm)
    assert [m.survivor.name for m in plan.merges] == ["rotate grid"]
    assert plan.judged[0]["same"] is False and plan.judged[0]["reason"].startswith("one scales cells")


def test_word_pairs_need_agreeing_typings():
    from arcmemo.memory.schema.concept import Concept

    def concept(i, name, typing):
        return Concept(id=i, name=name, output_typing="grid", description="recolour cells through a colour table",
                       parameters=[{"name": "grid", "typing": "grid"}, {"name": "t", "typing": typing}])

    alike = word_pairs([concept(1, "a", "color mapping"), concept(2, "b", "Color  Mapping")])
    assert [(p.first.id, p.second.id) for p in alike] == [(1, 2)] and alike[0].overlap == pytest.approx(1.0)
    assert word_pairs([concept(1, "a", "color mapping"), concept(2, "b", "int")]) == []


# -- refusals, named both -------------------------------------------------------------------------

def test_concepts_of_different_formats_are_refused_naming_both(memory):
    c = by_name(memory)
    with pytest.raises(MergeRefused, match=r"cannot merge oe concept 'lesson-colour-table' \(id \d+\) into ps "
                                           r"concept 'color mapping' \(id \d+\): they are of different formats"):
        memory.merge_concepts(c["color mapping"].id, [c["lesson-colour-table"].id], actor="test")
    assert by_name(memory).keys() == c.keys()




def test_a_lesson_from_a_failure_is_not_merged_with_one_from_a_success(memory, fake_model, fake_llm):
    fake_model.on(STEP, lambda messages: SAME)
    lesson = by_name(memory)["lesson-colour-table"]
    failed = memory.add({"format": "oe", "name": "lesson-failed-table", "used_in": ["f76d97a5"], "meta": {"from": "failure"},
                         "situation": "Every input colour always became the same output colour.",
                         "suggestion": "A colour table built from the examples and applied to every cell."}, actor="test")
    plan = plan_for(memory, get_sandbox(), fake_llm, formats=["oe"])
    assert plan.merges == [] and fake_model.calls_for(STEP) == []
    assert any("'lesson-colour-table'" in r and "'lesson-failed-table'" in r and "own fields differ" in r
               for r in plan.refused)
    with pytest.raises(MergeRefused, match=r"a memory method's own fields differ \(meta \{\} and \{'from': 'failure'\}"):
        memory.merge_concepts(lesson.id, [failed.id], actor="test")


def test_a_helper_cannot_move_to_a_concept_named_otherwise(memory):
    c = by_name(memory)
    memory.add(routine("spin grid", "Rotate the grid.", [("grid", "grid", None), ("n", "int", None)], [], ["t9"]),
               actor="test")
    with pytest.raises(MergeRefused, match="'rotate grid' has a helper and 'spin grid' has none"):
        memory.merge_concepts(memory.get("spin grid").id, [c["rotate grid"].id], actor="test")


def test_a_parameter_the_survivors_helper_does_not_take_is_refused(memory):
    memory.add(routine("rotate grid by steps", "Rotate.", [("grid", "grid", None), ("steps", "int", None)], [], ["t9"]),
               actor="test")
    c = by_name(memory)
    with pytest.raises(MergeRefused, match=r"the helper of 'rotate grid' takes \(grid, quarter_turns\), and "
                                           r"'rotate grid by steps''s parameter 'steps' is none of them"):
        memory.merge_concepts(c["rotate grid"].id, [c["rotate grid by steps"].id], actor="test")


def test_a_split_is_refused_when_it_cannot_be_done(memory):
    c = by_name(memory)
    rotate, turn = c["rotate grid"], c["turn grid clockwise"]
    memory.merge_concepts(rotate.id, [turn.id], actor="consolidate", aligned={turn.id})
    merge_rev = memory.revision()
    memory.add(routine("turn grid clockwise", "Another.", [("grid", "grid", None)], [], ["t9"]), actor="test")
    with pytest.raises(MergeRefused, match="a concept named 'turn grid clockwise' exists again"):
        memory.unmerge(merge_rev, actor="test")
    with pytest.raises(MergeRefused, match=r"revision 1 \(add of ps concept 'rotate grid'\) is not a merge"):
        memory.unmerge(1, actor="test")
    memory.delete("turn grid clockwise", actor="test", reason="make room")
    memory.unmerge(merge_rev, actor="test")
    with pytest.raises(MergeRefused, match="is not in force"):
        memory.unmerge(merge_rev, actor="test")


def test_a_deleted_concepts_id_is_never_given_again(memory_url):  # noqa: F811
    with Memory(memory_url) as memory:
        memory.add(PLANTED[0], actor="test")
        last = memory.add(PLANTED[2], actor="test")
        memory.delete(last.id, actor="test", reason="gone")
        assert memory.add(PLANTED[3], actor="test").id == last.id + 1
        counts = memory.merge_many([(PLANTED[4], None), (PLANTED[6], None)], actor="test")
        assert counts["added"] == 2 and sorted(c.id for c in memory.list())[-2:] == [last.id + 2, last.id + 3]


# -- the command line -----------------------------------------------------------------------------

@pytest.fixture
def db(tmp_path, monkeypatch):
    """The planted memory as a SQLite file, closed; the aux model is the scripted fake."""
    monkeypatch.setenv("ARCMEMO_AUX_MODEL", "fake")
    planted_memory(tmp_path / "memory.db").close()
    return tmp_path / "memory.db"


def test_dry_run_lists_the_merges_and_changes_no_byte(db, fake_model):
    fake_model.on(STEP, lambda messages: SAME)
    before = db.read_bytes()
    result = invoke("concepts", "consolidate", "--dry-run", db=db)
    assert result.exit_code == 0, result.output
    assert "would merge (dry run, nothing changed):" in result.output
    assert "ps 'rotate grid' (id 1) <- 'turn grid clockwise' (id 2): same helper results on 12 probe inputs" in result.output
    assert "'recolour cells by a colour table' (id 4): words and typings alike (0.54); the model: both recolour" in result.output
    assert "'upscale grid' (id 5) and 'enlarge grid' (id 6)" in result.output
    assert db.read_bytes() == before and sorted(p.name for p in db.parent.iterdir()) == ["memory.db"]
    data = json.loads(invoke("concepts", "consolidate", "--dry-run", "--json", db=db).output)
    assert data["dry_run"] and len(data["merges"]) == 2 and data["applied"] == []
    assert db.read_bytes() == before


def test_consolidate_history_split_and_revert_on_the_command_line(db, fake_model):
    fake_model.on(STEP, lambda messages: SAME)
    result = invoke("concepts", "consolidate", db=db)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("merged:\n") and "undo a merge with `arcmemo concepts split NAME`" in result.output
    gone = invoke("concepts", "history", "turn grid clockwise", "--json", db=db)
    revs = json.loads(gone.output)
    assert [r["op"] for r in revs] == ["add", "merged"] and revs[-1]["actor"] == "consolidate"
    kept = json.loads(invoke("concepts", "history", "rotate grid", "--json", db=db).output)
    assert kept[-1]["op"] == "merge" and kept[-1]["snapshot"]["merged_from"]["revision"] == revs[-1]["id"]

    result = invoke("concepts", "split", "turn grid clockwise", db=db)      # the merged-away one, by name
    assert result.exit_code == 0 and "split ps concept 2 'turn grid clockwise' out of 1 'rotate grid'" in result.output
    colors = json.loads(invoke("concepts", "history", "color mapping", "--json", db=db).output)[-1]
    result = invoke("concepts", "revert", str(colors["id"]), db=db)
    assert result.exit_code == 0 and "'recolour cells by a colour table' out of 3 'color mapping'" in result.output
    result = invoke("concepts", "revert", str(colors["id"]), db=db)
    assert result.exit_code == 1 and "is not in force" in result.output
    result = invoke("concepts", "split", "rotate grid", db=db)
    assert result.exit_code == 1 and "no concept merged into it is still merged" in result.output
    with Memory(db) as memory:
        assert {c.name for c in memory.list()} == {d["name"] for d in PLANTED}


def test_helpers_that_disagree_are_refused_naming_both(db):
    before = db.read_bytes()
    result = invoke("concepts", "merge", "upscale grid", "enlarge grid", db=db)
    assert result.exit_code == 1
    assert "cannot merge 'enlarge grid' (id 6) into 'upscale grid' (id 5): their helpers give different results" \
        in result.output and "nothing changed" in result.output
    assert db.read_bytes() == before


def test_a_helper_other_helpers_call_is_not_merged_away(db):
    with Memory(db) as memory:
        memory.add(HALF_TURN_CONCEPT, actor="test")
    result = invoke("concepts", "merge", "rotate grid", "turn grid clockwise", db=db)
    assert result.exit_code == 1 and "cannot merge 'turn grid clockwise'" in result.output
    assert "its helper turn_grid_clockwise is called by the helpers of 'half turn'" in result.output
    with Memory(db) as memory:          # consolidation makes the called one the survivor instead
        plan = plan_for(memory, get_sandbox(), None)
        [merge] = plan.merges
        assert merge.survivor.name == "turn grid clockwise" and [c.name for c in merge.absorbed] == ["rotate grid"]
        apply_plan(memory, plan)
        assert by_name(memory)["turn grid clockwise"].helper.name == "turn_grid_clockwise"


def test_merge_on_the_command_line_refuses_formats_naming_both(db):
    result = invoke("concepts", "merge", "color mapping", "lesson-colour-table", db=db)
    assert result.exit_code == 1
    assert "cannot merge oe concept 'lesson-colour-table' (id 8) into ps concept 'color mapping' (id 3)" in result.output


def test_stats_flags_concepts_offered_often_and_never_used(db):
    with Memory(db) as memory:
        c = by_name(memory)
        for i in range(12):
            memory.record_usage(run_id="r", pass_index=1, task_id=f"t{i}", used={
                c["flip grid"].id: ConceptUse(1), c["rotate grid"].id: ConceptUse(1, int(i == 0)),
                c["upscale grid"].id: ConceptUse(1, 1, 1), c["color mapping"].id: ConceptUse(1),
                c["recolour cells by a colour table"].id: ConceptUse(1, offered_passing=int(i == 3))})
        memory.record_usage(run_id="r", pass_index=1, task_id="t99", used={c["enlarge grid"].id: ConceptUse(1)})
    rows = {r["name"]: r["flag"] for r in json.loads(invoke("concepts", "stats", "--json", db=db).output)}
    assert rows == {"flip grid": "offered 12x, never called", "rotate grid": "offered 12x, never called by a passing "
                    "program", "upscale grid": None, "color mapping": "offered 12x, never to a task that passed",
                    "recolour cells by a colour table": None, "enlarge grid": None}
    flagged = invoke("concepts", "stats", "--flagged", "--unused-after", "13", db=db)
    assert flagged.exit_code == 0 and "no concept is flagged" in flagged.output
    table = invoke("concepts", "stats", "--flagged", db=db).output
    assert "never called" in table and "upscale grid" not in table


# -- the continual run ------------------------------------------------------------------------------

def test_a_continual_run_consolidates_every_n_blocks_once(tmp_path, fake_model, fake_llm):
    from runner_support import LEARNED

    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner, resume_runner
    from arcmemo.solverkit import load_solver

    script_run(fake_model)
    fake_model.on(STEP, lambda messages: SAME)
    memory = Memory(tmp_path / "memory.db")
    # a near-duplicate of what the run will learn (runner_support.PS_CONCEPT), under another name
    memory.add(routine("map colours through a table", "map every cell's colour through a lookup table",
                       [("table", "dict[color, color]", "which colour each colour becomes")],
                       ["each input colour always turns into the same output colour"],
                       ["f76d97a5", "b1948b0a", "c8f0f002"]), actor="test")
    config = RunConfig(source="training", task_ids=TASK_IDS[:4], continual=True, k=1, retries=0, consolidate_every=2)
    make = dict(memory=memory, make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(),
                solver=load_solver("program-synthesis"))
    runner = new_runner(config, runs_root=str(tmp_path / "runs"), **make)
    runner.run()
    events = [e for e in runner.rundir.events() if e["type"] == "consolidate"]
    assert [(e["pass_index"], e["block"]) for e in events] == [(1, 2), (1, 4)]
    [merge] = events[0]["merged"]
    assert merge["into"]["name"] == "map colours through a table" and merge["merged"][0]["name"] == LEARNED
    assert "the model: both recolour" in merge["merged"][0]["why"] and events[0]["usage"]["calls"] == 1
    learned = memory.history(LEARNED)[-1]
    assert (learned.op, learned.actor, learned.run_id) == ("merged", "consolidate", runner.rundir.run_id)
    kept = memory.get("map colours through a table")
    assert set(kept.used_in) >= {"f76d97a5", *TASK_IDS[:2]}
    # the run's use counts (stats --run) of the concepts merged away count for the survivor
    ids = {kept.id, *(absorbed for absorbed, into in memory.merged_into().items() if into == kept.id)}
    offered = sum(any(r["id"] in ids and r["offered"] for r in e.get("concept_use") or [])
                  for e in runner.rundir.events() if e["type"] == "task")
    stats = CliRunner().invoke(cli, ["concepts", "stats", "--run", str(runner.rundir.path), "--json",
                                     "--db", str(tmp_path / "memory.db")])
    assert [(r["name"], r["offered"]) for r in json.loads(stats.output)] == [(kept.name, offered)] and offered >= 2
    # resumed, the consolidations already done are not done again
    calls, revision = len(fake_model.calls_for(STEP)), memory.revision()
    shutil.copy(runner.rundir.path / "events.jsonl", tmp_path / "events.before")
    resume_runner(runner.rundir, **make).run()
    assert [e for e in runner.rundir.events() if e["type"] == "consolidate"] == events
    assert len(fake_model.calls_for(STEP)) == calls and memory.revision() == revision
    memory.close()


def test_consolidate_every_needs_a_continual_run(tmp_path):
    result = CliRunner().invoke(cli, ["solve", "--consolidate-every", "2", "--limit", "1", "--db", str(tmp_path / "m")])
    assert result.exit_code == 2 and "--consolidate-every needs --continual" in result.output


def test_behaviour_compares_helpers_by_their_calls(memory):
    c = by_name(memory)
    behaviour = Behaviour(get_sandbox(), memory.list("ps"))
    assert behaviour.compare(c["rotate grid"], c["turn grid clockwise"]).same is True
    assert behaviour.compare(c["upscale grid"], c["enlarge grid"]).same is False
    other = behaviour.compare(c["rotate grid"], c["flip grid"])
    assert other.same is None and "take different arguments" in other.detail
    constant = routine("blank grid", "Blank.", [("grid", "grid", None)], [], ["t9"],
                       helper("blank_grid", 'def blank_grid(grid):\n    """Blank.\n\n    Example: blank_grid([[1]]) -> '
                              '[[0]]\n    """\n    return [[0]]\n'))
    blank = memory.add(constant, actor="test")
    alike = memory.add({**constant, "name": "empty grid", "helper": helper(
        "empty_grid", 'def empty_grid(grid):\n    """Empty.\n\n    Example: empty_grid([[1]]) -> [[0]]\n    """\n'
                      '    return [[0]]\n')}, actor="test")
    verdict = Behaviour(get_sandbox(), memory.list("ps")).compare(blank, alike)
    assert verdict.same is None and "one answer" in verdict.detail       # a constant shows nothing


def test_helpers_that_cannot_be_probed_are_compared_by_their_code():
    from arcmemo.memory.helpers.source import same_code_key
    from arcmemo.memory.helpers.value import Helper

    source = 'def count_things(objects):\n    """Count.\n\n    Example: count_things([1]) -> 1\n    """\n' \
             '    return len(objects) + count_things([]) * 0\n'
    renamed = source.replace("count_things", "tally").replace('"""Count.', '"""Tally them.')
    assert same_code_key(Helper("count_things", source)) == same_code_key(Helper("tally", renamed))
    assert same_code_key(Helper("tally", renamed.replace("+ tally", "- tally"))) != same_code_key(Helper("tally", renamed))
    assert same_code_key(Helper("tally", renamed, ("x",))) != same_code_key(Helper("tally", renamed))


@pytest.mark.slow
def test_the_shipped_memory_written_twice_consolidates_and_splits_back_byte_for_byte(tmp_path):
    """Every helper concept of the shipped memory written again under another name (its helper
    renamed): all 30 copies are found without a model (12 by their results on probe inputs, 18
    by their code), merged, and split back to the same export."""
    import re
    from pathlib import Path

    db = Path(shutil.copy(Path(__file__).resolve().parents[1] / "memory.db", tmp_path / "memory.db"))
    with Memory(db) as memory:
        originals = [c for c in memory.list("ps") if c.helper]
        for c in originals:
            name = c.helper.name + "_again"
            memory.add({**c.to_data(), "name": c.name + " again", "helper": {
                **c.helper.to_data(), "name": name, "source": re.sub(rf"\b{c.helper.name}\b", name, c.helper.source)}},
                actor="test")
    export = invoke("concepts", "export", db=db).output
    result = invoke("concepts", "consolidate", "--no-model", "--json", db=db)
    merged = json.loads(result.output)["merges"]
    assert sorted(x["name"] for m in merged for x in m["merged"]) == sorted(c.name + " again" for c in originals)
    assert len(merged) == 30 and all(m["into"]["name"] + " again" == m["merged"][0]["name"] for m in merged)
    for m in merged:
        assert invoke("concepts", "split", m["into"]["name"], db=db).exit_code == 0
    assert invoke("concepts", "export", db=db).output == export


def test_a_timeout_on_a_busy_machine_is_run_again_before_it_counts(memory):
    """A grid that timed out once (the machine was busy, not the helper slow) is run again, so two
    helpers that behave alike are not told apart by the load; one that times out every time fails."""
    from types import SimpleNamespace

    class Flaky:
        """A sandbox whose first run of each program times out on its first grid."""

        def __init__(self, always: bool = False):
            self.seen, self.always = set(), always

        def run(self, program, grids, modules=None):
            first = program not in self.seen or self.always
            self.seen.add(program)
            return [SimpleNamespace(ok=False, error="timeout", output=None) if first and i == 0
                    else SimpleNamespace(ok=True, error=None, output=[[len(g)]]) for i, g in enumerate(grids)]

    rotate = next(c for c in memory.list("ps") if c.name == "rotate grid")
    grids = [((1, 2),), ((3,), (4,))]
    call = f"{rotate.helper.name}(grid, 1)"
    p = probed(rotate)
    assert Behaviour(Flaky(), [rotate])._run(p, call, grids) == [((1,),), ((2,),)]
    assert Behaviour(Flaky(always=True), [rotate])._run(p, call, grids) == [None, ((2,),)]
