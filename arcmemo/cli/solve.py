"""`arcmemo solve`: solve puzzles with memory, optionally growing it (the paper's Algorithm 1)."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import traceback
from collections.abc import Iterator

import click

from arcmemo.cli.common import UserError, as_user_error, warn
from arcmemo.cli.runplan.configfile import shipped_configs
from arcmemo.cli.runplan.headings import GroupedCommand
from arcmemo.cli.runplan.options import solve_options
from arcmemo.core.table import counted

EXIT_LOST = 3          # finished, but some tasks were lost to endpoint errors: --resume retries them
EXIT_INTERRUPTED = 130  # Ctrl-C


@click.command(cls=GroupedCommand, epilog="Shipped run configurations (--config NAME): "
               + ", ".join(shipped_configs()) + ".")
@solve_options
def solve(**params) -> None:
    """Solve ARC puzzles with memory; with --continual, grow it from verified solves.

    --config takes the options from a run configuration file (the paper's settings ship as
    baseline, cheatsheet, arcmemo-oe, arcmemo-ps, arcmemo-oe-continual, each also as
    NAME-released: the released code's protocol); flags win over it.

    --protocol picks arcmemo's clean protocol (the default) or the released code's; each
    of its choices has a flag of its own, which overrides the named one.

    With no endpoint configured this uses the embedded offline model (slow on a CPU:
    try --limit 1). Every run gets a directory under --run-dir with its config, events,
    selections, submissions, status and summary; `arcmemo runs show RUN` prints it again.
    Without --continual the memory is only read: its file stays as it was.

    Exit codes: 0 finished (or stopped at --budget-usd), 1 an error (the message says
    which; a run it stopped can be resumed), 2 bad usage, 3 finished but some tasks
    were lost to endpoint errors (`--resume` retries them), 130 interrupted (Ctrl-C or SIGTERM).
    """
    from arcmemo.cli.runplan import from_command_line, models_of, run_config, settings_of
    from arcmemo.cli.runplan.protocol import FLAGGED
    from arcmemo.run.warmup import warm_up

    p = params
    # Everything is checked before the session opens: a bad flag or setting fails before any
    # memory, run directory or model exists.
    if p["ray_address"] and p["executor"] != "ray":
        raise click.UsageError("--ray-address needs --executor ray")
    if p["consolidate_every"] and not p["continual"] and not p["resume"]:
        raise click.UsageError("--consolidate-every needs --continual (a read-only run writes no memory)")
    settings = settings_of(p)
    warm_up(settings)       # the sandbox's first worker and the model client's library, while the run layer loads
    from arcmemo.run.progress.reporter import make_reporter
    from arcmemo.run.session import Scale, open_session, resolve_models

    scale = Scale(tasks_in_flight=p["tasks_in_flight"], executor=p["executor"], ray_address=p["ray_address"])
    flags = models_of(p)
    config = models_settings = None
    resume = p["resume"]
    if resume and (p["config_file"] or p["prompts_dir"] or p["grid_text"]):
        raise click.UsageError("--resume continues a run with its recorded settings (its prompts too): leave out "
                               "--config, --prompts and --grid-text")
    if resume and (p["protocol"] is not None or any(p[choice] is not None for choice in FLAGGED)):
        raise click.UsageError("--resume keeps the run's recorded protocol: leave out --protocol and its choices")
    if not resume:
        config = run_config(p, settings, from_command_line=from_command_line(click.get_current_context()))
        models_settings = resolve_models(flags)
    with open_session(settings, reporter=make_reporter(quiet=p["quiet"]),
                      require_isolation=p["require_isolation"]) as session:
        runner = (session.resume_solve(resume, flags, scale) if resume else
                  session.new_solve(config, models_settings, scale))
        summary = _run(session, runner, resumed=bool(resume))
    from arcmemo.run.records.report import summary_table

    click.echo(summary_table(summary, runner.recorded))
    click.echo(f"run directory: {runner.rundir.path}")
    if summary.get("tasks_lost"):
        warn(f"{counted(len(summary['tasks_lost']), 'task')} not attempted because the endpoint failed; "
             f"retry them with: {_resume(session, runner)}")
        sys.exit(EXIT_LOST)


def _resume(session, runner) -> str:
    from arcmemo.run.session import resume_command

    return resume_command(runner.rundir, session.settings)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM (`kill`, a batch scheduler's time limit) stops a run as Ctrl-C does: recorded as
    interrupted, with the command that continues it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(session, runner, *, resumed: bool) -> dict:
    """Run to the end; on Ctrl-C, SIGTERM or any failure, say which run stopped and how to continue it."""
    try:
        with _sigterm_as_ctrl_c():
            return session.run(runner, resumed=resumed)
    except KeyboardInterrupt:
        session.reporter.close()
        warn(f"interrupted: run {runner.rundir.run_id} is recorded in {runner.rundir.path}; continue it with:\n"
             f"  {_resume(session, runner)}")
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:
        session.reporter.close()
        error = as_user_error(exc)
        hint = f"run {runner.rundir.run_id} stopped; after fixing this, continue it with: {_resume(session, runner)}"
        if error is not None:
            raise UserError(f"{error.message}\n{hint}") from None
        traceback.print_exc()              # a bug: its traceback, then how to go on
        warn(hint)
        sys.exit(1)


COMMANDS = [solve]
