"""`arcmemo cheatsheet build DIR`: the paper's cheatsheet baseline, curated once from seed solutions
(logic: arcmemo.run.curating)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arcmemo.cli.common import (
    AtLeast,
    db_option,
    model_flags,
    model_options,
    run_dir_option,
    task_source,
    task_source_options,
    warn,
)


@click.group("cheatsheet")
def cheatsheet() -> None:
    """The cheatsheet baseline (Dynamic Cheatsheet, cumulative): one evolving text as memory."""


@cheatsheet.command("build")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--again", is_flag=True, help="Curate a sheet the memory already holds further (default: refuse).")
@click.option("--max-words", type=AtLeast(50), default=1500, show_default=True,
              help="The sheet's length the curator is asked to keep to.")
@click.option("--lib", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="BARC helper module that seeds import with `from common import *`.")
@click.option("--transpose", is_flag=True, help="Seeds index grids [x, y] (BARC): transpose in and out.")
@task_source_options
@click.option("--quiet", "-q", is_flag=True, help="No progress display (problems are still printed).")
@run_dir_option
@model_options
@db_option
def build(directory, again, max_words, lib, transpose, dataset, split, tasks_from, solutions, quiet, run_dir, db,
          **models):
    """Curate the cheatsheet from the seed solutions in DIRECTORY, once.

    Every seed is verified against all pairs of its task first (as `arcmemo seed` does);
    then the curator (the aux model, e.g. --aux-model gpt-4.1) rewrites the sheet after
    each seed, in file order. Every rewrite is a revision of the memory's `cheatsheet`
    item. `arcmemo solve --selection cheatsheet` shows it, frozen unless --continual.
    Exit code 1 when a seed failed verification or a rewrite could not be used.
    """
    from arcmemo.core.settings import Settings
    from arcmemo.core.table import table
    from arcmemo.run.curating import CheatsheetOptions, build_cheatsheet
    from arcmemo.run.progress import make_reporter
    from arcmemo.run.session import open_session, resolve_models

    settings = Settings.load(db=db, runs_dir=run_dir)
    options = CheatsheetOptions(directory=directory, tasks=task_source(dataset, split, tasks_from, solutions),
                                solutions=solutions, lib=lib, transpose=transpose, again=again, max_words=max_words)
    models_settings = resolve_models(model_flags(models))
    with open_session(settings, reporter=make_reporter(quiet=quiet)) as session:
        try:
            summary = build_cheatsheet(options, session, models_settings)
        except KeyboardInterrupt:
            session.reporter.close()
            warn("interrupted: the rewrites made so far are in the memory; continue with --again")
            sys.exit(130)
    click.echo(table(summary.rows(), (f"cheatsheet build {summary.run_id}", "")))
    if not summary.ok:
        warn(f"{summary.failed} seed(s) failed verification, {summary.write_failures} rewrite(s) could not be "
             "used (see the messages above)")
        sys.exit(1)


COMMANDS = [cheatsheet]
