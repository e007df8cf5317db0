"""Shared CLI plumbing: user errors to stderr with exit code 1, no tracebacks; JSON output."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import click


class UserError(click.ClickException):
    """An error caused by the user's input; printed as one line, exit code 1."""


# Exception types that mean "bad input", printed without a traceback. Modules append theirs.
USER_ERRORS: list[type[BaseException]] = [ValueError, FileNotFoundError, KeyError, LookupError]


def user_errors(fn: Callable) -> Callable:
    """Turn the user-facing exceptions raised by a command into a clean one-line error."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except click.ClickException:
            raise
        except tuple(USER_ERRORS) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            raise UserError(str(message)) from None

    return wrapper


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


def db_option(fn: Callable) -> Callable:
    """`--db URL_OR_PATH` (env ARCMEMO_DB; default ./memory.db)."""
    return click.option(
        "--db", "db", default=None, envvar="ARCMEMO_DB",
        help="Memory database: a SQLite path or SQLAlchemy URL (env ARCMEMO_DB, default ./memory.db).",
    )(fn)


def role_model_options(fn: Callable) -> Callable:
    """`--base-url` and a model flag per role (solver, aux, select)."""
    for option in reversed([
        click.option("--base-url", default=None, help="OpenAI-compatible endpoint (env OPENAI_BASE_URL)."),
        click.option("--solver-model", default=None, help="Model for solving (env ARCMEMO_SOLVER_MODEL)."),
        click.option("--aux-model", default=None,
                     help="Model for pseudocode, abstraction and captions (env ARCMEMO_AUX_MODEL)."),
        click.option("--select-model", default=None, help="Model for memory selection (env ARCMEMO_SELECT_MODEL)."),
    ]):
        fn = option(fn)
    return fn


def task_source_options(fn: Callable) -> Callable:
    """`--dataset`, `--split`, `--tasks-from` and `--solutions`: where a command's tasks come from."""
    from arcmemo.core.datasets import DATASETS

    for option in reversed([
        click.option("--dataset", type=click.Choice(DATASETS), default=None,
                     help="Which bundled ARC dataset (default arc-agi-1, as the paper)."),
        click.option("--split", default=None,
                     help="training | evaluation | val100 (val100: arc-agi-1 only). "
                          "A task file or folder given here is read as --tasks-from."),
        click.option("--tasks-from", type=click.Path(exists=True, path_type=str), default=None,
                     help="A folder of <task_id>.json files or a Kaggle-style challenges file "
                          "({task_id: {train, test}}) instead of a bundled split."),
        click.option("--solutions", type=click.Path(exists=True, dir_okay=False, path_type=str), default=None,
                     help="With a challenges file: its test outputs ({task_id: [grid, ...]}), for scoring."),
    ]):
        fn = option(fn)
    return fn


def task_source(dataset: str | None, split: str | None, tasks_from: str | None, solutions: str | None,
                default_split: str | None = "training") -> str | None:
    """The task source string (arcmemo.core.tasks.load_tasks) the task-source options name,
    or None when they name none and `default_split` is None."""
    from pathlib import Path

    from arcmemo.core.datasets import DEFAULT_DATASET, SPLITS, source_name

    if split is not None and tasks_from is None and split not in SPLITS["arc-agi-1"] and Path(split).exists():
        split, tasks_from = None, split            # older scripts: a path given as --split
    if tasks_from is not None:
        if split is not None or dataset is not None:
            raise click.UsageError("--tasks-from names the tasks itself: leave out --split and --dataset")
        return tasks_from
    if solutions is not None:
        raise click.UsageError("--solutions goes with --tasks-from (a Kaggle-style challenges file)")
    split = split or default_split
    if split is None:
        return None if dataset is None else source_name(dataset, "all")
    try:
        return source_name(dataset or DEFAULT_DATASET, split)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--split") from None


def warn(message: str) -> None:
    click.echo(message, err=True)


__all__ = ["UserError", "USER_ERRORS", "user_errors", "echo_json", "db_option", "role_model_options",
           "task_source_options", "task_source", "warn"]
