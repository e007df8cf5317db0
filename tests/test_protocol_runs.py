"""Each protocol choice in a real run: the loopback stub (or the scripted fake model) plays the
model, and the run's requests, call log and records show the choice at work."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from llm_stub import StubServer
from runner_support import seed_code
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


# per thread, what it answers at each retry depth
PLAN = {0: ["train_only", "right"],        # right on train, wrong on test, then right
        1: ["test_only", "wrong", "wrong"],  # wrong on train, right on test
        2: ["right"]}
ANSWERS = {"train_only": lambda: train_only(P1), "test_only": lambda: only(P1, {0}),
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
    runs = tmp_path / "runs"
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
def endpoint(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    from arcmemo.memory.store import Memory

    Memory(str(tmp_path / "memory.db")).close()


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
    assert config["protocol"]["test_informed"] is True        # write_when=strict is still its choice


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
