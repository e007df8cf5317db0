"""The solver plugin contract: discovery through entry points (including a third-party
plugin arcmemo knows nothing about), `arcmemo solvers list`, ranking and top-2 selection."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner
from plugin_support import install_fake_distribution as install_distribution

from arcmemo.cli import cli
from arcmemo.core.tasks import load_tasks
from arcmemo.llm.client import Usage
from arcmemo.solverkit import (
    Attempt,
    Hint,
    PluginError,
    SolveContext,
    SolveResult,
    SolverSettings,
    Trace,
    available_solvers,
    load_solver,
    rank_attempts,
    select_predictions,
    usage_of,
)

PLUGIN_SOURCE = textwrap.dedent('''
    """A throwaway third-party solver: predicts the test input unchanged."""
    from arcmemo.llm.client import Usage
    from arcmemo.solverkit import Attempt, SolveResult, Trace, select_predictions


    class EchoSolver:
        name = "echo"

        def solve(self, task, hint, ctx):
            attempt = Attempt(sample=0, round=0, code="def transform(grid):\\n    return grid\\n",
                              raw="", train_correct=[p.input == p.output for p in task.train],
                              train_cell_accuracy=0.0, test_outputs=list(task.test_inputs))
            return SolveResult([attempt], select_predictions([attempt], len(task.test_inputs)),
                               Trace(final_code=attempt.code), Usage(), solver=self.name)


    INSTANCE = EchoSolver()
''')


def install_fake_distribution(root, dist: str, package: str | None, entry_points: dict[str, str]):
    install_distribution(root, dist, package, entry_points, group="arcmemo.solvers", source=PLUGIN_SOURCE)


@pytest.fixture
def third_party(tmp_path, monkeypatch):
    install_fake_distribution(tmp_path, "echo_solver_plugin", "echo_solver_plugin",
                              {"echo": "echo_solver_plugin:EchoSolver",
                               "echo-instance": "echo_solver_plugin:INSTANCE"})
    install_fake_distribution(tmp_path, "broken_solver_plugin", None,
                              {"broken": "no_such_module_for_arcmemo_tests:Solver"})
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    sys.modules.pop("echo_solver_plugin", None)


def test_builtin_solvers_are_found_through_entry_points():
    solvers = available_solvers()
    assert solvers["program-synthesis"].value == "arcmemo_program_synthesis:ProgramSynthesisSolver"
    assert "expert-agents" in solvers
    assert list(solvers) == sorted(solvers)


def test_unknown_solver_names_the_available_ones():
    with pytest.raises(PluginError, match=r"no solver named 'nope'.*available: .*program-synthesis"):
        load_solver("nope")


def test_third_party_plugin_is_found_and_solves(third_party):
    assert {"echo", "echo-instance", "broken"} <= set(available_solvers())
    solver = load_solver("echo")
    assert type(solver).__name__ == "EchoSolver" and solver.name == "echo"
    assert load_solver("echo-instance").name == "echo"           # a ready instance works too
    task = load_tasks("training", ids=["6150a2bd"]).by_id("6150a2bd")
    ctx = SolveContext(llm=None, sandbox=None, settings=SolverSettings())
    result = solver.solve(task, Hint.none(), ctx)
    assert result.predictions == [[task.test_inputs[0]]]
    assert not result.passed_train


def test_broken_plugin_fails_with_a_clear_error(third_party):
    with pytest.raises(PluginError, match=r"solver 'broken' .*failed to import: ModuleNotFoundError"):
        load_solver("broken")


def test_cli_lists_third_party_and_broken_plugins(third_party):
    result = CliRunner().invoke(cli, ["solvers", "list"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    echo = next(line for line in lines if line.startswith("echo "))
    assert "echo_solver_plugin:EchoSolver" in echo and "(echo_solver_plugin 0.1)" in echo
    assert "not loadable" not in echo
    program = next(line for line in lines if line.startswith("program-synthesis "))
    assert "not loadable" not in program
    broken = next(line for line in lines if line.startswith("broken "))
    assert "not loadable" in broken and "ModuleNotFoundError" in broken

    as_json = CliRunner().invoke(cli, ["solvers", "list", "--json"])
    rows = {r["name"]: r for r in json.loads(as_json.output)}
    assert rows["echo"]["status"] == "found" and rows["broken"]["status"] == "error"     # nothing imported
    assert rows["program-synthesis"]["distribution"] == "arcmemo"
    checked = CliRunner().invoke(cli, ["solvers", "list", "--json", "--check"])
    rows = {r["name"]: r for r in json.loads(checked.output)}
    assert rows["echo"]["status"] == "ok" and rows["broken"]["status"] == "error"        # each one imported
    assert "ModuleNotFoundError" in rows["broken"]["error"]


def test_cli_in_a_fresh_process_sees_a_plugin_on_the_path(third_party):
    env = dict(os.environ, PYTHONPATH=str(third_party))
    out = subprocess.run([sys.executable, "-c", "from arcmemo.cli import cli; cli()", "solvers", "list"],
                         env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "echo_solver_plugin:EchoSolver" in out.stdout


def attempt(passed: bool, acc: float, outputs, sample=0):
    train = [True, True] if passed else [True, False]
    return Attempt(sample=sample, round=0, code="x", raw="", train_correct=train,
                   train_cell_accuracy=acc, test_outputs=list(outputs))


A, B, C = ((1,),), ((2,),), ((3,),)


def test_passed_train_needs_every_pair():
    assert not Attempt(0, 0, None, "", train_correct=[]).passed_train
    assert not attempt(False, 0.9, []).passed_train and attempt(True, 1.0, []).passed_train


def test_ranking_puts_passing_first_then_accuracy_then_order():
    attempts = [attempt(False, 0.9, [A]), attempt(True, 1.0, [B]), attempt(False, 0.95, [C]),
                attempt(True, 1.0, [C])]
    assert rank_attempts(attempts) == [1, 3, 2, 0]


def test_top2_distinct_predictions_per_test_input():
    attempts = [attempt(False, 0.5, [A, A]), attempt(True, 1.0, [B, None]),
                attempt(True, 1.0, [B, C]), attempt(False, 0.7, [C, B])]
    preds = select_predictions(attempts, n_tests=2)
    assert preds[0] == [B, C]          # B twice from passing attempts; C best of the rest
    assert preds[1] == [C, B]          # None skipped; C from a passing attempt beats B (0.7)


def test_votes_break_ties_between_equally_ranked_predictions():
    attempts = [attempt(True, 1.0, [A]), attempt(True, 1.0, [B]), attempt(True, 1.0, [B])]
    assert select_predictions(attempts, 1) == [[B, A]]
    assert select_predictions(attempts, 1, k=1) == [[B]]


def test_attempts_with_all_test_outputs_rank_above_equal_ones_without():
    attempts = [attempt(True, 1.0, [None]), attempt(True, 1.0, [A])]
    assert rank_attempts(attempts) == [1, 0]


def test_no_outputs_means_empty_prediction_lists():
    assert select_predictions([attempt(False, 0.0, [None])], 1) == [[]]
    assert select_predictions([], 2) == [[], []]


class _C:
    def __init__(self, cached=False):
        self.cached, self.prompt_tokens, self.completion_tokens = cached, 10, 5
        self.reasoning_tokens, self.cost_usd = 2, 0.01


def test_usage_of_sums_completions():
    total = usage_of([_C(), _C(), _C(cached=True)])
    assert (total.calls, total.cache_hits, total.prompt_tokens, total.completion_tokens) == (3, 1, 20, 10)
    assert total.cost_usd == pytest.approx(0.02)
    assert usage_of([]) == Usage()


def test_solve_result_serialises_to_json():
    result = SolveResult(attempts=[attempt(True, 1.0, [A, None])], predictions=[[A], []],
                         trace=Trace(reasoning="r", final_code="x", passing_attempt=0),
                         usage=Usage(calls=1), solver="s")
    data = json.loads(json.dumps(result.to_dict()))
    assert data["passed_train"] is True and data["predictions"] == [[[[1]]], []]
    assert data["attempts"][0]["test_outputs"] == [[[1]], None]
    assert data["attempts"][0]["passed_train"] is True
    assert data["usage"]["calls"] == 1 and data["trace"]["passing_attempt"] == 0
