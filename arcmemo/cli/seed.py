"""`arcmemo seed DIR`: verify seed solutions and ingest them into memory (logic: arcmemo.run.seeding)."""

from __future__ import annotations

from pathlib import Path

import click

from arcmemo.cli.common import db_option, task_source, task_source_options, user_errors


@click.command("seed")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["ps", "oe", "both"]), default="both", show_default=True,
              help="Which memory format to write.")
@click.option("--model", default=None,
              help="Aux model for seeds without a hand annotation (default: ARCMEMO_AUX_MODEL or config "
                   "aux_model; with none, those seeds are skipped).")
@click.option("--lib", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="BARC helper module that seeds import with `from common import *`.")
@click.option("--transpose", is_flag=True, help="Seeds index grids [x, y] (BARC): transpose in and out.")
@click.option("--check", is_flag=True, help="Only verify the seeds and report; write nothing.")
@task_source_options
@click.option("--tasks", "tasks_compat", default=None, hidden=True,
              help="Older spelling of --split / --tasks-from.")
@click.option("--annotations-only", is_flag=True,
              help="Use hand annotations only, never a model (how the default memory.db is built).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@db_option
@user_errors
def seed(directory, fmt, model, lib, transpose, check, dataset, split, tasks_from, solutions, tasks_compat,
         annotations_only, no_progress, db):
    """Verify every seed in DIRECTORY against all pairs of its task, then ingest it.

    Hand annotations (<task_id>.yaml) enter memory as they are; other seeds are
    abstracted by the model. Running it again adds nothing. The seeds' tasks are looked
    up in --split (default training) of --dataset, or in --tasks-from.
    """
    from arcmemo.run.seeding import SeedOptions, run_seed

    tasks = task_source(dataset, split or tasks_compat, tasks_from, solutions)
    options = SeedOptions(directory=directory, format=fmt, model=model, lib=lib, transpose=transpose,
                          check=check, db=db, tasks=tasks, solutions=solutions, annotations_only=annotations_only)
    summary = run_seed(options, report=_report, progress=not no_progress)
    rows = summary.rows(check=check)
    width = max(len(k) for k, _ in rows)
    click.echo(("check only, nothing written\n" if check else ""), nl=False)
    for key, value in rows:
        click.echo(f"{key:<{width}}  {value:>10}")


def _report(message: str) -> None:
    from tqdm import tqdm

    tqdm.write(message, file=click.get_text_stream("stderr"))


COMMANDS = [seed]
