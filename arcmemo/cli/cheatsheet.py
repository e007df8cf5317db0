"""`arcmemo cheatsheet build DIR`: the paper's cheatsheet baseline, curated once from seed solutions
(logic: arcmemo.run.jobs.curating)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arcmemo.cli.common import (
    AtLeast,
    db_option,
    grid_text_option,
    model_flags,
    model_options,
    prompts_option,
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
@click.option("--name", default=None, metavar="NAME",
              help="The sheet's name: a memory holds any number of sheets, and a run reads the one its "
                   "--method-option sheet=NAME names (default: cheatsheet; cheatsheet-released with --released).")
@click.option("--max-words", type=AtLeast(50), default=None,
              help="The sheet's length the curator is asked to keep to (default 1500; 2000 with --released).")
@click.option("--released", is_flag=True,
              help="As the paper's released code built it: the curator's answers up to 4,096 tokens "
                   "(--aux-max-tokens) at temperature 0.3 (--aux-temperature), a sheet of about 2,000 words, grids "
                   "as numpy arrays (--grid-text), kept as the sheet cheatsheet-released (--name); flags given "
                   "win. Give it BARC's seed folder, as the authors did.")
@click.option("--lib", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="BARC helper module that seeds import with `from common import *`.")
@click.option("--transpose", is_flag=True, help="Seeds index grids [x, y] (BARC): transpose in and out.")
@task_source_options
@click.option("--quiet", "-q", is_flag=True, help="No progress display (problems are still printed).")
@run_dir_option
@prompts_option
@grid_text_option
@model_options
@db_option
def build(directory, again, name, max_words, released, lib, transpose, dataset, split, tasks_from, solutions, quiet, run_dir,
          prompts_dir, grid_text, db, **models):
    """Curate the cheatsheet from the seed solutions in DIRECTORY, once.

    Every seed is verified against all pairs of its task first (as `arcmemo seed` does);
    then the curator (the aux model, e.g. --aux-model gpt-4.1) rewrites the sheet after
    each seed, in file order. Every rewrite is a revision of the memory's sheet named
    --name (default `cheatsheet`; `cheatsheet-released` with --released). `arcmemo solve
    --selection cheatsheet --method-option sheet=NAME` shows it, frozen unless --continual.
    BARC's seed folder: --lib common.py --transpose (as `arcmemo seed`).

    A rewrite takes tens of minutes on the embedded model: with no endpoint configured the
    build says how long it would take and starts only with the model named (--aux-model local).
    Exit code 1 when a seed failed verification or a rewrite could not be used.
    """
    from arcmemo.core.settings import Settings
    from arcmemo.core.table import counted, table
    from arcmemo.methods.dynamic_cheatsheet.cumulative import SHEET_NAME
    from arcmemo.run.jobs.curating import DEFAULT_MAX_WORDS, RELEASED, CheatsheetOptions, build_cheatsheet
    from arcmemo.run.progress.reporter import make_reporter
    from arcmemo.run.session import open_session, resolve_models

    if name is not None and not name.strip():
        raise click.BadParameter("a sheet's name cannot be blank", param_hint="--name")
    if released:
        grid_text = grid_text or RELEASED["grid_text"]
        max_words = max_words or RELEASED["max_words"]
        name = name or RELEASED["name"]
        for key in ("aux_max_tokens", "aux_temperature"):
            models[key] = RELEASED[key] if models[key] is None else models[key]
    settings = Settings.load(db=db, runs_dir=run_dir, prompts_dir=prompts_dir, grid_text=grid_text)
    options = CheatsheetOptions(directory=directory, tasks=task_source(dataset, split, tasks_from, solutions),
                                solutions=solutions, lib=lib, transpose=transpose, again=again,
                                max_words=max_words or DEFAULT_MAX_WORDS, name=(name or SHEET_NAME).strip())
    models_settings = resolve_models(model_flags(models))
    with open_session(settings, reporter=make_reporter(quiet=quiet)) as session:
        session.use_prompts(settings.prompts_dir, settings.grid_text)
        try:
            summary = build_cheatsheet(options, session, models_settings)
        except KeyboardInterrupt:
            session.reporter.close()
            warn("interrupted: the rewrites made so far are in the memory; continue with --again")
            sys.exit(130)
    click.echo(table(summary.rows(), (f"cheatsheet build {summary.run_id}", "")))
    if not summary.ok:
        warn(f"{counted(summary.failed, 'seed')} failed verification, {counted(summary.write_failures, 'rewrite')} could not be "
             "used (see the messages above)")
        sys.exit(1)


COMMANDS = [cheatsheet]
