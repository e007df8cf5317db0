"""The options that say how memory is read, shared by `select` (one puzzle) and `solve` (a run)."""

from __future__ import annotations

from collections.abc import Callable

import click

from arcmemo.cli.common import AtLeast
from arcmemo.selection.types import MIN_HINT_BUDGET, MIN_TOKEN_BUDGET


def method_names() -> tuple[str, ...]:
    """The installed memory methods' names (entry points; no method is imported)."""
    from arcmemo.methods.discovery import method_names as names

    return names()


class MethodChoice(click.Choice):
    """The installed memory methods as an option's choices, looked up when the option is parsed or
    helped, each time (the names keep their own cache, renewed when the import path changes)."""

    def __init__(self) -> None:         # click.Choice would look the choices up now, at import
        self.case_sensitive = True

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        return method_names()


def selection_options(mode_flag: str) -> Callable[[Callable], Callable]:
    """`--top-k`, `--expand`, `--token-budget`, `--hint-budget`, `--use-prior` and
    `--failure-lessons`; `mode_flag` is the command's flag that picks the selection mode
    (`--mode`, `--selection`), named in the help."""
    def decorate(fn: Callable) -> Callable:
        for option in reversed([
            click.option("--top-k", type=AtLeast(1), default=5, show_default=True,
                         help=f"Lessons picked by {mode_flag} oe."),
            click.option("--expand", is_flag=True, help="Add graph neighbours of the selected PS concepts."),
            click.option("--token-budget", type=AtLeast(MIN_TOKEN_BUDGET, " (tokens)"), default=None,
                         help="Tokens (the reading model's) allowed for a selection prompt (ps, oe). Default: "
                              "30% of the select model's context (models.yaml), at most 6000 for a context "
                              "of 32k or less."),
            click.option("--hint-budget", type=AtLeast(MIN_HINT_BUDGET, " (tokens)"), default=None,
                         help="Tokens (the reading model's) allowed for the hint ps selection hands the "
                              "solver. Default: 18% of the solver model's context (models.yaml), at most "
                              "3000 for a context of 32k or less."),
            click.option("--use-prior", is_flag=True,
                         help="ps, oe: order what the select model is shown by each item's recorded use (offered "
                              "to tasks that passed their train pairs, a method's helpful/harmful verdicts; never "
                              "test results). Sets the method option use_prior."),
            click.option("--failure-lessons", type=click.Choice(["include", "exclude"]), default=None,
                         help="ps, oe: show the lessons learned from failed tasks (include, the default when there "
                              "are any) or leave them out. Sets the method option failure_lessons."),
        ]):
            fn = option(fn)
        return fn
    return decorate


def flag_options(**flags: object) -> dict:
    """The method options the flags for them set (`--use-prior`, `--failure-lessons`,
    `--learn-from-failures`): those given, by option name; an unset flag sets nothing."""
    return {name: value for name, value in flags.items() if value not in (None, False)}
