"""What a solve's options are and the run they plan.

- options.py: every option of a solve, declared once under its heading (`select` takes the
  ones that shape a read: the same definitions); protocol.py: --protocol and its choices;
  headings.py: options shown under headings (cloup);
- configfile.py: run configuration files (`--config`) and a sweep's keys: solve's options,
  and their one check;
- here: a run's `RunConfig` from a command's options, in one place (`run_config`): `solve`
  builds its run with it, a sweep its members (`planned_run`, `planned_point`), `select` the
  run whose first thread it shows. A new RunConfig field is an option of solve's with the
  field's name (it is then taken as it is), or one of `DERIVED`, made here from the options
  that say it (tests/test_run_plan.py holds every field to one or the other).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from arcmemo.cli.common import model_flags, task_source
from arcmemo.cli.runplan.protocol import FLAGGED, ProtocolRequest
from arcmemo.cli.selection_options import flag_options

# RunConfig fields that no option of solve's sets by their own name, and what they are made from
DERIVED = {
    "source": "--dataset, --split, --tasks-from (and --tasks: ids without a split are looked up in both)",
    "task_ids": "--tasks",
    "solutions": "--solutions, made absolute",
    "score": "--no-score",
    "selection": "--method (--selection)",
    "helpers": "--helpers on|off",
    "fits_as_answers": "--fits-as-answers on|off",
    "protocol": "--protocol and its choice flags (grid_text: the setting when given)",
    "prompts_dir": "the prompts_dir setting (--prompts, env, config file), made absolute",
    "grid_text": "the protocol's grid_text: the grid_text setting (--grid-text) when given, else its profile's",
    "method_options": "--method-option KEY=VALUE, --use-prior, --failure-lessons, --learn-from-failures",
}
# the options whose values RunConfig takes as they are (each a field of the same name)
SAME = ("limit", "solver", "memory_format", "top_k", "expand", "ps_caption", "token_budget", "hint_budget",
        "attempts", "retries", "max_tokens", "temperature", "reasoning_effort", "passes", "continual", "k", "order",
        "seed", "budget_usd", "model_seed", "repeat", "max_helpers", "probe_helpers", "threads", "other_names",
        "reselect_on_retry", "config_file", "consolidate_every")


def method_options(pairs: Sequence[str]) -> dict:
    """--method-option KEY=VALUE pairs as a mapping, each VALUE read as YAML (a number stays a number)."""
    if not pairs:
        return {}
    from arcmemo.core import safeyaml  # PyYAML, only when there is a value to read

    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r}: expected KEY=VALUE", param_hint="--method-option")
        try:
            options[key.strip()] = safeyaml.load(value) if value.strip() else None
        except safeyaml.YAMLError:
            options[key.strip()] = value
    return options


def task_ids(values: Sequence[str]) -> list[str] | None:
    """--tasks, given any number of times: a value naming a file is a file of ids, any other
    value ids separated by commas or spaces (never tried as a file: 32 ids joined are too
    long a name for the OS). In the order given, each id once; None when there is no --tasks."""
    from arcmemo.core.tasks import TaskError, check_task_id, read_id_list

    if not values:
        return None
    ids: list[str] = []
    for value in values:
        is_file = os.path.isfile(value)
        try:
            found = read_id_list(Path(value).read_text(encoding="utf-8") if is_file else value)
        except UnicodeDecodeError:
            raise click.BadParameter(f"{value}: not UTF-8 text", param_hint="--tasks") from None
        except OSError as exc:
            raise click.BadParameter(f"{value}: cannot read ({exc.strerror})", param_hint="--tasks") from None
        if not found:
            raise click.BadParameter(f"no task ids in {value if is_file else repr(value)}", param_hint="--tasks")
        for task_id in found:
            try:
                ids.append(check_task_id(task_id, value))
            except TaskError as exc:
                raise click.BadParameter(str(exc) if is_file else f"{task_id[:80]!r}: not a file, nor a task id "
                                         "(letters, digits, '_', '-' and '.')", param_hint="--tasks") from None
    return list(dict.fromkeys(ids))


def task_selection(dataset: str | None, split: str | None, tasks_from: str | None, solutions: str | None,
                   tasks: Sequence[str]) -> tuple[str, list[str] | None]:
    """The task-source options and --tasks -> (source, ids). Ids without a split are looked up in
    both splits of the dataset."""
    ids = task_ids(tasks)
    source = task_source(dataset, split, tasks_from, solutions, default_split=None if ids else "training")
    if source is None:
        source = "all"
    elif Path(source).exists():     # kept absolute so --resume works from any directory
        source = os.path.abspath(source)
    return source, ids


def run_config(params: Mapping[str, Any], settings: Any, *, from_command_line: Callable[[str], bool]):
    """The RunConfig of a new run from solve's options (`params`: each option by parameter name,
    a --config file's values among them) and the `Settings` they load; a bad choice is a usage
    error, before anything is opened. `from_command_line(name)`: whether an option's value was
    typed (not a --config file's)."""
    from arcmemo.run.config import RunConfig

    p = params
    dataset, split = p["dataset"], p["split"]
    if p["tasks_from"] is not None:    # a task file on the command line wins over a --config's split
        dataset = dataset if from_command_line("dataset") else None
        split = split if from_command_line("split") else None
    source, ids = task_selection(dataset, split, p["tasks_from"], p["solutions"], p["tasks"])
    request = ProtocolRequest(p["protocol"], {choice: p[choice] for choice in FLAGGED})
    if settings.origin("grid_text") != "default":     # a setting of its own, and a choice of the protocol
        request = dataclasses.replace(request, choices={**request.choices, "grid_text": settings.grid_text})
    protocol = _protocol(request, continual=p["continual"], passes=p["passes"], method=_method(p["method"]),
                         scored=not p["no_score"])
    return RunConfig(
        **{name: p[name] for name in SAME}, source=source, task_ids=ids,
        solutions=os.path.abspath(p["solutions"]) if p["solutions"] else None, score=not p["no_score"],
        selection=p["method"], helpers=p["helpers"] == "on", fits_as_answers=p["fits_as_answers"] == "on",
        protocol=protocol, prompts_dir=str(settings.prompts_dir.resolve()) if settings.prompts_dir else None,
        grid_text=protocol.grid_text, method_options={**method_options(p["method_options"]), **flag_options(
            use_prior=p["use_prior"], failure_lessons=p["failure_lessons"],
            learn_from_failures=p["learn_from_failures"])},
    )


def settings_of(params: Mapping[str, Any]):
    """The command's `Settings`: its --db, --run-dir, --prompts and --grid-text over the env and config."""
    from arcmemo.core.settings import Settings

    return Settings.load(db=params["db"], runs_dir=params["run_dir"], prompts_dir=params["prompts_dir"],
                         grid_text=params["grid_text"])


def models_of(params: Mapping[str, Any]) -> dict[str, Any]:
    """The model options' values as LLMSettings.resolve keywords."""
    return model_flags({name: params[name] for name in model_params()})


def model_params() -> set[str]:
    """The names of the model options (common.model_options) solve and select take."""
    from arcmemo.cli.common import model_options

    return {param.name for param in getattr(model_options(lambda: None), "__click_params__", [])}


def from_command_line(ctx: click.Context) -> Callable[[str], bool]:
    from click.core import ParameterSource

    return lambda name: ctx.get_parameter_source(name) != ParameterSource.DEFAULT_MAP


def solve_defaults() -> dict[str, Any]:
    """Every option of solve's with its default value (a command that takes fewer fills in the rest)."""
    from arcmemo.cli.solve import solve

    with solve.make_context("solve", []) as ctx:
        return dict(ctx.params)


@dataclasses.dataclass(frozen=True)
class PlannedRun:
    """What `arcmemo solve ARGS` would start (`planned_run`)."""

    config: Any                   # RunConfig
    models: dict[str, Any]        # LLMSettings.resolve keywords (model_flags)
    db: str | None                # the memory it names: --db, or its --config's `db:` (None: the setting's)


def planned_run(args: Sequence[str], defaults: Mapping[str, Any] | None = None) -> PlannedRun:
    """The run `arcmemo solve ARGS` would start, read as solve reads its options (a --config file's
    values, and `defaults`: checked options by parameter name, under the flags), with nothing
    opened or run: a sweep's members are these. A bad option is a click error naming it."""
    from arcmemo.cli.solve import solve

    with solve.make_context("solve", list(args), default_map=dict(defaults or {})) as ctx:
        p = ctx.params
        if p["resume"]:
            raise click.UsageError("a planned run is a new run: leave out --resume")
        config = run_config(p, settings_of(p), from_command_line=from_command_line(ctx))
        return PlannedRun(config=config, models=models_of(p), db=p["db"])


def planned_point(values: Mapping[Any, Any], where: Callable[[Any], str], args: Sequence[str] = ()) -> PlannedRun:
    """The run a sweep's grid point makes: `values` (keys as a run configuration's, checked by the same
    check, `where(key)` naming where a bad one is) as solve's options, `args` over them."""
    from arcmemo.cli.runplan.configfile import checked_options
    from arcmemo.cli.solve import solve

    return planned_run(args, checked_options(values, solve, click.Context(solve), where))


def _protocol(request, **run):
    """The run's protocol (run/protocol.py) from --protocol and the choice flags; a bad name or a
    choice this run cannot apply is a usage error, before anything is opened."""
    from arcmemo.run.protocol import ProtocolError, check, resolve

    try:
        protocol = resolve(request.name, request.choices)
        check(protocol, **run)
    except ProtocolError as exc:
        raise click.UsageError(str(exc)) from None
    return protocol


def _method(name: str):
    from arcmemo.methods import load_method

    return load_method(name)


__all__ = ["DERIVED", "SAME", "PlannedRun", "planned_run", "planned_point", "run_config", "settings_of",
           "models_of", "solve_defaults", "from_command_line", "method_options", "task_selection"]
