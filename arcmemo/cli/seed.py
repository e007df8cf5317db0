"""`arcmemo seed DIR`: verify seed solutions and ingest them into memory (logic: arcmemo.run.jobs.seeding)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arcmemo.cli.common import (
    AtLeast,
    db_option,
    prompts_option,
    run_dir_option,
    task_source,
    task_source_options,
    warn,
)
from arcmemo.cli.selection_options import MethodChoice


@click.command("seed")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["ps", "oe", "both"]), default="both", show_default=True,
              help="Which memory format to write.")
@click.option("--model", default=None,
              help="Aux model for seeds without a hand annotation (default: ARCMEMO_AUX_MODEL or config "
                   "aux_model; with none, those seeds are skipped).")
@click.option("--lib", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="BARC helper module that seeds import with `from common import *`.")
@click.option("--transpose", is_flag=True, help="Seeds index grids [x, y] (BARC): transpose in and out.")
@click.option("--check", is_flag=True, help="Only verify the seeds and report; write nothing (no run directory).")
@task_source_options
@click.option("--tasks", "tasks_compat", default=None, hidden=True,
              help="Older spelling of --split / --tasks-from.")
@click.option("--method", "method", type=MethodChoice(), default=None,
              help="The memory method whose items the seeds become, through its own write (ACE's reflector and "
                   "curator, ReasoningBank's extraction, ...); ps and oe (and all) take ArcMemo's path (--format).")
@click.option("--limit", type=AtLeast(1), default=None, help="Seed from the first N verified seeds only.")
@click.option("--annotations-only", is_flag=True,
              help="Use hand annotations only, never a model (how the default memory.db is built).")
@click.option("--quiet", "-q", "--no-progress", "quiet", is_flag=True,
              help="No progress display (problems are still printed).")
@run_dir_option
@prompts_option
@db_option
def seed(directory, fmt, model, lib, transpose, check, dataset, split, tasks_from, solutions, tasks_compat,
         method, limit, annotations_only, quiet, run_dir, prompts_dir, db):
    """Verify every seed in DIRECTORY against all pairs of its task, then ingest it.

    Hand annotations (<task_id>.yaml) enter memory as they are; other seeds are
    abstracted by the model. With --method NAME the seeds become that memory method's
    starting items through its own write (`--method ace`: a playbook from ACE's reflector and
    curator); ps and oe take ArcMemo's path. Running it again adds nothing. Exit code 1 when any seed
    failed verification or could not be written (so `--check` works as a CI check);
    seeds skipped for want of a model do not count as failures. The seeds' tasks are looked
    up in --split (default training) of --dataset, or in --tasks-from.
    """
    from arcmemo.core.settings import Settings
    from arcmemo.core.table import counted, table
    from arcmemo.run.jobs.seeding import SeedOptions, run_seed
    from arcmemo.run.progress.reporter import make_reporter
    from arcmemo.run.session import open_session

    settings = Settings.load(db=db, runs_dir=run_dir, prompts_dir=prompts_dir)
    tasks = task_source(dataset, split or tasks_compat, tasks_from, solutions)
    options = SeedOptions(directory=directory, format=fmt, model=model, lib=lib, transpose=transpose,
                          check=check, tasks=tasks, solutions=solutions, annotations_only=annotations_only,
                          method=method, limit=limit)
    with open_session(settings, reporter=make_reporter(quiet=quiet)) as session:
        session.use_prompts(settings.prompts_dir, settings.grid_text)
        try:
            summary = run_seed(options, session)
        except KeyboardInterrupt:
            session.reporter.close()
            warn("interrupted: what was written is recorded; run the same `arcmemo seed` command again to "
                 "continue (seeds already ingested are skipped)")
            sys.exit(130)
    title = "seed check (nothing written)" if check else f"seed run {summary.run_id}"
    click.echo(table(summary.rows(check=check), (title, "")))
    if not summary.ok:
        warn(f"{counted(summary.failed, 'seed')} failed verification, {summary.write_failures} could not be written "
             "(see the messages above)")
        sys.exit(1)


COMMANDS = [seed]
