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


def warn(message: str) -> None:
    click.echo(message, err=True)


__all__ = ["UserError", "USER_ERRORS", "user_errors", "echo_json", "db_option", "role_model_options", "warn"]
