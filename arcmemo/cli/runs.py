"""`arcmemo runs list|show|compare|selections|score|export`: look at, score and export runs."""

from __future__ import annotations

import click

from arcmemo.cli.common import echo_json, task_source_options, user_errors, warn
from arcmemo.run.report import compare_table, summary_table, table
from arcmemo.run.rundir import DEFAULT_RUNS_DIR, RunDir, list_runs


def _summary(run: RunDir) -> dict:
    summary = run.summary()
    if summary is None:
        raise click.ClickException(f"run {run.run_id} has no summary yet (still running, or killed: "
                                   f"`arcmemo solve --resume {run.run_id}` finishes it)")
    return summary


@click.group()
def runs() -> None:
    """Look at runs and compare memory settings."""


@runs.command("list")
@click.option("--run-dir", default=DEFAULT_RUNS_DIR, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@user_errors
def list_command(run_dir, as_json) -> None:
    """One line per run: settings, score, status."""
    rows = []
    for run in list_runs(run_dir):
        config, summary = run.config(), run.summary() or {}
        settings = config.get("settings", {})
        rows.append({
            "run": run.run_id, "selection": settings.get("selection"), "solver": settings.get("solver"),
            "model": config.get("models", {}).get("solver"), "continual": settings.get("continual"),
            "tasks": summary.get("tasks", "-"), "oracle2": summary.get("oracle2", "-"),
            "status": ("stopped: " + summary["stopped"]) if summary.get("stopped") else
                      ("done" if summary else "unfinished"),
        })
    if as_json:
        echo_json(rows)
    elif rows:
        click.echo(table([list(r.values()) for r in rows], list(rows[0].keys())))
    else:
        click.echo(f"no runs under {run_dir}/")


@runs.command("show")
@click.argument("run")
@click.option("--run-dir", default=DEFAULT_RUNS_DIR, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--tasks", "per_task", is_flag=True, help="Also list every task's scores.")
@click.option("--task", "task_id", default=None, help="Draw this task's attempts next to the expected output.")
@user_errors
def show(run, run_dir, as_json, per_task, task_id) -> None:
    """A run's summary table (and per-task scores with --tasks, one task's attempts with --task)."""
    rundir = RunDir.find(run, run_dir)
    if task_id is not None:
        show_task(rundir, task_id, as_json)
        return
    summary = _summary(rundir)
    if as_json:
        echo_json({"config": rundir.config(), "summary": summary})
        return
    click.echo(summary_table(summary))
    if per_task:
        rows = [(t, s.get("oracle1"), s.get("oracle2"), s.get("strict"), s["passed_train"], s["pass"], s["selected"])
                for t, s in summary["per_task"].items()]
        click.echo()
        click.echo(table(rows, ("task", "oracle@1", "oracle@2", "strict", "passed train", "pass", "concepts")))


def show_task(rundir: RunDir, task_id: str, as_json: bool) -> None:
    """Each pass's attempts at one task beside the expected output, differing cells marked
    (the truth is shown to the user here; it never goes to a model)."""
    from arcmemo.pictures import attempt_rows
    from arcmemo.pictures.terminal import print_rows
    from arcmemo.web.rundata import RunView

    view = RunView(rundir)
    record = view.task(task_id)
    if as_json:
        echo_json({"task": task_id, "passes": [o.event() for o in record.passes], "writes": record.writes})
        return
    tasks, answers = view.puzzles
    for outcome in record.passes:
        scores = (f"oracle@2 {outcome.scores['oracle2']:.2f}, strict {outcome.scores['strict']:.2f}"
                  if outcome.scores else "not scored (no test outputs)")
        click.echo(f"{task_id}, pass {outcome.pass_index}: {scores}, train pairs "
                   f"{'passed' if outcome.passed_train else 'failed'}" + (f", error: {outcome.error}" if outcome.error else ""))
        if task_id not in tasks:
            click.echo(f"(the task file of {task_id} cannot be loaded any more; predictions only in --json)")
            continue
        truth = answers[task_id].test_outputs if task_id in answers else None
        print_rows(attempt_rows(tasks[task_id].test_inputs, outcome.predictions, truth))


@runs.command("compare")
@click.argument("run_refs", nargs=-1, required=True)
@click.option("--run-dir", default=DEFAULT_RUNS_DIR, show_default=True)
@user_errors
def compare(run_refs, run_dir) -> None:
    """Runs side by side: scores, per-pass scores, tokens, cost, and what each solves alone."""
    entries = []
    for ref in run_refs:
        rundir = RunDir.find(ref, run_dir)
        entries.append((rundir.config(), _summary(rundir)))
    click.echo(compare_table(entries))


@runs.command("selections")
@click.argument("run")
@click.option("--task", "task_id", default=None, help="Only this task.")
@click.option("--run-dir", default=DEFAULT_RUNS_DIR, show_default=True)
@click.option("--reasoning", is_flag=True, help="Also print the selector's reasoning or caption.")
@click.option("--json", "as_json", is_flag=True)
@user_errors
def selections(run, task_id, run_dir, reasoning, as_json) -> None:
    """What memory selection offered each task of a run, and why (from the run's memory)."""
    from arcmemo.memory.store import Memory
    from arcmemo.run.session import resume_memory_url
    from arcmemo.selection.record import selections_of

    rundir = RunDir.find(run, run_dir)
    memory = Memory(resume_memory_url(rundir.config().get("memory_url"), None, rundir))
    records = selections_of(memory, rundir.run_id, task_id)
    names = {c.id: c.name for c in memory.list()}
    rows = [{"task": r.task_id, "pass": r.pass_index, "mode": r.mode,
             "concepts": [names.get(i, f"#{i}") for i in r.concept_ids], "unmatched": r.unmatched,
             "fallback": r.fallback, "error": r.error, "reasoning": r.reasoning} for r in records]
    if as_json:
        echo_json(rows)
        return
    for row in rows:
        click.echo(f"{row['task']} (pass {row['pass']}, {row['mode']}): {', '.join(row['concepts']) or '-'}")
        if row["unmatched"]:
            click.echo(f"  named but not in memory: {', '.join(row['unmatched'])}")
        if row["fallback"]:
            click.echo(f"  fell back to no hint: {row['error']}")
        if reasoning and row["reasoning"]:
            click.echo("  " + row["reasoning"].strip().replace("\n", "\n  "))
    if not rows:
        click.echo(f"no selections recorded for run {rundir.run_id}" + (f", task {task_id}" if task_id else ""))


@runs.command("score")
@click.argument("path", type=click.Path(exists=True))
@task_source_options
@click.option("--all", "all_tasks", is_flag=True, help="Score every task of the chosen set (a missing one scores 0).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@user_errors
def score(ctx, path, dataset, split, tasks_from, solutions, all_tasks, as_json) -> None:
    """Score submissions from any tool: a folder of <task_id>.json files (ARC Prize harness
    shape, or arcmemo's older one) or a Kaggle submission.json.

    Without --split or --tasks-from the split is inferred from the task ids. A malformed
    grid, a wrong number of test entries or an unknown task id is named and scored 0; the
    exit code is 1 if anything was.
    """
    from pathlib import Path

    from arcmemo.core.datasets import SPLITS
    from arcmemo.scoring import rescore

    if split is not None and split not in SPLITS["arc-agi-1"] and Path(split).exists() and tasks_from is None:
        split, tasks_from = None, split           # older scripts: a task folder given as --split
    scored = rescore(path, dataset=dataset, split=split, tasks_from=tasks_from, solutions=solutions,
                     all_tasks=all_tasks)
    result = scored.result
    if as_json:
        echo_json({"scored_against": scored.label, "inferred": scored.inferred,
                   **result.to_dict(per_task=False)})
    else:
        against = scored.label + (" (inferred from the task ids)" if scored.inferred else "")
        click.echo(table([("scored against", against), ("tasks scored", len(result.tasks)),
                          ("oracle@1", 100 * result.oracle1), ("oracle@2 (official)", 100 * result.oracle2),
                          ("strict", 100 * result.strict), ("tasks without a submission (scored 0)", len(result.missing)),
                          ("unreadable or wrong submissions (scored 0)", len(result.errors))], (str(path), "")))
    for error in result.errors.values():
        click.echo(error, err=True)
    if result.errors:
        ctx.exit(1)


@runs.command("export")
@click.argument("run")
@click.option("--kaggle", "kaggle_path", type=click.Path(dir_okay=False), default=None,
              help="Write the ARC Prize competition file (submission.json) for every task of the run's split.")
@click.option("--harness", "harness_dir", type=click.Path(file_okay=False), default=None,
              help="Copy the run's per-task files (ARC Prize benchmarking harness shape) into this folder.")
@click.option("--run-dir", default=DEFAULT_RUNS_DIR, show_default=True)
@user_errors
def export(run, kaggle_path, harness_dir, run_dir) -> None:
    """Export a run's submissions for Kaggle or the ARC Prize benchmarking harness."""
    from arcmemo.run.export import export_harness, export_kaggle

    if not kaggle_path and not harness_dir:
        raise click.UsageError("say where to: --kaggle FILE and/or --harness FOLDER")
    rundir = RunDir.find(run, run_dir)
    if kaggle_path:
        done = export_kaggle(rundir, kaggle_path)
        click.echo(f"{done.path}: {done.tasks} tasks, {done.tasks - len(done.placeholder_tasks)} from the run, "
                   f"{len(done.placeholder_tasks)} not reached (placeholder [[0]])"
                   + (f"; {done.empty_tests} test input(s) without a prediction (placeholder [[0]])"
                      if done.empty_tests else "")
                   + (f"; {done.repeated} single guess(es) submitted as both attempts" if done.repeated else ""))
    if harness_dir:
        click.echo(f"{harness_dir}: {export_harness(rundir, harness_dir)} submission files")


@runs.command("report")
@click.argument("run_refs", nargs=-1, required=True)
@click.option("-o", "--output", default="report.html", show_default=True, type=click.Path(dir_okay=False),
              help="The HTML file to write.")
@click.option("--run-dir", default=DEFAULT_RUNS_DIR, show_default=True)
@click.option("--db", default=None, help="The memory the runs read (for concept names, selections and what was "
                                         "written); default: the memory the first run recorded.")
@user_errors
def report(run_refs, output, run_dir, db) -> None:
    """One self-contained HTML file (opens offline) for one or more runs: summary tables, charts,
    and per task the puzzle, the concepts offered and why, each program and its predictions
    against the truth, and the memory written from it."""
    from arcmemo.web.render import MemoryFacts
    from arcmemo.web.report import build_report, write_report
    from arcmemo.web.rundata import RunView

    rundirs = [RunDir.find(ref, run_dir) for ref in run_refs]
    memory = run_memory(rundirs[0], db)
    views = [RunView(r, memory) for r in rundirs]
    html = build_report(views, MemoryFacts(memory))
    path = write_report(output, html)
    tasks = sum(len(v.latest) for v in views)
    click.echo(f"wrote {path} ({len(views)} run(s), {tasks} task(s), {len(html) // 1024} KB)")


def run_memory(rundir: RunDir, db: str | None):
    """The memory a run read (--db, else the one it recorded), or None with a warning when it is gone."""
    from pathlib import Path

    from arcmemo.memory.store import Memory
    from arcmemo.run.runner import REDACTED

    url = db or rundir.config().get("memory_url")
    if not url or REDACTED in url or ("://" not in url and not Path(url).expanduser().exists()):
        warn(f"the memory of run {rundir.run_id} is not at hand ({url or 'not recorded'}; pass --db): concepts "
             "show as ids, without the selection's reasoning or what was written")
        return None
    return Memory(url)


COMMANDS = [runs]
