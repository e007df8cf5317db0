"""What a planned run will cost (run/progress/cost.py): its calls counted from its shape, dollars at
the catalog's prices, typical below the bound, and a model without a price named."""

from __future__ import annotations

import dataclasses

import pytest

from arcmemo.core.tasks import load_tasks
from arcmemo.llm.client import LLMSettings
from arcmemo.run.config import RunConfig
from arcmemo.run.progress.cost import LIMIT_ANSWER, retry_rates, run_cost

TASKS = load_tasks("training", ids=["0d3d703e", "1e0a9b12"]).tasks
O4 = LLMSettings(solver_model="o4-mini", select_model="o4-mini", aux_model="gpt-4.1", api_key="sk-test")


def test_calls_follow_the_runs_shape_and_selection():
    base = RunConfig(selection="none", threads=3, retries=2)
    cost = run_cost(base, O4, TASKS)
    assert cost.calls == 2 * 3 * 3 and 0 < cost.about < cost.most and not cost.unpriced
    ps = run_cost(dataclasses.replace(base, selection="ps"), O4, TASKS)
    assert ps.calls == cost.calls + 2 * 3 and ps.about > cost.about             # a selection per thread
    shared = run_cost(dataclasses.replace(base, selection="ps", protocol="released-code"), O4, TASKS)
    assert shared.calls == cost.calls + 2                                       # once per puzzle
    doubled = run_cost(dataclasses.replace(base, threads=6), O4, TASKS)
    assert doubled.calls == 2 * cost.calls and doubled.most == pytest.approx(2 * cost.most)


def test_the_bound_takes_every_answer_at_its_limit_and_typical_retries_at_the_papers_rates():
    one = RunConfig(selection="none", threads=1, retries=0, max_tokens=2000)
    bound = run_cost(one, O4, TASKS[:1])
    wider = run_cost(dataclasses.replace(one, max_tokens=4000), O4, TASKS[:1])
    assert wider.most - bound.most == pytest.approx(2000 * 4.4 / 1e6)          # o4-mini: $4.40 per M out
    unlimited = run_cost(dataclasses.replace(one, max_tokens=None), O4, TASKS[:1])
    assert unlimited.most - bound.most == pytest.approx((LIMIT_ANSWER - 2000) * 4.4 / 1e6)
    assert retry_rates()[0] == pytest.approx(1 - 0.4633)                       # the paper's baseline, depth 0
    retried = run_cost(dataclasses.replace(one, retries=1), O4, TASKS[:1])
    rate, answer = retry_rates()[0], 2000 * 4.4 / 1e6            # a retried thread: its answer, its longer prompt
    assert rate * answer < retried.about - bound.about < rate * (answer + 5000 * 1.1 / 1e6)


def test_a_model_without_a_price_counts_nothing_and_is_named():
    cost = run_cost(RunConfig(selection="none"), LLMSettings(solver_model="my-model", base_url="http://x/v1",
                                                             api_key="k"), TASKS)
    assert cost.most == 0 and cost.unpriced == {"my-model"} and "no price known for my-model" in cost.text()
