"""Shared CLI plumbing: the error rule, range-checked numeric options, common options, JSON output.

The error rule, for every command (the root group applies it, `user_errors` too):
- a user error (bad input, a bad setting, a missing or unreadable file, an unknown name,
  an unreachable endpoint) is one or two lines on stderr naming what and where, exit 1,
  no traceback. User errors are arcmemo's `ArcmemoError`s (and the sandbox's own base,
  core/errors.py) and `UserError`, nothing broader: a KeyError or ValueError from
  arcmemo's own code is a bug and keeps its traceback;
- a numeric option is checked by click before the command runs (`AtLeast`, `FloatAtLeast`),
  so a bad value never gets as far as a run directory, a database write or a model start.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import click

from arcmemo.core.errors import is_user_error


class UserError(click.ClickException):
    """An error caused by the user's input; printed as one line, exit code 1."""


def as_user_error(exc: BaseException) -> UserError | None:
    """The one-line UserError for a user-facing exception, None for anything else (a bug)."""
    if isinstance(exc, click.ClickException):
        return None
    if isinstance(exc, OSError) and exc.filename is not None and not isinstance(exc, click.ClickException):
        return UserError(f"{exc.filename}: {exc.strerror or exc}")
    if is_user_error(exc):
        return UserError(str(exc) or type(exc).__name__)
    return None


def user_errors(fn: Callable) -> Callable:
    """Turn the user-facing exceptions raised by a command into a clean one-line error."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            error = as_user_error(exc)
            if error is None:
                raise
            raise error from None

    return wrapper


class ArcmemoGroup(click.Group):
    """The root group: applies the error rule to every command below it."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            error = as_user_error(exc)
            if error is None:
                raise
            raise error from None


class LazyChoice(click.Choice):
    """A click.Choice whose values come from `values()`, called when first needed: a command
    module can declare the option without importing (at start-up) the module that defines them."""

    def __init__(self, values: Callable[[], Any], case_sensitive: bool = True):
        self._values, self._loaded = values, None
        self.case_sensitive = case_sensitive

    @property
    def choices(self) -> tuple:
        if self._loaded is None:
            self._loaded = tuple(self._values())
        return self._loaded

    @choices.setter
    def choices(self, value) -> None:
        self._loaded = tuple(value)


class AtLeast(click.IntRange):
    """An integer option with a lower bound; the error names the option as typed."""

    def __init__(self, minimum: int, unit: str = ""):
        super().__init__(min=minimum)
        self.unit = unit

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.INT.convert(value, param, ctx)
        if number < self.min:
            name = param.opts[0] if param is not None and param.opts else "value"
            raise click.UsageError(f"{name} must be at least {self.min}{self.unit}, got {number}", ctx)
        return number


class FloatAtLeast(click.FloatRange):
    """A number option with a lower bound (open: strictly above it)."""

    def __init__(self, minimum: float, *, open: bool = False, maximum: float | None = None):
        super().__init__(min=minimum, max=maximum, min_open=open)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        name = param.opts[0] if param is not None and param.opts else "value"
        low = number <= self.min if self.min_open else number < self.min
        if low or number != number:
            raise click.UsageError(f"{name} must be {'above' if self.min_open else 'at least'} {self.min:g}, "
                                   f"got {value}", ctx)
        if self.max is not None and number > self.max:
            raise click.UsageError(f"{name} must be at most {self.max:g}, got {value}", ctx)
        return number


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


def db_option(fn: Callable) -> Callable:
    """`--db URL_OR_PATH` (env ARCMEMO_DB, config `db`; default ./memory.db)."""
    return click.option(
        "--db", "db", default=None,
        help="Memory database: a SQLite path or SQLAlchemy URL (env ARCMEMO_DB, default ./memory.db).",
    )(fn)


def run_dir_option(fn: Callable) -> Callable:
    """`--run-dir DIR` (env ARCMEMO_RUNS_DIR, config `runs_dir`; default ./runs)."""
    return click.option("--run-dir", default=None,
                        help="Where run directories are (env ARCMEMO_RUNS_DIR, default ./runs).")(fn)


def prompts_option(fn: Callable) -> Callable:
    """`--prompts DIR` (env ARCMEMO_PROMPTS_DIR, config `prompts_dir`): templates that replace the shipped ones."""
    return click.option("--prompts", "--prompts-dir", "prompts_dir", default=None, metavar="DIR",
                        help="Your prompt templates, over the shipped ones file by file (`arcmemo prompts export "
                             "DIR`).")(fn)


def grid_text_option(fn: Callable) -> Callable:
    """`--grid-text digits|numpy` (env ARCMEMO_GRID_TEXT, config `grid_text`): how prompts write grids."""
    from arcmemo.core.gridtext import GRID_TEXTS

    return click.option("--grid-text", type=click.Choice(GRID_TEXTS), default=None,
                        help="How prompts write grids: digits (one per cell) or numpy arrays, as the released "
                             "code.")(fn)


def role_model_options(fn: Callable) -> Callable:
    """`--base-url` and a model flag per role (solver, aux, select)."""
    for option in reversed([
        click.option("--base-url", default=None,
                     help="OpenAI-compatible endpoint (env ARCMEMO_BASE_URL, then OPENAI_BASE_URL)."),
        click.option("--solver-model", default=None, help="Model for solving (env ARCMEMO_SOLVER_MODEL)."),
        click.option("--aux-model", default=None,
                     help="Model for pseudocode, abstraction and captions (env ARCMEMO_AUX_MODEL)."),
        click.option("--select-model", default=None, help="Model for memory selection (env ARCMEMO_SELECT_MODEL)."),
    ]):
        fn = option(fn)
    return fn


def reasoning_efforts() -> tuple[str, ...]:
    from arcmemo.llm.params import REASONING_EFFORTS

    return REASONING_EFFORTS


def role_call_options(fn: Callable, roles: tuple[str, ...] = ("aux", "select")) -> Callable:
    """`--<role>-temperature`, `--<role>-max-tokens` and `--<role>-reasoning-effort` per role:
    what each call of that role is sent when it sets none (LLMSettings.call_defaults)."""
    for role in reversed(roles):
        env, a = f"ARCMEMO_{role.upper()}", "an" if role[0] in "aeiou" else "a"
        for option in reversed([
            click.option(f"--{role}-temperature", type=FloatAtLeast(0, maximum=2), default=None,
                         help=f"Temperature of {a} {role} call (env {env}_TEMPERATURE)."),
            click.option(f"--{role}-max-tokens", type=AtLeast(1), default=None,
                         help=f"Completion token limit of {a} {role} call (env {env}_MAX_TOKENS)."),
            click.option(f"--{role}-reasoning-effort", type=LazyChoice(reasoning_efforts), default=None,
                         help=f"Reasoning effort of {a} {role} call; reasoning models only (env "
                              f"{env}_REASONING_EFFORT)."),
        ]):
            fn = option(fn)
    return fn


def model_options(fn: Callable) -> Callable:
    """Endpoint, model-per-role and call flags for commands that run a model."""
    fn = role_call_options(fn)
    fn = click.option("--no-cache", is_flag=True, help="Ask the model again even for requests already answered.")(fn)
    fn = click.option("--concurrency", type=AtLeast(1), default=None,
                      help="Model calls in flight at once (default 8).")(fn)
    return role_model_options(fn)


def model_flags(models: dict[str, Any]) -> dict[str, Any]:
    """The model_options' values as LLMSettings.resolve keywords."""
    flags = dict(models)
    flags["cache"] = False if flags.pop("no_cache", False) else None
    return flags


def task_source_options(fn: Callable) -> Callable:
    """`--dataset`, `--split`, `--tasks-from` and `--solutions`: where a command's tasks come from."""
    from arcmemo.core.datasets import DATASETS

    for option in reversed([
        click.option("--dataset", type=click.Choice(DATASETS), default=None,
                     help="Which bundled ARC dataset (default arc-agi-1, as the paper)."),
        click.option("--split", default=None,
                     help="training | evaluation | val100 (arc-agi-1 only); a path is read as --tasks-from."),
        click.option("--tasks-from", type=click.Path(exists=True, path_type=str), default=None,
                     help="A folder of <task_id>.json files, or a Kaggle-style challenges file, instead of a "
                          "split."),
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


__all__ = ["UserError", "user_errors", "as_user_error", "ArcmemoGroup",
           "LazyChoice", "AtLeast", "FloatAtLeast", "echo_json", "db_option", "run_dir_option", "role_model_options",
           "role_call_options", "reasoning_efforts", "model_options", "model_flags", "task_source_options", "task_source", "warn",
           "prompts_option", "grid_text_option"]
