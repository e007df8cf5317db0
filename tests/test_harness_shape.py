"""Every submission file a run writes validates against the ARC Prize harness's schema
(tests/harness_schema.py), with real values read back from the call log."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from harness_schema import validate_file
from runner_support import TASK_IDS, script_run

from arcmemo.core.tasks import load_tasks
from arcmemo.llm.catalog import load_catalog
from arcmemo.llm.log import CallLog
from arcmemo.memory.store import Memory
from arcmemo.run.config import RunConfig
from arcmemo.run.loop import new_runner
from arcmemo.run.records.submission_metadata import provider_of, submission_metadata
from arcmemo.sandbox import get_sandbox
from arcmemo.scoring import CallUse, attempt_metadata, read_submission, write_submission
from arcmemo.solverkit import load_solver

PRICE = "prices:\n  fake: {input: 2.0, output: 8.0}\n"


@pytest.fixture
def priced_llm(fake_llm, isolated_home):
    (isolated_home / "models.yaml").write_text(PRICE)
    fake_llm.catalog = load_catalog()   # the fixture's client was made before the price existed
    return fake_llm


def test_a_runs_submission_files_pass_the_harness_schema_with_real_values(tmp_path, fake_model, priced_llm):
    ids, unsolved = TASK_IDS[:3], TASK_IDS[2]
    script_run(fake_model, task_ids=ids, unsolved={unsolved})
    config = RunConfig(source="training", task_ids=ids, retries=1, selection="ps")
    runner = new_runner(config, memory=Memory(str(tmp_path / "memory.db")), make_llm=lambda run_id: priced_llm,
                        sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                        runs_root=str(tmp_path / "runs"))
    runner.run()
    tasks = load_tasks("training", ids=ids)
    log = CallLog()
    for task in tasks:
        data = json.loads((runner.rundir.submissions / f"{task.id}.json").read_text())
        results = validate_file(data, len(task.test_inputs))
        first, second = results.test_pairs[0].attempts
        assert second is None and data[0]["attempt_2"] is None     # one distinct grid: the harness's null
        meta = first.metadata
        calls = [c for c in log.list(task_id=task.id, limit=None)]
        solves = sorted((c for c in calls if c.step == "solve"), key=lambda c: c.id)
        # one thread: every call of the task (selection and each solve round) is its usage
        assert meta.usage.prompt_tokens == sum(c.prompt_tokens for c in calls) > 0
        assert meta.usage.completion_tokens == sum(c.completion_tokens for c in calls) > 0
        assert meta.cost.total_cost == pytest.approx(sum(c.cost_usd for c in calls)) and meta.cost.total_cost > 0
        assert meta.cost.completion_cost == pytest.approx(sum(c.completion_tokens for c in calls) * 8.0 / 1e6)
        assert (meta.model, meta.provider, meta.task_id, meta.test_id) == ("fake", "fake", task.id,
                                                                            runner.rundir.run_id)
        assert meta.choices[0].message.role == "assistant"
        assert meta.choices[0].message.content == solves[-1].response_text   # the answer that made the grid
        assert meta.kwargs == solves[-1].request["params"]
        assert meta.start_timestamp.timestamp() == pytest.approx(min(c.created_at - c.latency_s for c in calls))
        assert meta.end_timestamp.timestamp() == pytest.approx(solves[-1].created_at)
        extra = data[0]["attempt_1"]["metadata"]
        assert extra["run_id"] == runner.rundir.run_id and extra["attempt"] == 1 and extra["thread"] == 0
        # the unsolved task's retry answered the same wrong grid: the earlier step ranks first
        assert extra["retry_depth"] == 0 and len(solves) == (2 if task.id == unsolved else 1)
        if task.id != unsolved:
            assert read_submission(runner.rundir.submissions / f"{task.id}.json") == [[tasks.answers[task.id]
                                                                                      .test_outputs[0]]]


def _record(log, **fields):
    base = dict(run_id="r1", task_id="t1", role="solver", step="solve", sample=0, model="fake",
                endpoint="https://api.example.com:8443/v1", key="k", request={"params": {"temperature": 0.5}},
                response_text="answer", prompt_tokens=0, completion_tokens=0, reasoning_tokens=0,
                latency_s=1.0, cost_usd=0.0)
    base.update(fields)
    return log.record(**base)


G1, G2 = ((1,),), ((2,),)


def test_each_attempt_counts_its_own_thread_and_a_share_of_selection(tmp_path, isolated_home):
    (isolated_home / "models.yaml").write_text(PRICE)
    log = CallLog(tmp_path / "calls.db")
    _record(log, task_id="other", prompt_tokens=999)                          # another task: not counted
    _record(log, role="select", step="select_ps", prompt_tokens=101, completion_tokens=11, cost_usd=0.3)
    _record(log, sample=0, response_text="thread 0", prompt_tokens=1000, completion_tokens=100,
            reasoning_tokens=40, cost_usd=0.0028)
    _record(log, sample=1, response_text="thread 1 first", prompt_tokens=2000, completion_tokens=200,
            cost_usd=0.0056)
    _record(log, sample=1, response_text="thread 1 retry", prompt_tokens=3000, completion_tokens=300,
            cost_usd=0.0, request={"params": {"temperature": 0.9}})   # a cache hit: tokens kept, cost 0
    llm = SimpleNamespace(call_log=log, run_id="r1", catalog=load_catalog(), model_for=lambda role: "fake",
                          settings=SimpleNamespace(base_url=None))
    attempts = [SimpleNamespace(sample=0, round=0, raw="thread 0", passed_train=False, train_cell_accuracy=0.5,
                                test_outputs=[G2]),
                SimpleNamespace(sample=1, round=0, raw="thread 1 first", passed_train=False,
                                train_cell_accuracy=0.1, test_outputs=[None]),
                SimpleNamespace(sample=1, round=1, raw="thread 1 retry", passed_train=True,
                                train_cell_accuracy=1.0, test_outputs=[G1])]
    metadata = submission_metadata(llm, "t1", 1, attempts, [[G1, G2]], started=0.0, extra={"run_id": "r1"})
    (one, two), = metadata
    # attempt_1 = G1 from thread 1 (its retry): thread 1's two calls + half the selection call
    # (101 and 11 tokens split 51/50 and 6/5: thread 0 is share 0 and takes the odd one)
    assert one["usage"]["prompt_tokens"] == 2000 + 3000 + 50 and one["usage"]["completion_tokens"] == 500 + 5
    assert two["usage"]["prompt_tokens"] == 1000 + 51 and two["usage"]["completion_tokens"] == 100 + 6
    assert two["usage"]["completion_tokens_details"] == {"reasoning_tokens": 40, "accepted_prediction_tokens": 0,
                                                         "rejected_prediction_tokens": 0}
    # cost: 8 USD per million output tokens gives the completion part; the rest is the prompt's
    assert one["cost"]["completion_cost"] == pytest.approx(200 * 8e-6 + 11 * 8e-6 / 2)
    assert one["cost"]["total_cost"] == pytest.approx(0.0056 + 0.3 / 2)
    assert two["cost"]["total_cost"] == pytest.approx(0.0028 + 0.3 / 2)
    assert one["choices"][0]["message"]["content"] == "thread 1 retry" and one["kwargs"] == {"temperature": 0.9}
    assert (one["thread"], one["retry_depth"], one["calls"], two["thread"]) == (1, 1, 2, 0)
    assert one["provider"] == "api.example.com:8443" and one["pair_index"] == 0
    path = write_submission(tmp_path / "subs", "t1", [[G1, G2]], metadata)
    validate_file(json.loads(path.read_text()), 1)


def test_provider_names():
    assert provider_of("https://user:pw@api.openai.com/v1") == "api.openai.com"
    assert provider_of("local://local/abc123") == "local" and provider_of("fake://fake") == "fake"
    assert provider_of(None) == "unknown"


def test_write_submission_refuses_metadata_the_harness_would_reject(tmp_path):
    with pytest.raises(ValueError, match="t test 0 attempt 1: metadata lacks model, provider"):
        write_submission(tmp_path, "t", [[G1]], [[{"usage": {}}]])
    whole = attempt_metadata(task_id="t", pair_index=0, answer=None, thread=(),
                             fallback=CallUse(model="m", provider="p", started=0.0, ended=1.0))
    with pytest.raises(ValueError, match="t test 0 attempt 2: no metadata"):
        write_submission(tmp_path, "t", [[G1, G2]], [[whole]])
    assert list(tmp_path.iterdir()) == []
