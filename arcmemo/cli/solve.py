"""`arcmemo solve`: solve puzzles with memory, optionally growing it (the paper's Algorithm 1)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from arcmemo.cli.common import (
    AtLeast,
    FloatAtLeast,
    LazyChoice,
    UserError,
    as_user_error,
    db_option,
    grid_text_option,
    model_flags,
    model_options,
    prompts_option,
    reasoning_efforts,
    run_dir_option,
    task_source,
    task_source_options,
    warn,
)
from arcmemo.cli.protocol_options import FLAGGED, ProtocolRequest, protocol_options
from arcmemo.cli.runconfig import config_option
from arcmemo.cli.selection_options import MethodChoice, flag_options, selection_options

EXIT_LOST = 3          # finished, but some tasks were lost to endpoint errors: --resume retries them
EXIT_INTERRUPTED = 130  # Ctrl-C


def _isolation_levels() -> tuple[str, ...]:
    from arcmemo.sandbox import LEVELS

    return LEVELS


def _unless_from_config(ctx: click.Context, value, name: str):
    """`value`, or None when it came from a --config file (click's default map), not from a flag."""
    from click.core import ParameterSource

    return None if ctx.get_parameter_source(name) == ParameterSource.DEFAULT_MAP else value


def _method_options(pairs: tuple[str, ...]) -> dict:
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


def _task_ids(values: tuple[str, ...]) -> list[str] | None:
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


def _task_selection(dataset: str | None, split: str | None, tasks_from: str | None, solutions: str | None,
                    tasks: tuple[str, ...]) -> tuple[str, list[str] | None]:
    """The task-source options and --tasks -> (source, ids). Ids without a split are looked up in
    both splits of the dataset."""
    ids = _task_ids(tasks)
    source = task_source(dataset, split, tasks_from, solutions, default_split=None if ids else "training")
    if source is None:
        source = "all"
    elif Path(source).exists():     # kept absolute so --resume works from any directory
        source = os.path.abspath(source)
    return source, ids


@click.command()
@config_option
@task_source_options
@click.option("--no-score", is_flag=True,
              help="Solve without scoring (tasks without test outputs are accepted; the score is unknown).")
@click.option("--tasks", multiple=True, metavar="IDS|FILE",
              help="Task ids, comma- or space-separated, or a file of ids (one per line); may be repeated.")
@click.option("--limit", type=AtLeast(1), default=None, help="Solve only the first N tasks (after ordering).")
@click.option("--solver", default="program-synthesis", show_default=True,
              help="An installed solver plugin (see `arcmemo solvers list`).")
@click.option("--selection", "--method", "selection", type=MethodChoice(), default="ps", show_default=True,
              help="The memory method: how memory is read and written (ps: reasoning-based, oe: caption + "
                   "top-k, none, all, cheatsheet, or any installed one: `arcmemo methods list`).")
@click.option("--method-option", "method_options", multiple=True, metavar="KEY=VALUE",
              help="A setting of the memory method's own (repeatable; VALUE is read as YAML: 5, true, text). "
                   "`arcmemo methods list` names each method's options.")
@click.option("--memory-format", type=click.Choice(["ps", "oe"]), default=None,
              help="Which concepts are written back (default: oe for --selection oe, else ps).")
@selection_options("--selection")
@click.option("--attempts", "-n", type=AtLeast(1), default=1, show_default=True, help="Independent samples per task.")
@click.option("--retries", "-r", type=AtLeast(0), default=2, show_default=True, help="Feedback rounds per sample.")
@click.option("--passes", "-p", type=AtLeast(1), default=1, show_default=True,
              help="Re-run tasks no attempt solved on the train pairs, with the memory as it then is.")
@click.option("--continual", is_flag=True, help="Write verified solves back into memory every K tasks.")
@click.option("--learn-from-failures", is_flag=True,
              help="ps, oe with --continual: also write OE lessons (marked as from a failure) from the tasks whose "
                   "programs failed their train pairs after every retry. Sets the method option "
                   "learn_from_failures.")
@click.option("-k", "k", type=AtLeast(1), default=10, show_default=True, help="Write-back interval for --continual.")
@click.option("--consolidate-every", type=AtLeast(1), default=None, metavar="N",
              help="With --continual: after every N blocks' writes, merge near-duplicate concepts as `arcmemo "
                   "concepts consolidate` does (the aux model judges pairs alike in words).")
@click.option("--order", type=click.Choice(["as-given", "shuffled"]), default="as-given", show_default=True,
              help="Task order: as listed, or shuffled with --seed.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for --order shuffled.")
@click.option("--budget-usd", type=FloatAtLeast(0, open=True), default=None,
              help="Stop cleanly before spending more than this.")
@click.option("--max-tokens", type=AtLeast(1), default=None,
              help="Completion token limit per solver call (sent as max_completion_tokens to a reasoning model).")
@click.option("--temperature", type=FloatAtLeast(0, maximum=2), default=None,
              help="Sampling temperature for the solver model (0 to 2).")
@click.option("--reasoning-effort", type=LazyChoice(reasoning_efforts), default=None,
              help="Reasoning effort of the solver model (a reasoning model only; the paper: medium).")
# The paper's protocol (issue 13).
@click.option("--threads", type=AtLeast(1), default=1, show_default=True,
              help="Independent threads per task (the paper ran 3): each its own selection, sample and retry "
                   "chain. `runs show` prints oracle@k for k = 1..threads at every retry depth (Table 4).")
@click.option("--other-names/--no-other-names", default=True, show_default=True,
              help="ps: the hint also lists the names of the concepts not selected, within --hint-budget (the "
                   "paper's hint).")
@click.option("--reselect-on-retry", is_flag=True,
              help="ps, oe: before each retry, select concepts again with the failed try's feedback; the retry "
                   "shows them (and offers their helpers) with the feedback.")
@click.option("--model-seed", type=AtLeast(0), default=None,
              help="Sampling seed for the solver and select models (sample i of a task uses SEED + i).")
@click.option("--repeat", type=AtLeast(0), default=0, show_default=True, metavar="N",
              help="Run this configuration again as its repeat N (0: the first run): every model call is asked "
                   "afresh (the call cache keys on N; --resume still replays the run's own answers) and the model "
                   "seed moves past the earlier repeats'. `runs compare --mean` averages repeats 0, 1, 2, ...")
@click.option("--helpers", "helpers", type=click.Choice(["on", "off"]), default="on", show_default=True,
              help="Offer the selected concepts' verified helpers to the solver's programs (importable as "
                   "memory_helpers); off: the concepts' text only.")
@click.option("--max-helpers", type=AtLeast(0), default=None,
              help="At most N helpers per task (default 2 for a small-context model such as the embedded "
                   "one, else 8).")
@click.option("--probe-helpers/--no-probe-helpers", default=True, show_default=True,
              help="ps, all: before solving, run the memory's helpers on the train inputs with each value their "
                   "typed parameters can take (ints, the task's colours, choices); a call that gives every train "
                   "output is named in the hint and only such helpers are offered (ps: its concepts replace the "
                   "select model's choice).")
@click.option("--fits-as-answers", type=click.Choice(["on", "off"]), default="on", show_default=True,
              help="With the probe: each helper call that gives every train output is also a candidate answer, "
                   "made by memory (run on the test inputs, ranked with the model's by the train pairs).")
@click.option("--tasks-in-flight", type=AtLeast(1), default=None,
              help="Tasks solved at once (default 8 with an endpoint, 1 with the embedded model). Within a "
                   "--continual block every task reads the memory as the block found it, so results do not "
                   "depend on it.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where tasks are solved: this process, or Ray workers (pip install 'arcmemo[ray]').")
@click.option("--ray-address", default=None, metavar="ADDRESS",
              help="With --executor ray: a cluster to join (auto, or ray://HOST:10001; its memory must be "
                   "PostgreSQL). Default: start a local Ray instance.")
@run_dir_option
@click.option("--resume", default=None, metavar="RUN",
              help="Continue a stopped run (id or path) with its recorded settings; a new --base-url or "
                   "OPENAI_BASE_URL replaces the recorded endpoint.")
@click.option("--quiet", "-q", is_flag=True, help="No progress display (problems are still printed).")
@click.option("--require-isolation", type=LazyChoice(_isolation_levels), default=None,
              help="Refuse to run unless the sandbox isolates programs at least this well here "
                   "(full: PID/network/mount namespaces, Landlock view, seccomp).")
@prompts_option
@grid_text_option
@protocol_options
@model_options
@db_option
def solve(config_file, dataset, split, tasks_from, solutions, no_score, tasks, limit, solver, selection, method_options,
          memory_format,
          top_k, expand, token_budget, hint_budget, use_prior, failure_lessons, attempts, retries, passes, continual,
          learn_from_failures, k, consolidate_every, order, seed, budget_usd,
          max_tokens, temperature, reasoning_effort, threads, other_names, reselect_on_retry, model_seed, repeat,
          helpers, max_helpers, probe_helpers, fits_as_answers, tasks_in_flight, executor, ray_address, run_dir, resume, quiet,
          require_isolation, prompts_dir, grid_text, db, protocol_request, **models) -> None:
    """Solve ARC puzzles with memory; with --continual, grow it from verified solves.

    --config takes the options from a run configuration file (the paper's settings ship as
    baseline, cheatsheet, arcmemo-oe, arcmemo-ps, arcmemo-oe-continual, each also as
    NAME-released: the released code's protocol); flags win over it.

    --protocol picks arcmemo's clean protocol (the default) or the released code's; each
    of its choices has a flag of its own, which overrides the named one.

    With no endpoint configured this uses the embedded offline model (slow on a CPU:
    try --limit 1). Every run gets a directory under --run-dir with its config, events,
    selections, submissions, status and summary; `arcmemo runs show RUN` prints it again.
    Without --continual the memory is only read: its file stays as it was.

    Exit codes: 0 finished (or stopped at --budget-usd), 1 an error (the message says
    which; a run it stopped can be resumed), 2 bad usage, 3 finished but some tasks
    were lost to endpoint errors (`--resume` retries them), 130 interrupted (Ctrl-C or SIGTERM).
    """
    from arcmemo.core.settings import Settings
    from arcmemo.run.warmup import warm_up

    # Everything is checked before the session opens: a bad flag or setting fails before any
    # memory, run directory or model exists.
    if ray_address and executor != "ray":
        raise click.UsageError("--ray-address needs --executor ray")
    if consolidate_every and not continual and not resume:
        raise click.UsageError("--consolidate-every needs --continual (a read-only run writes no memory)")
    settings = Settings.load(db=db, runs_dir=run_dir, prompts_dir=prompts_dir, grid_text=grid_text)
    warm_up(settings)       # the sandbox's first worker and the model client's library, while the run layer loads
    from arcmemo.run.progress.reporter import make_reporter
    from arcmemo.run.session import Scale, open_session, resolve_models

    scale = Scale(tasks_in_flight=tasks_in_flight, executor=executor, ray_address=ray_address)
    flags = model_flags(models)
    config = models_settings = None
    if resume and (config_file or prompts_dir or grid_text):
        raise click.UsageError("--resume continues a run with its recorded settings (its prompts too): leave out "
                               "--config, --prompts and --grid-text")
    if resume and protocol_request.given():
        raise click.UsageError("--resume keeps the run's recorded protocol: leave out --protocol and its choices")
    if not resume:
        config = _new_config(click.get_current_context(), settings)
        models_settings = resolve_models(flags)
    with open_session(settings, reporter=make_reporter(quiet=quiet), require_isolation=require_isolation) as session:
        runner = (session.resume_solve(resume, flags, scale) if resume else
                  session.new_solve(config, models_settings, scale))
        summary = _run(session, runner, resumed=bool(resume))
    from arcmemo.run.records.report import summary_table

    click.echo(summary_table(summary, runner.rundir.config()))
    click.echo(f"run directory: {runner.rundir.path}")
    if summary.get("tasks_lost"):
        warn(f"{len(summary['tasks_lost'])} task(s) were not attempted because the endpoint failed; "
             f"retry them with: {_resume(session, runner)}")
        sys.exit(EXIT_LOST)


def _new_config(ctx: click.Context, settings):
    """The RunConfig of a new run from solve's parameters (`ctx.params`; --config's values
    among them) and the settings they load; a bad choice is a usage error, before anything
    is opened."""
    from arcmemo.run.config import RunConfig

    p = ctx.params
    dataset, split = p["dataset"], p["split"]
    if p["tasks_from"] is not None:    # a task file on the command line wins over a --config's split
        dataset, split = _unless_from_config(ctx, dataset, "dataset"), _unless_from_config(ctx, split, "split")
    source, ids = _task_selection(dataset, split, p["tasks_from"], p["solutions"], p["tasks"])
    request = ProtocolRequest(p["protocol"], {choice: p[choice] for choice in FLAGGED})
    if settings.origin("grid_text") != "default":     # a setting of its own, and a choice of the protocol
        request = dataclasses.replace(request, choices={**request.choices, "grid_text": settings.grid_text})
    protocol = _protocol(request, continual=p["continual"], passes=p["passes"], method=_method(p["selection"]),
                         scored=not p["no_score"])
    same = ("limit", "solver", "selection", "memory_format", "top_k", "expand", "token_budget", "hint_budget",
            "attempts", "retries", "max_tokens", "temperature", "reasoning_effort", "passes", "continual", "k",
            "order", "seed", "budget_usd", "model_seed", "repeat", "max_helpers", "probe_helpers", "threads",
            "other_names", "reselect_on_retry", "config_file", "consolidate_every")
    return RunConfig(
        **{name: p[name] for name in same}, source=source, task_ids=ids,
        solutions=os.path.abspath(p["solutions"]) if p["solutions"] else None, score=not p["no_score"],
        helpers=p["helpers"] == "on", fits_as_answers=p["fits_as_answers"] == "on", protocol=protocol,
        prompts_dir=str(settings.prompts_dir.resolve()) if settings.prompts_dir else None,
        grid_text=protocol.grid_text, method_options={**_method_options(p["method_options"]), **flag_options(
            use_prior=p["use_prior"], failure_lessons=p["failure_lessons"],
            learn_from_failures=p["learn_from_failures"])},
    )


@dataclasses.dataclass(frozen=True)
class PlannedRun:
    """What `arcmemo solve ARGS` would start (`planned_run`)."""

    config: Any                   # RunConfig
    models: dict[str, Any]        # LLMSettings.resolve keywords (model_flags)
    db: str | None                # the memory it names: --db, or its --config's `db:` (None: the setting's)


def planned_run(args: Sequence[str]) -> PlannedRun:
    """The run `arcmemo solve ARGS` would start, read as solve reads its options (a --config
    file's values included), with nothing opened or run: a sweep's rows are these. A bad
    option is a click error naming it."""
    from arcmemo.core.settings import Settings

    with solve.make_context("solve", list(args)) as ctx:
        p = ctx.params
        if p["resume"]:
            raise click.UsageError("a planned run is a new run: leave out --resume")
        settings = Settings.load(db=p["db"], runs_dir=p["run_dir"], prompts_dir=p["prompts_dir"],
                                 grid_text=p["grid_text"])
        config = _new_config(ctx, settings)
        models = model_flags({name: p[name] for name in _model_params()})
        return PlannedRun(config=config, models=models, db=p["db"])


def _model_params() -> set[str]:
    """The names of solve's model options (model_options), which solve takes as **models."""
    return {param.name for param in getattr(model_options(lambda: None), "__click_params__", [])}


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


def _resume(session, runner) -> str:
    from arcmemo.run.session import resume_command

    return resume_command(runner.rundir, session.settings)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM (`kill`, a batch scheduler's time limit) stops a run as Ctrl-C does: recorded as
    interrupted, with the command that continues it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(session, runner, *, resumed: bool) -> dict:
    """Run to the end; on Ctrl-C, SIGTERM or any failure, say which run stopped and how to continue it."""
    try:
        with _sigterm_as_ctrl_c():
            return session.run(runner, resumed=resumed)
    except KeyboardInterrupt:
        session.reporter.close()
        warn(f"interrupted: run {runner.rundir.run_id} is recorded in {runner.rundir.path}; continue it with:\n"
             f"  {_resume(session, runner)}")
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:
        session.reporter.close()
        error = as_user_error(exc)
        hint = f"run {runner.rundir.run_id} stopped; after fixing this, continue it with: {_resume(session, runner)}"
        if error is not None:
            raise UserError(f"{error.message}\n{hint}") from None
        traceback.print_exc()              # a bug: its traceback, then how to go on
        warn(hint)
        sys.exit(1)


COMMANDS = [solve]
