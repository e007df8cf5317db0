"""`arcmemo sweep SWEEP [-- SOLVE_OPTIONS]`: a grid (or rows) of solve runs, then the `runs compare`
table of them all, and a sweep that names its paper (table4) its table beside the published one."""

from __future__ import annotations

import dataclasses

import click

from arcmemo.cli.common import FloatAtLeast, db_option, prompts_option, run_dir_option, warn
from arcmemo.cli.runplan.headings import GroupedCommand, grouped
from arcmemo.core.table import counted


def _profiles() -> list[str]:
    from arcmemo.run.protocol import PROFILES

    return list(PROFILES)


@click.command(cls=GroupedCommand)
@click.argument("config_file", metavar="SWEEP")
@click.argument("solve_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- SOLVE_OPTIONS...]")
@grouped({
    "What to run": [
        click.option("--protocol", type=click.Choice(_profiles()), default=None,
                     help="A sweep of rows: each row's configuration for this protocol (released-code: "
                          "NAME-released)."),
        click.option("--estimate", "estimate_only", is_flag=True, help="Say what the sweep would cost, then stop."),
    ],
    "Memory and prompts": [db_option, prompts_option],
    "Run and output": [
        run_dir_option,
        click.option("--budget-usd", type=FloatAtLeast(0, open=True), default=None,
                     help="Stop before the sweep's runs together spend more than this; run it again to go on."),
        click.option("--quiet", "-q", is_flag=True, help="No progress display (problems are still printed)."),
    ],
})
def sweep(config_file, solve_args, db, run_dir, protocol, budget_usd, estimate_only, quiet, prompts_dir) -> None:
    """Run a grid of solve configurations (settings x models x repeats) and compare them.

    SWEEP is a sweep file or a shipped sweep: `table4` runs the paper's Table 4 (baseline,
    cheatsheet, ArcMemo-OE, ArcMemo-PS; 3 repeats each) and ends with its numbers beside the
    paper's. The file's format is in arcmemo/run/jobs/sweep.py (and docs/commands.md, Sweeps): its keys are
    a run configuration's (solve's options). Solve options after `--` are given to every
    member, over the file's (`-- --limit 10 --base-url URL`).

    The sweep says what it will cost before it starts (an estimate: run/progress/cost.py).
    Each member is an ordinary run directory, resumable on its own; running the same sweep
    again skips the finished members and resumes the others (one stopped at --budget-usd
    too). Repeat r of a member asks the model afresh (`solve --repeat`). --db is the memory
    every member starts from, over the file's and its rows' (members that write memory start
    from their own copy). --prompts is the templates of every member whose settings name none;
    every member's are checked before the first run starts.
    """
    from arcmemo.core.settings import Settings
    from arcmemo.run.jobs.sweep import read_record, sweep_file

    settings = Settings.load(db=db, runs_dir=run_dir, prompts_dir=prompts_dir)
    path = sweep_file(config_file)
    plan = load_plan(path, protocol=protocol, solve_args=solve_args)
    _check_prompts(plan, settings.prompts_dir)
    record = read_record(settings.runs_dir, plan.name)
    click.echo(_estimate(plan, record, settings, budget_usd), err=True)
    if estimate_only:
        return
    stopped = _run_members(plan, record, settings, budget_usd, quiet, flag_db=db)
    _closing(plan, record, settings)
    if stopped:
        warn(stopped)


def load_plan(path, *, protocol: str | None = None, solve_args: tuple[str, ...] = ()):
    """The sweep in file `path`, each member planned as `arcmemo solve` plans its run: a row as
    `solve --config NAME SOLVE_ARGS`, a grid point as its options (a run configuration's keys,
    checked by the same check) with SOLVE_ARGS over them."""
    from arcmemo.cli.runplan import planned_point, planned_run
    from arcmemo.cli.runplan.configfile import ConfigFileError
    from arcmemo.run.jobs.sweep import PlannedRow, SweepError, load_sweep

    def planned(make) -> PlannedRow:
        try:
            run = make()
        except click.ClickException as exc:     # a bad key or value: SweepError names the file and where
            raise SweepError(exc.message if isinstance(exc, ConfigFileError) else exc.format_message()) from None
        return PlannedRow(config=run.config, models=run.models, db=run.db)

    return load_sweep(path, protocol=protocol,
                      plan=lambda name: planned(lambda: planned_run(["--config", name, *solve_args])),
                      plan_point=lambda values, where: planned(lambda: planned_point(values, where, solve_args)))


def _state(settings, run_id: str | None) -> str | None:
    from arcmemo.run.records.rundir import RunDir

    return RunDir(f"{settings.runs_dir}/{run_id}").status()["status"] if run_id else None


def _spent(record: dict[str, str], settings, but: str | None = None) -> float:
    """What the sweep's runs have spent so far (all but member `but`), from their records."""
    from arcmemo.run.records.reader import read_run
    from arcmemo.run.records.rundir import RunDir

    total = 0.0
    for key, run_id in record.items():
        if key != but:
            summary = read_run(RunDir(f"{settings.runs_dir}/{run_id}")).summary or {}
            total += float((summary.get("usage") or {}).get("cost_usd") or 0)
    return total


def _estimate(plan, record: dict[str, str], settings, budget_usd: float | None) -> str:
    """What the members still to run will cost (run/progress/cost.py), and what was spent."""
    from arcmemo.run.config import load_run_tasks
    from arcmemo.run.loop import order_tasks
    from arcmemo.run.progress.cost import run_cost, total
    from arcmemo.run.records.rundir import FINISHED
    from arcmemo.run.session import resolve_models

    todo = [m for m in plan.members if _state(settings, record.get(m.key)) != FINISHED]
    tasks: dict[tuple, list] = {}
    costs = []
    for member in todo:
        c = member.config
        key = (c.source, tuple(c.task_ids or ()), c.solutions, c.limit, c.order, c.seed)
        if key not in tasks:
            tasks[key] = order_tasks(load_run_tasks(c), c)
        costs.append(run_cost(c, resolve_models(dict(member.models)), tasks[key]))
    cost = total(costs)
    spent = _spent(record, settings)
    line = (f"sweep {plan.name}: {len(todo)} of {counted(len(plan.members), 'run')} to go; estimate: {cost.text()}"
            + (f"; spent so far ${spent:,.4f}" if record else ""))
    if budget_usd is not None:
        line += f"; --budget-usd {budget_usd:g} stops it before more is spent"
    return line


def _run_members(plan, record: dict[str, str], settings, budget_usd: float | None, quiet: bool,
                 flag_db: str | None) -> str | None:
    """Run (or resume) every member not finished, in order, within the budget; why it stopped
    (None: every member ran)."""
    from arcmemo.core.settings import Settings
    from arcmemo.run.jobs.sweep import member_memory, write_record
    from arcmemo.run.progress.reporter import make_reporter
    from arcmemo.run.records.rundir import FINISHED
    from arcmemo.run.session import open_session, resolve_models

    for number, member in enumerate(plan.members, 1):
        run_id = record.get(member.key)
        state = _state(settings, run_id)
        click.echo(f"[sweep {number}/{len(plan.members)}] {member.key}: "
                   f"{'run ' + run_id + ' ' + state if run_id else 'new run'}", err=True)
        if state == FINISHED:
            continue
        budget = _member_budget(member.config.budget_usd, budget_usd, _spent(record, settings, but=member.key))
        if budget is not None and budget <= 0:
            return (f"stopped at --budget-usd {budget_usd:g}: the sweep's runs spent ${_spent(record, settings):,.4f}; "
                    "run the same command with a larger --budget-usd to go on")
        start = flag_db or member.memory or plan.memory or settings.db
        member_settings = Settings.load(db=member_memory(start, settings.runs_dir, plan.name, member),
                                        runs_dir=settings.runs_dir)
        flags = dict(member.models)
        with open_session(member_settings, reporter=make_reporter(quiet=quiet)) as session:
            if run_id:
                runner = session.resume_solve(run_id, flags, plan.scale)
                runner.config = dataclasses.replace(runner.config, budget_usd=budget)
            else:
                config = dataclasses.replace(member.config, budget_usd=budget)
                runner = session.new_solve(config, resolve_models(flags), plan.scale)
                record[member.key] = runner.rundir.run_id
                write_record(settings.runs_dir, plan.name, record)
            summary = session.run(runner, resumed=bool(run_id))
        if summary.get("stopped") == "budget" and budget_usd is not None:
            return (f"stopped at --budget-usd {budget_usd:g} in {member.key} (run {runner.rundir.run_id}): the sweep's "
                    f"runs spent ${_spent(record, settings):,.4f}; run the same command with a larger --budget-usd "
                    "to go on")
    return None


def _member_budget(own: float | None, sweep_budget: float | None, spent_by_others: float) -> float | None:
    """A member's budget: its own, within what the sweep's budget leaves it."""
    if sweep_budget is None:
        return own
    left = sweep_budget - spent_by_others
    return left if own is None else min(own, left)


def _closing(plan, record: dict[str, str], settings) -> None:
    """The members side by side, then (a sweep naming its paper) its table beside the paper's."""
    from arcmemo.core.table import fit_text
    from arcmemo.run.jobs.sweep import sweep_table
    from arcmemo.run.records.rundir import RunDir

    runs = [RunDir.find(record[m.key], settings.runs_dir) for m in plan.members if m.key in record]
    if runs:
        click.echo(sweep_table(runs))
    if plan.paper is not None:
        click.echo()
        click.echo(fit_text(_paper_table(plan, record, settings)))


def _paper_table(plan, record: dict[str, str], settings) -> str:
    from arcmemo.run.jobs.table4 import cells, comparison_text, load_paper
    from arcmemo.run.records.rundir import FINISHED, RunDir

    rows: dict[str, list[dict]] = {}
    for member in plan.members:
        run_id = record.get(member.key)
        rows.setdefault(member.row or member.key.split("#")[0], [])
        if run_id and _state(settings, run_id) == FINISHED:
            summary = RunDir(f"{settings.runs_dir}/{run_id}").summary()
            if summary is not None:
                rows[member.row or member.key.split("#")[0]].append(summary)
    paper = load_paper(plan.paper)
    return comparison_text(cells(rows, paper), paper)


def _check_prompts(plan, default_dir) -> None:
    """Give members without their own templates the `prompts_dir` setting's, every directory as an
    absolute path, and check them all now (PromptError before any member runs)."""
    from pathlib import Path

    from arcmemo.run.prompting import PromptSetup

    for member in plan.members:
        chosen = member.config.prompts_dir or default_dir
        if chosen:
            member.config = dataclasses.replace(member.config, prompts_dir=str(Path(chosen).expanduser().resolve()))
    for prompts, grid_text in sorted({(m.config.prompts_dir or "", m.config.grid_text) for m in plan.members}):
        PromptSetup(prompts or None, grid_text)


COMMANDS = [sweep]
