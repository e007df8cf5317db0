"""`arcmemo solve`: solve puzzles with memory, optionally growing it (the paper's Algorithm 1)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from arcmemo.cli.common import (
    USER_ERRORS,
    db_option,
    role_model_options,
    task_source,
    task_source_options,
    user_errors,
    warn,
)
from arcmemo.core.settings import SELECTION_MODES
from arcmemo.core.tasks import TaskError, read_id_list
from arcmemo.run.rundir import DEFAULT_RUNS_DIR, RunDir, RunDirError
from arcmemo.sandbox import LEVELS, SandboxError

USER_ERRORS.extend([TaskError, RunDirError, SandboxError])


def model_options(fn):
    """Endpoint, model-per-role and call flags for commands that run a model."""
    fn = click.option("--no-cache", is_flag=True, help="Ask the model again even for requests already answered.")(fn)
    fn = click.option("--concurrency", type=int, default=None, help="Model calls in flight at once (default 8).")(fn)
    return role_model_options(fn)


def _task_selection(dataset: str | None, split: str | None, tasks_from: str | None, solutions: str | None,
                    tasks: str | None) -> tuple[str, list[str] | None]:
    """The task-source options and --tasks (ids, comma-separated, or a file of ids) -> (source, ids).
    Ids without a split are looked up in both splits of the dataset."""
    ids = None
    if tasks:
        path = Path(tasks)
        ids = read_id_list(path.read_text()) if path.is_file() else read_id_list(tasks)
        if not ids:
            raise click.BadParameter("no task ids given", param_hint="--tasks")
    source = task_source(dataset, split, tasks_from, solutions, default_split=None if ids else "training")
    if source is None:
        source = "all"
    elif Path(source).exists():     # kept absolute so --resume works from any directory
        source = os.path.abspath(source)
    return source, ids


@click.command()
@task_source_options
@click.option("--no-score", is_flag=True,
              help="Solve without scoring (tasks without test outputs are accepted; the score is unknown).")
@click.option("--tasks", default=None, help="Task ids, comma-separated, or a file of ids.")
@click.option("--limit", type=int, default=None, help="Solve only the first N tasks (after ordering).")
@click.option("--solver", default="program-synthesis", show_default=True,
              help="An installed solver plugin (see `arcmemo solvers list`).")
@click.option("--selection", type=click.Choice(SELECTION_MODES), default="ps", show_default=True,
              help="How memory is read: ps (reasoning-based), oe (caption + top-k), none, all, cheatsheet.")
@click.option("--memory-format", type=click.Choice(["ps", "oe"]), default=None,
              help="Which concepts are written back (default: oe for --selection oe, else ps).")
@click.option("--top-k", type=int, default=5, show_default=True, help="Lessons picked by --selection oe.")
@click.option("--expand", is_flag=True, help="Add graph neighbours of the selected PS concepts.")
@click.option("--token-budget", type=int, default=None,
              help="Tokens (the reading model's) allowed for a selection prompt (ps, oe). Default 6000, or 30% "
                   "of an embedded model's context.")
@click.option("--hint-budget", type=int, default=None,
              help="Tokens (the reading model's) allowed for the concepts ps selection hands the solver. "
                   "Default 3000, or 18% of an embedded model's context.")
@click.option("--attempts", "-n", type=int, default=1, show_default=True, help="Independent samples per task.")
@click.option("--retries", "-r", type=int, default=2, show_default=True, help="Feedback rounds per sample.")
@click.option("--passes", "-p", type=int, default=1, show_default=True,
              help="Re-run tasks no attempt solved on the train pairs, with the memory as it then is.")
@click.option("--continual", is_flag=True, help="Write verified solves back into memory every K tasks.")
@click.option("-k", "k", type=int, default=10, show_default=True, help="Write-back interval for --continual.")
@click.option("--order", type=click.Choice(["as-given", "shuffled"]), default="as-given", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for --order shuffled.")
@click.option("--budget-usd", type=float, default=None, help="Stop cleanly before spending more than this.")
@click.option("--max-tokens", type=int, default=None, help="Completion token limit per solver call.")
@click.option("--temperature", type=float, default=None, help="Sampling temperature for the solver model.")
@click.option("--model-seed", type=int, default=None,
              help="Sampling seed for the solver and select models (sample i of a task uses SEED + i).")
@click.option("--helpers", "helpers", type=click.Choice(["on", "off"]), default="on", show_default=True,
              help="Offer the selected concepts' verified helpers to the solver's programs (importable as "
                   "memory_helpers); off: the concepts' text only.")
@click.option("--max-helpers", type=int, default=None,
              help="At most N helpers per task (default 3 for a small-context model such as the embedded "
                   "one, else 8).")
@click.option("--run-dir", default=DEFAULT_RUNS_DIR, show_default=True, help="Where run directories go.")
@click.option("--resume", default=None, metavar="RUN", help="Continue a killed run (id or path).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--require-isolation", type=click.Choice(LEVELS), default=None,
              help="Refuse to run unless the sandbox isolates programs at least this well here "
                   "(full: PID/network/mount namespaces, Landlock view, seccomp).")
@model_options
@db_option
@user_errors
def solve(dataset, split, tasks_from, solutions, no_score, tasks, limit, solver, selection, memory_format, top_k,
          expand, token_budget, hint_budget, attempts, retries, passes, continual, k, order, seed, budget_usd,
          max_tokens, temperature, model_seed, helpers, max_helpers, run_dir, resume, quiet, require_isolation, db,
          **models) -> None:
    """Solve ARC puzzles with memory; with --continual, grow it from verified solves.

    With no endpoint configured this uses the embedded offline model (slow on a CPU:
    try --limit 1). Every run gets a directory under --run-dir with its config, events,
    submissions and summary; `arcmemo runs show RUN` prints it again.
    """
    from arcmemo.run.runner import RunConfig
    from arcmemo.run.session import open_session, run_with_progress

    config = None
    if not resume:  # checked before the session opens: a bad flag fails fast, before any model loads
        source, ids = _task_selection(dataset, split, tasks_from, solutions, tasks)
        config = RunConfig(
            source=source, task_ids=ids, solutions=os.path.abspath(solutions) if solutions else None,
            score=not no_score, limit=limit, solver=solver, selection=selection,
            memory_format=memory_format, top_k=top_k, expand=expand, token_budget=token_budget,
            hint_budget=hint_budget, attempts=attempts, retries=retries, max_tokens=max_tokens,
            temperature=temperature, passes=passes, continual=continual, k=k, order=order, seed=seed,
            budget_usd=budget_usd, model_seed=model_seed, helpers=helpers == "on", max_helpers=max_helpers,
        )
        if selection == "cheatsheet" and not continual:
            warn("note: --selection cheatsheet without --continual shows the sheet as it is; "
                 "nothing rewrites it during this run")
    with open_session(db=db, require_isolation=require_isolation, **models) as session:
        if resume:
            runner = session.resume(RunDir.find(resume, run_dir))
        else:
            runner = session.new(config, runs_root=run_dir)
        summary = run_with_progress(runner, quiet=quiet)
    from arcmemo.run.report import summary_table

    click.echo(summary_table(summary))
    click.echo(f"run directory: {runner.rundir.path}")


COMMANDS = [solve]
