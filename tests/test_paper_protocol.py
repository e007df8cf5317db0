"""The paper's protocol end to end: threads, every step recorded, Table 4 from one run,
`runs show` / `runs compare --mean`; budgets from the model's context; the paper's hint
and re-selection before a retry."""

from __future__ import annotations

import json
import re
import shutil
from statistics import mean, stdev

import pytest
from click.testing import CliRunner
from runner_support import seed_code, task_of
from test_scoring_threads import ORACLE, PER_THREAD, STRICT

from arcmemo.cli import cli
from arcmemo.core.tasks import load_tasks
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.run.records.report import mean_text
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver

P1, P2 = "0d3d703e", "3428a4f5"     # one test input; two test inputs (a, b)
WRONG = "```python\ndef transform(grid):\n    return [[0]]\n```"


def only(task_id: str, tests: set[int]) -> str:
    """A program that fails every train pair but answers the chosen test inputs right."""
    task = load_tasks("training", ids=[task_id]).by_id(task_id)
    answers = load_tasks("training", ids=[task_id]).answers_for_scoring(True)[task_id].test_outputs
    known = {repr([[int(v) for v in r] for r in task.test_inputs[j]]): [list(r) for r in answers[j]] for j in tests}
    return (f"```python\nKNOWN = {known!r}\n\ndef transform(grid):\n"
            "    return KNOWN.get(repr([[int(v) for v in r] for r in grid]), [[0]])\n```")


# The hand-computed example of test_scoring_threads, played by a scripted model:
# SCRIPT[task][thread][retry depth] is what the thread answers at that depth.
SCRIPT = {
    P1: [["wrong", "right"], ["wrong", "wrong", "wrong"], ["right"]],
    P2: [["a", "b", "wrong"], ["wrong", "wrong", "right"], ["b", "b", "b"]],
}


def play(messages, request) -> str:
    task_id = task_of(messages, [P1, P2])
    depth = sum(m["role"] == "assistant" for m in messages)
    what = SCRIPT[task_id][request.sample][depth]
    answers = {"wrong": lambda: WRONG, "right": lambda: f"```python\n{seed_code(task_id)}\n```",
               "a": lambda: only(task_id, {0}), "b": lambda: only(task_id, {1})}
    return answers[what]()


def solve_run(tmp_path, llm, solver="program-synthesis", **settings):
    memory = Memory(str(tmp_path / "memory.db"))
    config = RunConfig(source="training", solver=solver, **settings)
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                        solver=load_solver(solver), runs_root=str(tmp_path / "runs"))
    return runner, runner.run()


def test_three_threads_two_retries_give_the_hand_computed_table(tmp_path, fake_model, fake_llm):
    fake_model.on("solve", play, with_request=True)
    runner, summary = solve_run(tmp_path, fake_llm, task_ids=[P1, P2], selection="none", threads=3, retries=2)
    table = summary["table4"]
    assert (table["threads"], table["retries"], table["puzzles"]) == (3, 2, 2)
    for d in range(3):
        assert table["oracle"][d] == pytest.approx(ORACLE[d]), d
        assert table["strict"][d] == pytest.approx(STRICT[d]), d
        assert table["per_thread"][d] == pytest.approx(PER_THREAD[d]), d
    # every step of every thread is in the event log, with its retry depth and test verdicts
    events = {e["task_id"]: e for e in runner.rundir.events() if e["type"] == "task"}
    for task_id, script in SCRIPT.items():
        threads = events[task_id]["threads"]
        assert [t["thread"] for t in threads] == [0, 1, 2]
        assert [[s["round"] for s in t["steps"]] for t in threads] == [list(range(len(s))) for s in script]
    assert [s["test_correct"] for s in events[P2]["threads"][0]["steps"]] == [[True, False], [False, True],
                                                                              [False, False]]
    # the model saw three independent samples per task
    assert sorted({c.sample for c in fake_model.calls_for("solve")}) == [0, 1, 2]
    # submitted: the passing threads' program first, so P1 and P2 are solved by attempt 1
    assert summary["per_task"][P1]["oracle2"] == 1.0 and summary["per_task"][P2]["oracle2"] == 1.0
    submission = json.loads((runner.rundir.submissions / f"{P2}.json").read_text())
    assert len(submission) == 2 and all("attempt_1" in s and "attempt_2" in s for s in submission)

    # runs show prints the table from the run directory alone; compare --mean averages runs
    runs = ["--run-dir", str(tmp_path / "runs")]
    shown = CliRunner().invoke(cli, ["runs", "show", runner.rundir.run_id, *runs])
    assert shown.exit_code == 0, shown.output
    assert "oracle@k by retry depth" in shown.output and "k=2" in shown.output and "official" not in shown.output
    depth1 = next(line for line in shown.output.splitlines() if line.startswith("1 "))
    assert depth1.split() == ["1", "100.00", "0.00", "75.00", "58.33", f"({stdev([100, 0, 75]):.2f})",
                              "91.67", f"({stdev([100, 75, 100]):.2f})", "100.00"]   # hand-computed above
    copy = tmp_path / "runs" / "copy"
    shutil.copytree(runner.rundir.path, copy)
    refused = CliRunner().invoke(cli, ["runs", "compare", runner.rundir.run_id, str(copy), "--mean", *runs])
    assert refused.exit_code == 1 and f"run {runner.rundir.run_id} is given twice" in refused.output
    runs.append("--allow-mismatch")      # a run and its copy on purpose: the arithmetic of the mean
    compared = CliRunner().invoke(cli, ["runs", "compare", runner.rundir.run_id, str(copy), "--mean", *runs])
    assert compared.exit_code == 0, compared.output
    assert "mean (std) over 2 runs" in compared.output and "91.67 (0.00)" in compared.output
    as_json = CliRunner().invoke(cli, ["runs", "compare", runner.rundir.run_id, str(copy), "--mean", "--json", *runs])
    means = json.loads(as_json.stdout)
    assert means["oracle"][1][1] == {"mean": pytest.approx(275 / 3), "std": 0.0} and means["threads"] == 3


def test_mean_over_runs_is_each_cells_mean_and_sample_std():
    def summary(run_id, shift):
        cells = [[10.0 + shift, 20.0 + shift], [30.0 + shift, 40.0 + shift]]
        return {"run_id": run_id, "oracle1": 40.0 + shift, "oracle2": 50.0 + shift, "strict": 30.0,
                "table4": {"threads": 2, "retries": 1, "puzzles": 4, "oracle": cells, "strict": cells}}

    text = mean_text([({}, summary("a", 0)), ({}, summary("b", 3)), ({}, summary("c", 9))])
    spread = stdev([0, 3, 9])
    lines = text.split("\n")
    depth1 = next(line for line in lines if line.startswith("1 "))        # Table 4, depth 1: k=1, k=2
    assert depth1.split() == ["1", f"{mean([30, 33, 39]):.2f}", f"({spread:.2f})", f"{mean([40, 43, 49]):.2f}",
                              f"({spread:.2f})"]
    # the headline: oracle@2 at the full depth (1), the cell above; the submitted attempts' apart
    assert re.search(rf"oracle@2 over threads, retry depth 1 \(the paper's score\) +{mean([40, 43, 49]):.2f} "
                     rf"\({spread:.2f}\)", text)
    assert re.search(rf"ARC Prize score \(2 submitted attempts\) +{mean([50, 53, 59]):.2f} \({spread:.2f}\)", text)
    assert "the submitted attempts' strict" in text and "30.00 (0.00)" in text    # the same in each run


def test_mean_refuses_runs_of_other_shapes():
    from arcmemo.run.records.report import MismatchedRuns

    one = {"run_id": "a", "table4": {"threads": 3, "retries": 2}}
    other = {"run_id": "b", "table4": {"threads": 1, "retries": 2}}
    with pytest.raises(MismatchedRuns, match="a: 3 threads, 2 retries, b: 1 threads"):
        mean_text([({}, one), ({}, other)])
    with pytest.raises(MismatchedRuns, match="no per-depth table in run.* b"):
        mean_text([({}, one), ({}, {"run_id": "b"})])


@pytest.mark.parametrize("args, message", [(["--threads", "0"], "--threads"), (["--token-budget", "-5"], "budget")])
def test_bad_protocol_flags_fail_before_a_run_directory(tmp_path, args, message):
    result = CliRunner().invoke(cli, ["solve", "--tasks", P1, *args, "--db", str(tmp_path / "m.db"),
                                      "--run-dir", str(tmp_path / "runs")])
    assert result.exit_code != 0 and message in result.output
    assert not (tmp_path / "runs").exists() and not (tmp_path / "m.db").exists()


# ---------------------------------------------------------------------- budgets from the model's context
def paper_sized_memory(path) -> Memory:
    """A generated PS memory of the paper's size (270 concepts)."""
    from benchmarks.synthetic import synthetic_concepts

    memory = Memory(str(path))
    memory.merge_many([(c, None) for c in synthetic_concepts(270)], actor="test")
    return memory


def test_o4_mini_is_shown_the_paper_sized_memory_in_full(tmp_path):
    from llm_stub import StubServer, completion_body, stub_llm

    from arcmemo.memory.views.library import FULL, library

    memory = paper_sized_memory(tmp_path / "memory.db")
    lib = library(memory, "ps")
    with StubServer() as stub:
        stub.script({"body": completion_body(f"```yaml\n- {lib.concepts[7].name}\n```")},
                    {"body": completion_body(WRONG)})
        llm = stub_llm(stub.base_url, select_model="o4-mini", solver_model="o4-mini", aux_model="gpt-4.1-mini")
        try:
            runner = new_runner(RunConfig(source="training", task_ids=[P1], retries=0), memory=memory,
                                make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                                solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
            summary = runner.run()
        finally:
            llm.close()
        select_request, solve_request = stub.requests
    assert (runner.config.token_budget, runner.config.hint_budget) == (60_000, 36_000)   # 30%, 18% of 200k
    prompt = select_request["messages"][0]["content"]
    assert select_request["model"] == "o4-mini"
    assert all(lib.entry(i, FULL) in prompt for i in range(len(lib)))     # every concept, every field
    assert summary["selection_levels"] == {"full": 1}
    (record,) = runner.rundir.selections()
    assert record["level"] == "full" and record["concepts"] == [lib.concepts[7].name]


def test_degraded_selection_is_said_once_per_run_and_recorded_per_task(tmp_path, fake_model, fake_llm):
    from runner_support import TASK_IDS, script_run

    from arcmemo.llm.catalog import ModelTraits
    from arcmemo.run.progress.reporter import Reporter

    class Notes(Reporter):
        def __init__(self):
            super().__init__()
            self.notes = []

        def note(self, text):
            self.notes.append(text)

    fake_model.traits = ModelTraits(context=8192)        # an 8k model: 2,457 tokens for the select prompt
    script_run(fake_model)
    notes = Notes()
    memory = paper_sized_memory(tmp_path / "memory.db")
    runner = new_runner(RunConfig(source="training", task_ids=TASK_IDS[:3], retries=0), memory=memory,
                        make_llm=lambda run_id: fake_llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"), progress=notes)
    summary = runner.run()
    degraded = [n for n in notes.notes if n.startswith("selection degraded")]
    assert len(degraded) == 1 and "shown prefiltered" in degraded[0] and "270 concepts" in degraded[0]
    assert summary["selection_levels"] == {"prefiltered": 3}
    events = [e for e in runner.rundir.events() if e["type"] == "task"]
    assert [e["selection_level"] for e in events] == ["prefiltered"] * 3
    assert {r["level"] for r in runner.rundir.selections()} == {"prefiltered"}


# ---------------------------------------------------------------------- the paper's hint, re-selection
def test_the_papers_hint_names_the_other_concepts_within_the_hint_budget(tmp_path, fake_model, fake_llm):
    from arcmemo.core.estimate import estimate_tokens
    from arcmemo.memory.views.library import library
    from arcmemo.methods import select
    from arcmemo.selection import SelectionSettings
    from arcmemo.selection.ps import NOTE_OTHERS
    from benchmarks.synthetic import synthetic_concepts

    memory = Memory(str(tmp_path / "m.db"))
    memory.merge_many([(c, None) for c in synthetic_concepts(40)], actor="t")
    lib = library(memory, "ps")
    picked = lib.concepts[5]
    task = load_tasks("training", ids=[P1]).by_id(P1)
    fake_model.on("select_ps", lambda messages: f"```yaml\n- {picked.name}\n```")
    alone = select(task, memory, SelectionSettings(mode="ps"), fake_llm)
    paper = select(task, memory, SelectionSettings(mode="ps", other_names=True), fake_llm)
    assert paper.concept_ids == alone.concept_ids == [picked.id]
    head, names = paper.hint.split(NOTE_OTHERS)
    assert head == alone.hint                               # the selected concept in full, with its types
    assert names.splitlines() == [f"- {c.name}" for c in lib.concepts if c.id != picked.id]   # every other one
    small = select(task, memory, SelectionSettings(mode="ps", other_names=True,
                                                   hint_budget=estimate_tokens(alone.hint) + 100), fake_llm)
    assert small.hint.startswith(alone.hint + NOTE_OTHERS)
    assert 0 < len(small.hint.split(NOTE_OTHERS)[1].splitlines()) < 39
    assert estimate_tokens(small.hint) <= estimate_tokens(alone.hint) + 100


def test_expert_agents_threads_are_independent_and_each_recorded(tmp_path, fake_model, fake_llm):
    """Threads with the other solver family: each thread's agents are samples of their own (no
    answer shared through the call cache), and the table counts a thread right when it is."""
    from test_expert_agents import FLIP_UD, ROT180, answer

    fake_model.on("expert", lambda messages, request: answer(ROT180 if request.sample == 2 else FLIP_UD),
                  with_request=True)
    runner, summary = solve_run(tmp_path, fake_llm, solver="expert-agents", task_ids=["6150a2bd"], selection="none",
                                threads=3, retries=0)
    calls = fake_model.calls_for("expert")
    assert sorted(c.sample for c in calls) == [0, 1, 2] and len({c.messages[1]["content"] for c in calls}) == 1
    (event,) = [e for e in runner.rundir.events() if e["type"] == "task"]
    assert [[s["sample"] for s in t["steps"]] for t in event["threads"]] == [[0], [1], [2]]
    assert [t["steps"][0]["error"] is None for t in event["threads"]] == [False, False, True]
    assert summary["oracle2"] == 100.0
    assert summary["table4"]["per_thread"][0] == pytest.approx((0.0, 0.0, 100.0))     # per thread, depth 0


def test_reselect_on_retry_selects_again_with_the_feedback_and_the_retry_shows_it(tmp_path, fake_model, fake_llm):
    from benchmarks.synthetic import synthetic_concepts

    memory = Memory(str(tmp_path / "memory.db"))
    concepts = synthetic_concepts(12)
    memory.merge_many([(c, None) for c in concepts], actor="t")
    first, second = concepts[2]["name"], concepts[9]["name"]

    def choose(messages):
        again = "A first try failed" in messages[0]["content"]
        return f"```yaml\n- {second if again else first}\n```"

    fake_model.on("select_ps", choose)
    fake_model.on("solve", lambda messages: WRONG)
    runner, summary = solve_run(tmp_path, fake_llm, task_ids=[P1], threads=2, retries=1, reselect_on_retry=True)
    selects = fake_model.calls_for("select_ps")
    assert len(selects) == 4                                 # per thread: the first selection, one before the retry
    again = [c for c in selects if "A first try failed" in c.prompt]
    assert len(again) == 2 and all("wrong" in c.prompt.lower() for c in again)    # the failed try's feedback
    retries = [c for c in fake_model.calls_for("solve") if sum(m["role"] == "assistant" for m in c.messages) == 1]
    assert len(retries) == 2
    for call in retries:
        last = call.messages[-1]["content"]
        assert last.startswith("Concepts from memory chosen again") and f"concept: {second}" in last
    records = runner.rundir.selections()
    assert sorted((r["thread"], r["retry"], tuple(r["concepts"])) for r in records) == [
        (0, 0, (first,)), (0, 1, (second,)), (1, 0, (first,)), (1, 1, (second,))]
    (event,) = [e for e in runner.rundir.events() if e["type"] == "task"]
    assert [t["reselections"][0]["retry"] for t in event["threads"]] == [1, 1]


def test_oe_reselection_shows_the_feedback_with_the_caption(tmp_path, fake_model, fake_llm):
    from arcmemo.methods import select
    from arcmemo.selection import SelectionSettings

    memory = Memory(str(tmp_path / "m.db"))
    memory.merge_many([({"format": "oe", "situation": f"situation {i}", "suggestion": f"do {i}"}, None)
                       for i in range(3)], actor="t")
    fake_model.on("caption", lambda messages: "<observations>\n- a\n</observations>\n<speculation>\n- b\n"
                                              "</speculation>")
    fake_model.on("select_oe", lambda messages: "```yaml\n- 2\n```")
    task = load_tasks("training", ids=[P1]).by_id(P1)
    first = select(task, memory, SelectionSettings(mode="oe"), fake_llm)
    again = select(task, memory, SelectionSettings(mode="oe", retry_feedback="Example 1: wrong output"), fake_llm)
    assert first.concept_ids == again.concept_ids and len(first.concept_ids) == 1
    before, after = (c.prompt for c in fake_model.calls_for("select_oe"))
    assert "A first try failed" not in before
    assert "A first try failed" in after and "Example 1: wrong output" in after
