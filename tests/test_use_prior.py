"""The use prior (issue 30, `--use-prior`): the smoothed train-side success rate of each item's use,
read as of the memory's revision, orders what ps and oe selection show; two otherwise equal
concepts (and lessons) swap places when their counts differ, and `solved` (test-derived) is never
read."""

from __future__ import annotations

import pytest

from arcmemo.core.tasks import load_tasks
from arcmemo.memory.store import Memory
from arcmemo.memory.store.reads import ConceptUse
from arcmemo.memory.views.library import library
from arcmemo.selection import SelectionSettings
from arcmemo.selection.oe import plan_prompt as plan_oe
from arcmemo.selection.oe import select_oe
from arcmemo.selection.prior import NEUTRAL, UsePrior, prior_score, use_prior
from arcmemo.selection.ps import plan_prompt as plan_ps
from arcmemo.selection.ps import with_other_names

TASK = "0d3d703e"
CAPTION = "<observations>\n- colours swap\n</observations>\n<speculation>\n- a table\n</speculation>"


def test_the_prior_is_a_smoothed_train_side_rate_and_never_reads_solved():
    assert prior_score(None) == NEUTRAL == prior_score(ConceptUse())
    assert prior_score(ConceptUse(offered=4, offered_passing=3)) == pytest.approx(4 / 6)
    assert prior_score(ConceptUse(offered=4, offered_passing=0)) == pytest.approx(1 / 6)
    assert prior_score(ConceptUse(offered=2, offered_passing=1, helpful=2)) == prior_score(
        ConceptUse(offered=2, offered_passing=1, helpful=2, harmful=0, solved=2, called=2, called_passing=2))
    assert prior_score(ConceptUse(offered=2, offered_passing=1, harmful=1)) == pytest.approx(2 / 5)
    assert prior_score(ConceptUse(offered=2, offered_passing=1, helpful=1)) == pytest.approx(3 / 5)


def used(memory, concept_id: int, offered: int, passing: int, task: str = "t") -> None:
    """`offered` tasks of one run were shown the item, `passing` of them passed their train pairs."""
    for i in range(offered):
        memory.record_usage(run_id="earlier", pass_index=1, task_id=f"{task}{concept_id}-{i}",
                            used={concept_id: ConceptUse(offered=1, offered_passing=int(i < passing))})


def rated(memory, worse, better) -> None:
    """`better` went with passing tasks, `worse` did not, and a later write made that count."""
    used(memory, worse.id, offered=3, passing=0)
    used(memory, better.id, offered=3, passing=3)
    memory.add({"format": "sheet", "name": "cheatsheet", "description": "a revision after the use"}, actor="t")


def test_counts_are_read_as_of_the_memory_revision(tmp_path):
    """Use recorded after the newest revision (a block's tasks, in flight or done) waits for the
    next write: every task of a block sees the same prior."""
    memory = Memory(str(tmp_path / "memory.db"))
    first = memory.add({"format": "oe", "situation": "Colours swap.", "suggestion": "Build a table."}, actor="t")
    used(memory, first.id, offered=3, passing=3)
    assert memory.usage()[first.id].offered == 3
    before = use_prior(memory)
    assert before(first.id) == NEUTRAL and use_prior(memory) is before      # read once per revision
    memory.add({"format": "oe", "situation": "Shapes move.", "suggestion": "Find the offset."}, actor="t")
    assert use_prior(memory)(first.id) == pytest.approx(4 / 5)
    assert memory.usage(as_of_revision=True)[first.id].offered == 3


def two_lessons(memory, long: bool = False):
    """Two lessons alike in every word (the lexical pre-filter cannot tell them apart)."""
    words = " Then check the table against every example pair before applying it." * (40 if long else 1)
    a = memory.add({"format": "oe", "situation": "Colours swap across the grid.", "suggestion": "Build a table." + words},
                   actor="t")
    b = memory.add({"format": "oe", "situation": "Colours swap across the grid!", "suggestion": "Build a table." + words},
                   actor="t")
    return a, b


def test_oe_two_equal_lessons_swap_their_numbers_when_their_counts_differ(tmp_path, fake_model, fake_llm):
    memory = Memory(str(tmp_path / "memory.db"))
    a, b = two_lessons(memory)
    rated(memory, worse=a, better=b)
    task = load_tasks("training", ids=[TASK]).tasks[0]
    fake_model.on("caption", lambda messages: CAPTION)
    fake_model.on("select_oe", lambda messages: "```yaml\n- 1\n```")
    plain = select_oe(task, memory, SelectionSettings(mode="oe", top_k=1), fake_llm)
    ordered = select_oe(task, memory, SelectionSettings(mode="oe", top_k=1, pass_index=1), fake_llm,
                        prior=use_prior(memory))
    first, second = fake_model.calls_for("select_oe")
    assert first.prompt.index("grid.") < first.prompt.index("grid!")          # memory order: a is lesson 1
    assert second.prompt.index("grid!") < second.prompt.index("grid.")        # by prior: b is lesson 1
    assert (plain.concept_ids, ordered.concept_ids) == ([a.id], [b.id])       # "1" is b now


def test_oe_prefilter_keeps_the_higher_prior_of_two_equal_matches(tmp_path):
    memory = Memory(str(tmp_path / "memory.db"))
    a, b = two_lessons(memory, long=True)
    lib = library(memory, "oe")
    whole = plan_oe("colours swap table", lib, SelectionSettings(mode="oe", token_budget=100_000))[2]
    settings = SelectionSettings(mode="oe", token_budget=whole["prompt_tokens_est"] - 1)    # one lesson fits
    prior = UsePrior({a.id: ConceptUse(offered=3), b.id: ConceptUse(offered=3, offered_passing=3)})
    for given, kept in ((None, a), (prior, b)):
        messages, shown, stats = plan_oe("colours swap table", lib, settings, prior=given)
        assert stats["form"] == "prefiltered" and [c.id for c in shown] == [kept.id]


def two_concepts(memory):
    """Two PS concepts in one section, alike but for their names (used in two tasks each, so the
    listing does not collapse them, and with parameters enough that one line of the compressed
    listing outweighs the pre-filter's note)."""
    parameters = [{"name": f"table_{i}", "typing": "dict[color, color] mapping each colour of the input grid",
                   "description": "a table"} for i in range(8)]
    return [memory.add({"format": "ps", "name": name, "kind": "routine", "routine_subtype": "colour",
                        "output_typing": "grid", "description": "map every colour through a table",
                        "parameters": parameters, "used_in": ["t1", "t2"]}, actor="t")
            for name in ("alpha recolour", "beta recolour")]


def test_ps_two_equal_concepts_swap_places_when_their_counts_differ(tmp_path):
    memory = Memory(str(tmp_path / "memory.db"))
    alpha, beta = two_concepts(memory)
    lib = library(memory, "ps")
    task = load_tasks("training", ids=[TASK]).tasks[0]
    settings = SelectionSettings(mode="ps", token_budget=100_000)
    prior = UsePrior({alpha.id: ConceptUse(offered=4, offered_passing=1), beta.id: ConceptUse(offered=4,
                                                                                             offered_passing=4)})
    plain = plan_ps(task, lib, settings).messages[0]["content"]
    ordered = plan_ps(task, lib, settings, prior=prior).messages[0]["content"]
    assert plain.index("alpha recolour") < plain.index("beta recolour")
    assert ordered.index("beta recolour") < ordered.index("alpha recolour")
    assert sorted(plain.splitlines()) == sorted(ordered.splitlines())          # the same listing, reordered
    # the hint's names of the concepts not chosen: by prior too
    assert with_other_names("hint", lib, [], 1000, prior=prior).index("beta") < \
        with_other_names("hint", lib, [], 1000, prior=prior).index("alpha")
    # over the budget, the pre-filter keeps the higher prior of two equal word matches
    tight = next(settings for n in range(500, 20_000, 5) if len(plan_ps(
        task, lib, settings := SelectionSettings(mode="ps", token_budget=n)).shown) == 1)
    assert [c.name for c in plan_ps(task, lib, tight).shown] == ["alpha recolour"]
    assert [c.name for c in plan_ps(task, lib, tight, prior=prior).shown] == ["beta recolour"]


def test_a_ps_run_with_use_prior_shows_the_better_used_concept_first(tmp_path, fake_model, fake_llm):
    from runner_support import script_run

    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    memory = Memory(str(tmp_path / "memory.db"))
    alpha, beta = two_concepts(memory)
    rated(memory, worse=alpha, better=beta)
    script_run(fake_model)
    fake_model.on("select_ps", lambda messages: "```yaml\n- alpha recolour\n```")
    for options in ({}, {"use_prior": True}):
        config = RunConfig(source="training", task_ids=[TASK], retries=0, probe_helpers=False,
                           method_options=options, model_seed=len(options))
        new_runner(config, memory=memory, make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(),
                   solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs")).run()
    plain, ordered = (call.prompt for call in fake_model.calls_for("select_ps"))
    assert plain.index("alpha recolour") < plain.index("beta recolour")
    assert ordered.index("beta recolour") < ordered.index("alpha recolour")


def test_a_run_with_both_features_gives_the_same_results_whatever_is_in_flight(tmp_path, fake_model):
    """The prior read as of the revision and the failure lessons written in task order: four tasks in
    flight at once give the run directory and memory one task at a time gives. The select model
    names whichever of two equal concepts is listed second, so a prior read as use is recorded
    (the block's earlier tasks, done or not yet) would make the answers depend on timing."""
    from runner_support import TASK_IDS, script_run
    from test_tasks_in_flight import memory_contents, run_directory_contents, solve

    def second_listed(messages):
        text = "\n".join(str(m.get("content", "")) for m in messages)
        return f"```yaml\n- {max(('alpha recolour', 'beta recolour'), key=text.find)}\n```"

    script_run(fake_model, unsolved={TASK_IDS[1], TASK_IDS[4]}, delay_s=0.05)
    fake_model.on("select_ps", second_listed)
    fake_model.on("oe_failure", lambda messages: "```yaml\n- situation: The output keeps the input's size.\n"
                                                 "  suggestion: Start from a copy of the input.\n```")
    settings = dict(continual=True, k=3, retries=1, method_options={"use_prior": True, "learn_from_failures": True})
    results = {}
    for name, slots in (("one", 1), ("four", 4)):
        (tmp_path / name).mkdir()
        with Memory(str(tmp_path / name / "memory.db")) as memory:
            two_concepts(memory)
        results[name] = solve(tmp_path / name, slots, **settings)
    (one, one_summary, one_memory), (four, _, four_memory) = results["one"], results["four"]
    assert one_summary["failure_lessons"] == {"written": 1, "offered": 3}
    chosen = [e["selected"] for e in one.rundir.events() if e["type"] == "task"]
    assert {tuple(ids) for ids in chosen} != {tuple(chosen[0])}      # the prior changed the choice between blocks
    assert run_directory_contents(four.rundir.path) == run_directory_contents(one.rundir.path)
    assert memory_contents(four_memory) == memory_contents(one_memory) != []
