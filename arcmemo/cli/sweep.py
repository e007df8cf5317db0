"""`arcmemo sweep CONFIG.yaml`: a grid of solve runs, then the `runs compare` table of them all."""

from __future__ import annotations

import click

from arcmemo.cli.common import db_option, prompts_option, run_dir_option


@click.command()
@click.argument("config_file", metavar="CONFIG.yaml")
@db_option
@run_dir_option
@click.option("--quiet", "-q", is_flag=True, help="No progress display (problems are still printed).")
@prompts_option
def sweep(config_file, db, run_dir, quiet, prompts_dir) -> None:
    """Run a grid of solve configurations (settings x models x repeats) and compare them.

    The file's format is in arcmemo/run/jobs/sweep.py (and the README). Each member is an
    ordinary run directory, resumable on its own; running the same sweep again skips the
    finished members and resumes the stopped ones. --db is the memory every member starts
    from, unless the file names one (members that write memory start from their own copy).
    --prompts is the templates of every member whose settings name none (`prompts_dir`, which
    a grid may vary); every member's are checked before the first run starts.
    """
    from arcmemo.core.settings import Settings
    from arcmemo.run.jobs.sweep import load_sweep, member_memory, read_record, sweep_table, write_record
    from arcmemo.run.progress.reporter import make_reporter
    from arcmemo.run.records.rundir import FINISHED, STOPPED, RunDir
    from arcmemo.run.session import open_session, resolve_models

    settings = Settings.load(db=db, runs_dir=run_dir, prompts_dir=prompts_dir)
    plan = load_sweep(config_file)
    _check_prompts(plan, settings.prompts_dir)
    start = plan.memory or settings.db
    record = read_record(settings.runs_dir, plan.name)
    for number, member in enumerate(plan.members, 1):
        member_settings = Settings.load(db=member_memory(start, settings.runs_dir, plan.name, member),
                                        runs_dir=settings.runs_dir)
        flags = dict(member.models)
        run_id = record.get(member.key)
        state = RunDir(f"{settings.runs_dir}/{run_id}").status()["status"] if run_id else None
        click.echo(f"[sweep {number}/{len(plan.members)}] {member.key}: "
                   f"{'run ' + run_id + ' ' + state if run_id else 'new run'}", err=True)
        if state in (FINISHED, STOPPED):
            continue
        with open_session(member_settings, reporter=make_reporter(quiet=quiet)) as session:
            if run_id:
                runner = session.resume_solve(run_id, flags, plan.scale)
            else:
                runner = session.new_solve(member.config, resolve_models(flags), plan.scale)
                record[member.key] = runner.rundir.run_id
                write_record(settings.runs_dir, plan.name, record)
            session.run(runner, resumed=bool(run_id))
    runs = [RunDir.find(record[m.key], settings.runs_dir) for m in plan.members]
    click.echo(sweep_table(runs))


def _check_prompts(plan, default_dir) -> None:
    """Give members without their own templates the `prompts_dir` setting's, every directory as an
    absolute path, and check them all now (PromptError before any member runs)."""
    import dataclasses
    from pathlib import Path

    from arcmemo.run.prompting import PromptSetup

    for member in plan.members:
        chosen = member.config.prompts_dir or default_dir
        if chosen:
            member.config = dataclasses.replace(member.config, prompts_dir=str(Path(chosen).expanduser().resolve()))
    for prompts, grid_text in sorted({(m.config.prompts_dir or "", m.config.grid_text) for m in plan.members}):
        PromptSetup(prompts or None, grid_text)


COMMANDS = [sweep]
