"""`arcmemo quickstart`: a few small puzzles solved with memory and without, side by side."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import click

from arcmemo.cli.common import AtLeast, db_option, model_flags, role_model_options, run_dir_option, warn
from arcmemo.core.table import counted


@click.command()
@click.option("--tasks", multiple=True, metavar="IDS|FILE",
              help="Other ARC-AGI-1 puzzles than the default two (ids, comma- or space-separated, or a file of "
                   "ids; may be repeated). Keep them few and small: each side asks the model once per puzzle.")
@click.option("--max-tokens", type=AtLeast(64), default=None,
              help="Completion token limit per solver call (default 768: the embedded model writes about 7 "
                   "a second on a quiet 2-core CPU).")
@click.option("--no-cache", is_flag=True, help="Ask the model again even for requests already answered.")
@click.option("--quiet", "-q", is_flag=True, help="No progress display (the results are still printed).")
@run_dir_option
@role_model_options
@db_option
def quickstart(tasks, max_tokens, no_cache, quiet, run_dir, db, **models) -> None:
    """Solve two small puzzles with memory and without, and show what memory changed.

    Two ordinary solve runs over puzzles that are not among the seeds: one with memory (the
    default: ps selection, helpers, the probe, its fits as answers), one without (--selection
    none), each with one attempt, no retry and a short answer. Then both runs side by side,
    per puzzle what each side got and why (an answer made by memory's verified helper call is
    labelled so), and the commands to look at them. With the embedded model on a 2-core CPU it
    makes six model calls: minutes on a quiet machine, 40 minutes measured on a busy one (the
    README gives the times and loads); seconds with an endpoint (--base-url, --solver-model).
    """
    from arcmemo.cli.runplan import task_ids as read_task_ids
    from arcmemo.cli.solve import EXIT_LOST, _run
    from arcmemo.core.settings import Settings
    from arcmemo.run.jobs.quickstart import QUICKSTART_TASKS, SIDES, quickstart_config
    from arcmemo.run.warmup import warm_up

    settings = Settings.load(db=db, runs_dir=run_dir)
    warm_up(settings)       # the sandbox's first worker and the model client's library, while the run layer loads
    from arcmemo.run.progress.reporter import make_reporter
    from arcmemo.run.session import Scale, open_session, resolve_models

    task_ids = read_task_ids(tasks) or list(QUICKSTART_TASKS)
    source = "all" if tasks else "training"      # ids of the user's own are looked up in both splits
    quick = {"source": source, **({"max_tokens": max_tokens} if max_tokens else {})}
    configs = [(label, quickstart_config(selection, task_ids, **quick)) for label, selection in SIDES]
    models = resolve_models(model_flags({**models, "no_cache": no_cache}))
    started = time.monotonic()
    runners = []
    with open_session(settings, reporter=make_reporter(quiet=quiet)) as session:
        for number, (label, config) in enumerate(configs, 1):
            click.echo(f"[{number}/{len(configs)}] {counted(len(task_ids), 'puzzle')} {label} (--selection {config.selection})",
                       err=True)
            runner = session.new_solve(config, models, Scale(tasks_in_flight=len(task_ids)))
            runners.append((runner, _run(session, runner, resumed=False)))
    click.echo(_report(runners, task_ids, settings, time.monotonic() - started))
    lost = [r.rundir.run_id for r, summary in runners if summary.get("tasks_lost")]
    if lost:
        warn(f"run(s) {', '.join(lost)} lost puzzles to endpoint errors; `arcmemo solve --resume RUN` retries them")
        sys.exit(EXIT_LOST)


def _report(runners, task_ids: list[str], settings, seconds: float) -> str:
    """Both runs side by side (the `runs compare` table), each puzzle's results and why, and the
    commands to look further."""
    from arcmemo.core.table import fit_text
    from arcmemo.run.jobs.quickstart import conclusion, puzzle_results, results_text
    from arcmemo.run.records.reader import read_run
    from arcmemo.run.records.report import compare_table

    records = [read_run(runner.rundir) for runner, _ in runners]
    (mine, plain) = [(record.latest, summary) for record, (_, summary) in zip(records, runners)]
    results = puzzle_results(task_ids, mine, plain)
    ids = tuple(record.run_id for record in records)
    lines = ["", compare_table([(record.recorded, summary) for record, (_, summary) in zip(records, runners)]), "",
             results_text(results, ids), "", conclusion(results), _cache_note(runners),
             f"Both runs took {seconds:.0f} s.", "", "Look at them:", *_commands(ids, task_ids, settings)]
    return fit_text("\n".join(line for line in lines if line is not None))


def _cache_note(runners) -> str | None:
    """Say so when answers came from the call log rather than from the model (a second quick start)."""
    usage = [summary.get("usage", {}) for _, summary in runners]
    calls, hits = sum(u.get("calls", 0) for u in usage), sum(u.get("cache_hits", 0) for u in usage)
    if not hits:
        return None
    return (f"{hits} of {counted(calls, 'model answer')} came from the call log (asked before, answered the same way); "
            "--no-cache asks the model again.")


def _commands(run_ids: tuple[str, str], task_ids: list[str], settings) -> list[str]:
    """The commands that show the two runs, with --run-dir (--runs, --db) when they are not the defaults."""
    from arcmemo.core.settings import DEFAULT_RUNS_DIR
    from arcmemo.core.table import terminal_width

    runs = shlex.quote(str(settings.runs_dir))
    runs_flag = f" --run-dir {runs}" if settings.origin("runs_dir").startswith("flag") else ""
    serve = "arcmemo serve" + ("" if Path(settings.runs_dir).resolve() == Path(DEFAULT_RUNS_DIR).resolve()
                               else f" --runs {runs}")        # serve reads --runs alone, not the setting
    if settings.origin("db").startswith("flag"):
        serve += f" --db {shlex.quote(str(settings.db))}"
    first = task_ids[0]
    rows = [(f"arcmemo runs compare {run_ids[0]} {run_ids[1]}{runs_flag}", "the two runs side by side"),
            (f"arcmemo runs show {run_ids[0]} --task {first}{runs_flag}",
             "each attempt at a puzzle beside the expected output"),
            (f"arcmemo runs selections {run_ids[0]} --task {first} --reasoning{runs_flag}",
             "what memory offered the puzzle, and why"),
            (serve, "both runs, the puzzles and the memory in a browser")]
    width = max(len(command) for command, _ in rows)
    if width + max(len(what) for _, what in rows) + 7 > (terminal_width() or sys.maxsize):
        return [line for command, what in rows for line in (f"  # {what}", f"  {command}")]    # stacked: too wide
    return [f"  {command.ljust(width)}   # {what}" for command, what in rows]


COMMANDS = [quickstart]
