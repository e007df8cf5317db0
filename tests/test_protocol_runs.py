"""Each protocol choice in a real run: the loopback stub (or the scripted fake model) plays the
model, and the run's requests, call log and records show the choice at work."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from llm_stub import StubServer
from runner_support import seed_code, task_of
from test_paper_protocol import WRONG, only

from arcmemo.cli import cli
from arcmemo.core.tasks import load_tasks
from arcmemo.llm.log import CallLog
from arcmemo.run.protocol import test_informed as is_test_informed

P1 = "0d3d703e"
SEED = 100          # --model-seed: a solver request's seed is SEED + its sample (here: its thread)


def train_only(task_id: str) -> str:
    """A program that gives every train output (it knows them) and [[0]] on anything else."""
    task = load_tasks("training", ids=[task_id]).by_id(task_id)
    known = {repr([list(r) for r in p.input]): [list(r) for r in p.output] for p in task.train}
    return (f"```python\nKNOWN = {known!r}\n\ndef transform(grid):\n"
            "    return KNOWN.get(repr([[int(v) for v in r] for r in grid]), [[0]])\n```")


def as_array(answer: str) -> str:
    """The answer's program returning its grid as a numpy array, which every answer reading takes
    (the released code's takes nothing else)."""
    return answer.replace("```python\n", "```python\nimport numpy as np\n", 1).replace(
        "    return KNOWN.get(", "    return np.array(KNOWN.get(").replace("[[0]])\n```", "[[0]]))\n```")


# per thread, what it answers at each retry depth
PLAN = {0: ["train_only", "right"],        # right on train, wrong on test, then right
        1: ["test_only", "wrong", "wrong"],  # wrong on train, right on test
        2: ["right"]}
ANSWERS = {"train_only": lambda: as_array(train_only(P1)), "test_only": lambda: as_array(only(P1, {0})),
           "right": lambda: f"```python\n{seed_code(P1)}\n```", "wrong": lambda: WRONG}


def depth_of(messages: list[dict]) -> int:
    """The retry depth of a solver request: its last-attempt number, or the answers in its conversation."""
    said = re.findall(r"\(attempt (\d+)\)", messages[-1]["content"])
    return int(said[-1]) if said else sum(m["role"] == "assistant" for m in messages)


def play(body: dict) -> str:
    thread, depth = body["seed"] - SEED, depth_of(body["messages"])
    return ANSWERS[PLAN[thread][min(depth, len(PLAN[thread]) - 1)]]()


def solve(tmp_path, *args) -> tuple[dict, list[dict], dict]:
    """`arcmemo solve` on P1 against the stub: the run's config, the requests, its task event."""
    from arcmemo.memory.store import Memory

    runs = tmp_path / "runs"
    tmp_path.mkdir(exist_ok=True)
    Memory(str(tmp_path / "memory.db")).close()
    with StubServer(answer=play) as stub:
        result = CliRunner().invoke(cli, ["solve", "--tasks", P1, "--selection", "none", "--threads", "3",
                                          "--retries", "2", "--model-seed", str(SEED), "-q",
                                          "--base-url", stub.base_url, "--solver-model", "stub-model",
                                          "--db", str(tmp_path / "memory.db"), "--run-dir", str(runs), *args])
        assert result.exit_code == 0, result.output
        requests = list(stub.requests)
    (run,) = runs.iterdir()
    (event,) = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()
                if json.loads(line)["type"] == "task"]
    return json.loads((run / "config.json").read_text()), requests, event


@pytest.fixture
def endpoint(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def steps(event: dict) -> list[int]:
    return [len(t["steps"]) for t in event["threads"]]


def test_a_released_code_run_retries_on_test_results_and_is_marked_test_informed(tmp_path, endpoint):
    config, requests, event = solve(tmp_path, "--protocol", "released-code")
    # thread 0 passed train but was wrong on test: retried; thread 1 failed train but was right on test: not
    assert steps(event) == [2, 1, 1]
    assert config["protocol"]["name"] == "released-code" and config["protocol"]["test_informed"] is True
    assert is_test_informed(config) and "protocol" not in config["settings"]
    # the retry is the released code's form: the opening prompt again, the last answer, no conversation
    (retry,) = [r for r in requests if depth_of(r["messages"]) == 1]
    assert [m["role"] for m in retry["messages"]] == ["system", "user"]
    shown = retry["messages"][-1]["content"]
    assert "(attempt 1)" in shown and "KNOWN = " in shown and "gave every example's expected output" in shown
    expected = load_tasks("training", ids=[P1]).answers_for_scoring(True)[P1].test_outputs[0]
    assert "".join(map(str, expected[0])) not in shown.split("### Your last answer")[1]   # no test output shown


def test_the_clean_protocol_retries_on_train_pairs_on_the_same_script(tmp_path, endpoint):
    config, requests, event = solve(tmp_path)
    assert steps(event) == [1, 3, 1]
    assert config["protocol"]["name"] == "arcmemo" and not is_test_informed(config)
    retries = [r for r in requests if depth_of(r["messages"]) > 0]
    assert retries and all(r["messages"][-2]["role"] == "assistant" for r in retries)   # a conversation


def test_one_flag_makes_the_clean_protocol_test_informed_and_says_so_in_its_name(tmp_path, endpoint):
    config, _, event = solve(tmp_path, "--retry-when", "test-fails")
    assert steps(event) == [2, 1, 1]
    assert config["protocol"]["name"] == "arcmemo+retry_when=test-fails" and is_test_informed(config)
    assert config["protocol"]["feedback"] == "conversation"


def test_released_code_with_train_retries_retries_as_arcmemo_does(tmp_path, endpoint):
    config, _, event = solve(tmp_path, "--protocol", "released-code", "--retry-when", "train-fails")
    assert steps(event) == [1, 3, 1]
    assert config["protocol"]["name"] == "released-code+retry_when=train-fails"
    # its write filter is test correctness, but a run without --continual writes nothing
    assert config["protocol"]["test_informed"] is False and config["protocol"]["test_informed_by"] == []


def test_a_selection_made_once_is_shared_by_three_threads_one_select_call_per_puzzle(tmp_path, fake_model,
                                                                                     fake_llm):
    from runner_support import LEARNED, TASK_IDS, script_run
    from test_paper_protocol import solve_run

    from arcmemo.memory.store import Memory

    with Memory(str(tmp_path / "memory.db")) as memory:
        memory.merge({"format": "ps", "name": LEARNED, "kind": "routine", "routine_subtype": "grid manipulation",
                      "description": "map colours through a table", "used_in": ["x"]}, source="import", actor="t")
    script_run(fake_model)
    tasks = TASK_IDS[:2]
    runner, summary = solve_run(tmp_path, fake_llm, task_ids=tasks, threads=3, retries=0, helpers=False,
                                protocol="released-code")
    log = CallLog(fake_llm.settings.log_path or None)
    selects = [c for c in log.list(step="select_ps")]
    assert sorted(c.task_id for c in selects) == sorted(tasks)              # one select call per puzzle
    solves = [c for c in log.list(step="solve")]
    assert len(solves) == 6                                                 # each thread solved
    records = runner.rundir.selections()
    assert [(r["task_id"], r["thread"], r["shared_by_threads"]) for r in records] == [(t, 0, 3) for t in tasks]
    events = [e for e in runner.rundir.events() if e["type"] == "task"]
    assert all(len({tuple(t["selected"]) for t in e["threads"]}) == 1 and e["threads"][0]["selected"]
               for e in events)
    assert summary["tasks"] == 2
    # without select_once each thread selects for itself
    solve_run(tmp_path, fake_llm, task_ids=[TASK_IDS[2]], threads=3, retries=0, helpers=False)
    assert len([c for c in log.list(step="select_ps") if c.task_id == TASK_IDS[2]]) == 3


def task_events(runner) -> list[dict]:
    return [e for e in runner.rundir.events() if e["type"] == "task"]


def test_per_puzzle_oe_caption_is_one_call_with_one_picture_of_the_whole_puzzle(tmp_path):
    from llm_stub import stub_llm
    from test_paper_protocol import solve_run

    from arcmemo.memory.store import Memory

    with Memory(str(tmp_path / "memory.db")) as memory:
        memory.add({"format": "oe", "situation": "Colours change.", "suggestion": "Find the colour table."},
                   source="import", actor="t")

    def answer(body):
        text = json.dumps(body["messages"])
        if "<observations>" in text:
            return "<observations>\n- colours swap\n</observations>\n<speculation>\n- a table\n</speculation>"
        if "lessons" in text.lower() and "```python" not in text:
            return "```yaml\n- 1\n```"
        return WRONG

    with StubServer(answer=answer) as stub:
        llm = stub_llm(stub.base_url, aux_model="gpt-4.1")       # a model that reads pictures
        try:
            runner, _ = solve_run(tmp_path, llm, task_ids=[P1], selection="oe", threads=3, retries=0,
                                  protocol={"name": "arcmemo", "oe_caption": "per-puzzle"})
        finally:
            llm.close()
        captions = [r for r in stub.requests if "<observations>" in json.dumps(r["messages"])]
    assert len(captions) == 1                                    # once for the puzzle's three threads
    parts = captions[0]["messages"][0]["content"]
    assert sum(p["type"] == "image_url" for p in parts) == 1     # one picture of the whole puzzle
    assert "one picture" in parts[0]["text"]
    (event,) = task_events(runner)
    assert all(t["selected"] for t in event["threads"])          # every thread picked from the one caption


# -- continual order and the write filter ----------------------------------------------------------------

def scripted_depths(fake_model, solved_at: dict[str, int | None]):
    """The fake model solves task T at retry depth solved_at[T] (None: never), and writes memory."""
    from runner_support import TASK_IDS, script_run

    script_run(fake_model)

    def answer(messages):
        task_id = task_of(messages, TASK_IDS)
        depth = depth_of(messages)
        if solved_at.get(task_id) is not None and depth >= solved_at[task_id]:
            return f"```python\n{seed_code(task_id)}\n```"
        return WRONG

    fake_model.on("solve", answer)


def order_of(runner) -> list[str]:
    """The run's event log as `task:T@pass` and `write:T@pass`."""
    return [f"{e['type']}:{e['task_id']}@{e['pass_index']}" for e in runner.rundir.events()
            if e["type"] in ("task", "write")]


def continual_run(tmp_path, fake_llm, **settings):
    from runner_support import TASK_IDS
    from test_paper_protocol import solve_run

    from arcmemo.memory.store import Memory

    Memory(str(tmp_path / "memory.db")).close()
    return solve_run(tmp_path, fake_llm, task_ids=TASK_IDS[:4], selection="all", continual=True, k=2,
                     retries=2, helpers=False, **settings)


@pytest.mark.parametrize("protocol", [{"name": "arcmemo", "continual_order": "pass"}, "released-code"])
def test_pass_order_runs_each_retry_depth_as_a_pass_writing_at_each_blocks_end(tmp_path, fake_model, fake_llm,
                                                                                protocol):
    from runner_support import TASK_IDS

    a, b, c, d = TASK_IDS[:4]
    scripted_depths(fake_model, {a: 0, b: 1, c: 2, d: None})
    runner, summary = continual_run(tmp_path, fake_llm, protocol=protocol)
    assert order_of(runner) == [
        f"task:{a}@1", f"task:{b}@1", f"write:{a}@1", f"task:{c}@1", f"task:{d}@1",     # depth 0 of every task
        f"task:{b}@2", f"task:{c}@2", f"write:{b}@2", f"task:{d}@2",                    # depth 1 of the rest
        f"task:{c}@3", f"task:{d}@3", f"write:{c}@3"]                                   # depth 2
    assert sorted(summary["solved"]) == sorted([a, b, c])
    # each pass went on with the thread's own conversation: one more answer each, the same sample
    calls = [call for call in fake_model.calls_for("solve") if task_of(call.messages, TASK_IDS) == c]
    assert [depth_of(call.messages) for call in calls] == [0, 1, 2]
    assert len({call.sample for call in calls}) == 1
    if protocol == "released-code":         # the opening prompt again, with the last answer after it
        assert calls[2].messages[-1]["content"].startswith(calls[0].messages[-1]["content"])
        assert "(attempt 2)" in calls[2].messages[-1]["content"] and len(calls[2].messages) == 2
    else:                                   # the conversation so far, one more exchange
        assert calls[2].messages[:4] == calls[1].messages[:4] and len(calls[2].messages) == 6
    # the latest event holds every step of the thread, so the Table 4 block reads depths 0..2
    events = {e["task_id"]: e for e in runner.rundir.events() if e["type"] == "task"}
    assert [s["round"] for s in events[c]["threads"][0]["steps"]] == [0, 1, 2]
    assert summary["table4"]["oracle"][0][0] == 25.0 and summary["table4"]["oracle"][2][0] == 75.0
    # pass p reached retry depth p - 1, and its scores are that depth's row of the table
    assert [p["headline"]["retry_depth"] for p in summary["passes"]] == [0, 1, 2]
    assert [p["headline"]["oracle"] for p in summary["passes"]] == [row[0] for row in summary["table4"]["oracle"]]


def test_task_order_does_a_tasks_retries_inside_its_block(tmp_path, fake_model, fake_llm):
    from runner_support import TASK_IDS

    a, b, c, d = TASK_IDS[:4]
    scripted_depths(fake_model, {a: 0, b: 1, c: 2, d: None})
    runner, _ = continual_run(tmp_path, fake_llm)
    assert order_of(runner) == [f"task:{a}@1", f"task:{b}@1", f"write:{a}@1", f"write:{b}@1",
                                f"task:{c}@1", f"task:{d}@1", f"write:{c}@1"]


def test_strict_writes_only_what_is_right_on_test_too(tmp_path, fake_model, fake_llm):
    from runner_support import TASK_IDS, script_run
    from test_paper_protocol import solve_run

    from arcmemo.memory.store import Memory

    a, b = TASK_IDS[:2]
    script_run(fake_model)
    fake_model.on("solve", lambda messages: (train_only(b) if task_of(messages, TASK_IDS) == b else
                                             f"```python\n{seed_code(a)}\n```"))
    orders = {}
    for name, protocol in (("strict", {"name": "arcmemo", "write_when": "strict"}), ("clean", "arcmemo")):
        (tmp_path / name).mkdir()
        Memory(str(tmp_path / name / "memory.db")).close()
        runner, _ = solve_run(tmp_path / name, fake_llm, task_ids=[a, b], selection="all", continual=True, k=2,
                              retries=0, helpers=False, protocol=protocol)
        orders[name] = order_of(runner)
        config = json.loads((runner.rundir.path / "config.json").read_text())
        assert is_test_informed(config) is (name == "strict")
    assert orders["strict"] == [f"task:{a}@1", f"task:{b}@1", f"write:{a}@1"]     # b was right on train only
    assert orders["clean"] == [f"task:{a}@1", f"task:{b}@1", f"write:{a}@1", f"write:{b}@1"]


def test_a_pass_order_run_resumed_after_its_first_pass_goes_on_from_the_recorded_conversations(
        tmp_path, fake_model, fake_llm):
    from runner_support import TASK_IDS

    from arcmemo.memory.store import Memory
    from arcmemo.run.loop import resume_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    a, b, c, d = TASK_IDS[:4]
    scripted_depths(fake_model, {a: 0, b: 1, c: 2, d: None})
    runner, summary = continual_run(tmp_path, fake_llm, protocol={"name": "arcmemo", "continual_order": "pass"})
    whole = order_of(runner)
    # as if killed after the first pass: its events kept, the later passes' lost (their writes reached the store)
    events = runner.rundir.path / "events.jsonl"
    kept = [line for line in events.read_text().splitlines()
            if json.loads(line).get("pass_index", 1) == 1]
    events.write_text("\n".join(kept) + "\n")
    (runner.rundir.path / "summary.json").unlink()
    # a model that now answers every new question wrong: only the recorded conversations, asked again
    # word for word (and so answered from the call cache), can solve b and c
    fake_model.on("solve", lambda messages: WRONG)
    before = fake_llm.usage()
    with Memory(str(tmp_path / "memory.db")) as memory:
        again = resume_runner(runner.rundir, memory=memory, make_llm=lambda run_id: fake_llm,
                              sandbox=get_sandbox(), solver=load_solver("program-synthesis"))
        assert again.config.protocol == runner.config.protocol        # the recorded protocol, as it was
        resumed = again.run()
    after = fake_llm.usage()
    # one question per thread still retrying: b, c, d at depth 1, then c, d at depth 2; none asked afresh
    assert (after.calls - before.calls, after.cache_hits - before.cache_hits) == (5, 5)
    assert order_of(runner) == whole
    assert resumed["solved"] == summary["solved"] and resumed["table4"] == summary["table4"]


# -- the strict score's two variants -----------------------------------------------------------------------

# per thread: what it answers at each depth (a program right on the test input but wrong on the train pairs
# counts for the test-only strict score, not for the released driver's train-and-test one)
STRICT_PLAN = {0: ["test_only", "wrong", "wrong"], 1: ["wrong", "right"], 2: ["wrong", "wrong", "wrong"]}
# hand-computed, rows retry depth 0..2, columns k = 1..3: a puzzle is solved by m of 3 threads, and a
# k-subset holds one of them with probability 1 - C(3 - m, k) / C(3, k)
TEST_ANY_STEP = [[100 / 3, 200 / 3, 100.0], [200 / 3, 100.0, 100.0], [200 / 3, 100.0, 100.0]]
TRAIN_TEST_LAST_STEP = [[0.0, 0.0, 0.0], [100 / 3, 200 / 3, 100.0], [100 / 3, 200 / 3, 100.0]]


def test_both_strict_variants_are_computed_and_the_summary_names_the_headlined_one(tmp_path, fake_model,
                                                                                    fake_llm):
    from test_paper_protocol import solve_run

    def answer(messages, request):
        plan = STRICT_PLAN[request.sample]
        return ANSWERS[plan[min(depth_of(messages), len(plan) - 1)]]()

    fake_model.on("solve", answer, with_request=True)
    for protocol, headline in (("arcmemo", "test-any-step"),
                               ({"name": "arcmemo", "strict_variant": "train-test-last-step"},
                                "train-test-last-step")):
        (tmp_path / headline).mkdir()
        _, summary = solve_run(tmp_path / headline, fake_llm, task_ids=[P1], selection="none", threads=3,
                               retries=2, protocol=protocol)
        assert summary["strict_variant"] == headline
        for d in range(3):
            assert summary["table4"]["strict"][d] == pytest.approx(TEST_ANY_STEP[d]), d
            assert summary["strict_train_test_last_step"]["strict"][d] == pytest.approx(TRAIN_TEST_LAST_STEP[d]), d
        assert summary["strict_train_test_last_step"]["variant"] == "train-test-last-step"


@pytest.mark.parametrize("where", ["--kaggle", "--harness"])
def test_export_refuses_a_test_informed_run_unless_allowed(tmp_path, endpoint, where):
    solve(tmp_path, "--protocol", "released-code", "--retries", "1")
    (run,) = (tmp_path / "runs").iterdir()
    out = tmp_path / ("submission.json" if where == "--kaggle" else "harness")
    args = ["runs", "export", run.name, where, str(out), "--run-dir", str(tmp_path / "runs")]
    refused = CliRunner().invoke(cli, args)
    assert refused.exit_code == 1 and "is test-informed (protocol released-code" in refused.output, refused.output
    assert "--allow-test-informed" in refused.output and not out.exists()
    allowed = CliRunner().invoke(cli, [*args, "--allow-test-informed"])
    assert allowed.exit_code == 0 and out.exists(), allowed.output
    solve(tmp_path / "clean", "--retries", "1")
    (clean,) = (tmp_path / "clean" / "runs").iterdir()
    exported = CliRunner().invoke(cli, ["runs", "export", clean.name, where, str(tmp_path / "clean" / "out"),
                                        "--run-dir", str(tmp_path / "clean" / "runs")])
    assert exported.exit_code == 0, exported.output
