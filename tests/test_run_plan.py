"""A run's RunConfig is built from a command's options in one place (cli/runplan): every field
is reachable from solve's options (by its own name, or made from the options that say it), and
`select` takes every option of solve's that shapes a read, so it shows what a solve with the
same flags shows its first thread."""

from __future__ import annotations

import dataclasses
import json

import click
import pytest
from click.testing import CliRunner

from arcmemo.cli import cli
from arcmemo.cli.runplan import DERIVED, SAME, planned_run
from arcmemo.cli.select import select_command
from arcmemo.cli.solve import solve
from arcmemo.run.config import RunConfig

TASK = "007bbfb7"


def reach(tmp_path) -> dict[str, list[str]]:
    """For each RunConfig field, options of solve's that give it a value other than a plain solve's."""
    challenges, solutions = tmp_path / "challenges.json", tmp_path / "solutions.json"
    challenges.write_text(json.dumps({"t1": {"train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[1]]}]}}))
    solutions.write_text(json.dumps({"t1": [[[2]]]}))
    (tmp_path / "prompts").mkdir()
    return {
        "source": ["--split", "evaluation"], "task_ids": ["--tasks", TASK],
        "solutions": ["--tasks-from", str(challenges), "--solutions", str(solutions)], "score": ["--no-score"],
        "limit": ["--limit", "3"], "solver": ["--solver", "expert-agents"], "selection": ["--method", "oe"],
        "memory_format": ["--memory-format", "oe"], "top_k": ["--top-k", "3"], "expand": ["--expand"],
        "ps_caption": ["--caption"], "token_budget": ["--token-budget", "9000"], "hint_budget": ["--hint-budget", "900"],
        "attempts": ["--attempts", "2"], "retries": ["--retries", "0"], "max_tokens": ["--max-tokens", "100"],
        "temperature": ["--temperature", "0.5"], "reasoning_effort": ["--reasoning-effort", "low"],
        "passes": ["--passes", "2"], "continual": ["--continual"], "k": ["-k", "3"], "order": ["--order", "shuffled"],
        "seed": ["--seed", "5"], "budget_usd": ["--budget-usd", "2"], "model_seed": ["--model-seed", "7"],
        "repeat": ["--repeat", "1"], "helpers": ["--helpers", "off"], "max_helpers": ["--max-helpers", "1"],
        "probe_helpers": ["--no-probe-helpers"], "fits_as_answers": ["--fits-as-answers", "off"],
        "threads": ["--threads", "3"], "other_names": ["--no-other-names"],
        "reselect_on_retry": ["--reselect-on-retry"], "config_file": ["--config", "baseline"],
        "prompts_dir": ["--prompts", str(tmp_path / "prompts")], "grid_text": ["--grid-text", "numpy"],
        "protocol": ["--retry-when", "test-fails"], "method_options": ["--use-prior"],
        "consolidate_every": ["--continual", "--consolidate-every", "2"],
    }


def test_every_run_config_field_is_reachable_from_solves_options(tmp_path):
    fields = {f.name for f in dataclasses.fields(RunConfig)}
    options = {p.name for p in solve.params}
    assert set(SAME) | set(DERIVED) == fields and not set(SAME) & set(DERIVED)
    assert set(SAME) <= options                     # taken as they are: each an option of the same name
    ways = reach(tmp_path)
    assert set(ways) == fields, "a new RunConfig field: add the option that sets it here (and to cli/runplan/)"
    plain = planned_run([]).config
    for field, args in ways.items():
        assert getattr(planned_run(args).config, field) != getattr(plain, field), (field, args)


def test_select_takes_every_option_of_solves_that_shapes_a_read():
    from arcmemo.cli.runplan.options import HEADINGS

    read = {p.name for option, is_read in (o for options in HEADINGS.values() for o in options) if is_read
            for p in getattr(option(lambda: None), "__click_params__", [])}
    own = {"task_ref", "record", "run_id", "show_reasoning", "as_json", "help"}
    taken = {p.name for p in select_command.params}
    assert read | {"method"} <= taken and taken - own <= {p.name for p in solve.params}
    assert {"selector_view", "hint_form", "method_options", "probe_helpers", "helpers", "max_helpers",
            "other_names", "use_prior", "failure_lessons", "token_budget", "hint_budget", "config_file",
            "select_model", "repeat", "model_seed"} <= taken


@pytest.mark.parametrize("flags", [
    ["--method", "oe", "--top-k", "3", "--oe-caption", "per-puzzle", "--use-prior", "--failure-lessons", "exclude"],
    ["--selector-view", "collapsed", "--hint-form", "released", "--max-helpers", "1", "--no-other-names",
     "--model-seed", "4", "--repeat", "2", "--token-budget", "900", "--grid-text", "numpy"],
    ["--protocol", "released-code", "--method-option", "use_prior=true", "--no-probe-helpers", "--caption"],
    ["--config", "arcmemo-ps-released", "--helpers", "on", "--split", "training"],
], ids=["oe", "ps-choices", "released", "config"])
def test_select_reads_as_a_solve_with_the_same_flags_would(tmp_path, monkeypatch, fake_model, flags):
    """The RunConfig select shows a read under (before its budgets are fitted to the models) is a
    solve's, on every field a read uses, and so are the read roles' models."""
    import arcmemo.run.config as run_config
    import arcmemo.run.session as session

    seen = {}

    def captured(config, llm):
        seen["config"] = config
        raise click.exceptions.Exit(0)

    resolve = session.resolve_models

    def models(flags, recorded=None):
        seen["models"] = flags
        return resolve(flags, recorded)

    monkeypatch.setattr(run_config, "fit_budgets", captured)
    monkeypatch.setattr(session, "resolve_models", models)
    common = ["--db", str(tmp_path / "m.db"), "--select-model", "fake", "--aux-model", "fake", "--solver-model", "fake"]
    result = CliRunner().invoke(cli, ["select", TASK, *flags, *common])
    assert result.exit_code == 0, result.output
    planned = planned_run(["--tasks", TASK, *flags, *common])
    config = seen["config"]
    assert config.selection_settings(1) == planned.config.selection_settings(1)
    for field in ("selection", "memory_format", "method_options", "probe_helpers", "helpers", "max_helpers",
                  "grid_text", "prompts_dir", "token_budget", "hint_budget", "other_names", "repeat", "model_seed"):
        assert getattr(config, field) == getattr(planned.config, field), field
    assert config.protocol == planned.config.protocol
    if "models" in seen:
        assert seen["models"] == {k: v for k, v in planned.models.items() if k in seen["models"]}
