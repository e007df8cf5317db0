"""`arcmemo runs list|show|compare|selections|score|delete`: look at runs and their records."""

from __future__ import annotations

import click

from arcmemo.cli.common import echo_json, run_dir_option


def _settings(run_dir: str | None):
    from arcmemo.core.settings import Settings

    return Settings.load(runs_dir=run_dir)


def _find(ref: str, settings):
    from arcmemo.run.rundir import RunDir

    return RunDir.find(ref, settings.runs_dir)


def _summary(run, settings) -> dict:
    summary = run.summary()
    if summary is None:
        status = run.status()["status"]
        from arcmemo.run.session import resume_command

        hint = (f"; `{resume_command(run, settings)}` finishes it"
                if status in ("interrupted", "failed") and run.kind == "solve" else "")
        raise click.ClickException(f"run {run.run_id} has no summary yet (it is {status}{hint})")
    return summary


@click.group()
def runs() -> None:
    """Look at runs, compare memory settings, score submissions."""


@runs.command("list")
@run_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_command(run_dir, as_json) -> None:
    """One line per run: kind, settings, score, status (running, finished, stopped, failed, interrupted)."""
    from arcmemo.core.table import table
    from arcmemo.run.rundir import list_runs

    root = _settings(run_dir).runs_dir
    rows = []
    for run in list_runs(root):
        config, summary, status = run.config(), run.summary() or {}, run.status()
        settings = config.get("settings", {})
        state = status["status"] + (f": {status['reason']}" if status.get("reason") else "")
        if summary.get("tasks_lost"):
            state += f" ({len(summary['tasks_lost'])} lost)"
        rows.append({
            "run": run.run_id, "kind": config.get("kind", "solve"), "selection": settings.get("selection"),
            "solver": settings.get("solver"), "model": config.get("models", {}).get("solver"),
            "continual": settings.get("continual"), "tasks": summary.get("tasks", "-"),
            "oracle2": summary.get("oracle2", "-"), "status": state,
        })
    if as_json:
        echo_json(rows)
    elif rows:
        click.echo(table([list(r.values()) for r in rows], list(rows[0].keys())))
    else:
        click.echo(f"no runs under {root}/")


@runs.command("show")
@click.argument("run")
@run_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the config, status and summary as JSON.")
@click.option("--tasks", "per_task", is_flag=True, help="Also list every task's scores.")
def show(run, run_dir, as_json, per_task) -> None:
    """A run's summary table (and per-task scores with --tasks)."""
    from arcmemo.core.table import table
    from arcmemo.run.report import summary_table

    settings = _settings(run_dir)
    rundir = _find(run, settings)
    summary = _summary(rundir, settings)
    if as_json:
        echo_json({"config": rundir.config(), "status": rundir.status(), "summary": summary})
        return
    if rundir.kind != "solve":
        click.echo(table([(k, v) for k, v in summary.items() if not isinstance(v, (dict, list))],
                         (f"{rundir.kind} run {rundir.run_id}", "")))
        return
    click.echo(summary_table(summary))
    if per_task:
        rows = [(t, s["oracle1"], s["oracle2"], s["strict"], s["passed_train"], s["pass"], s["selected"])
                for t, s in summary["per_task"].items()]
        click.echo()
        click.echo(table(rows, ("task", "oracle@1", "oracle@2", "strict", "passed train", "pass", "concepts")))


@runs.command("compare")
@click.argument("run_refs", nargs=-1, required=True)
@run_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print each run's settings, scores and lone solves as JSON.")
def compare(run_refs, run_dir, as_json) -> None:
    """Runs side by side: scores, per-pass scores, tokens, cost, and what each solves alone."""
    from arcmemo.run.report import compare_rows, compare_table

    settings = _settings(run_dir)
    entries = []
    for ref in run_refs:
        rundir = _find(ref, settings)
        entries.append((rundir.config(), _summary(rundir, settings)))
    if as_json:
        echo_json(compare_rows(entries))
    else:
        click.echo(compare_table(entries))


@runs.command("selections")
@click.argument("run")
@click.option("--task", "task_id", default=None, help="Only this task.")
@run_dir_option
@click.option("--reasoning", is_flag=True, help="Also print the selector's reasoning or caption.")
@click.option("--json", "as_json", is_flag=True, help="Print the selection records as JSON.")
def selections(run, task_id, run_dir, reasoning, as_json) -> None:
    """What memory selection offered each task of a run, and why (from the run directory)."""
    rundir = _find(run, _settings(run_dir))
    rows = [{"task": r.get("task_id"), "pass": r.get("pass_index"), "mode": r.get("mode"),
             "concepts": r.get("concepts", []), "unmatched": r.get("unmatched", []),
             "asked_again": r.get("asked_again"), "fallback": r.get("fallback"), "error": r.get("error"),
             "reasoning": r.get("reasoning")}
            for r in rundir.selections() if task_id is None or r.get("task_id") == task_id]
    if as_json:
        echo_json(rows)
        return
    for row in rows:
        click.echo(f"{row['task']} (pass {row['pass']}, {row['mode']}): {', '.join(row['concepts']) or '-'}")
        if row["asked_again"]:
            click.echo(f"  named nothing in memory at first ({', '.join(row['asked_again']['unmatched'])}); "
                       f"asked again with the names listed: {row['asked_again']['matched']} matched")
        if row["unmatched"]:
            click.echo(f"  named but not in memory: {', '.join(row['unmatched'])}")
        if row["fallback"]:
            click.echo(f"  fell back to no hint: {row['error']}")
        if reasoning and row["reasoning"]:
            click.echo("  " + row["reasoning"].strip().replace("\n", "\n  "))
    if not rows:
        click.echo(f"no selections recorded for run {rundir.run_id}" + (f", task {task_id}" if task_id else ""))


@runs.command("score")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--split", default=None,
              help="Where the answers come from: training | evaluation | val100, or a task JSON file / "
                   "directory (default: ARC-AGI-1 training + evaluation, found by the files' task ids).")
@click.option("--all", "all_tasks", is_flag=True, help="Score every task of --split (a missing file scores 0).")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
def score(directory, split, all_tasks, as_json) -> None:
    """Score a directory of `<task_id>.json` submissions (ARC Prize shape), from any tool."""
    from pathlib import Path

    from arcmemo.core.table import table
    from arcmemo.core.tasks import all_arc_tasks, load_tasks
    from arcmemo.scoring import score_submission_dir

    if all_tasks and split is None:
        raise click.UsageError("--all needs --split (which tasks count as missing)")
    answers = load_tasks(split).answers if split else all_arc_tasks().answers
    if not all_tasks:
        present = {p.stem for p in Path(directory).glob("*.json")}
        answers = {t: a for t, a in answers.items() if t in present}
    if not any(Path(directory).glob("*.json")):
        raise click.ClickException(f"{directory}: no submission files (<task_id>.json)")
    result = score_submission_dir(directory, answers)
    if as_json:
        echo_json({"tasks": len(result.tasks), "oracle1": result.oracle1, "oracle2": result.oracle2,
                   "strict": result.strict, "missing": result.missing, "unknown": result.unknown,
                   "errors": result.errors})
        return
    click.echo(table([("tasks scored", len(result.tasks)), ("oracle@1", 100 * result.oracle1),
                      ("oracle@2 (official)", 100 * result.oracle2), ("strict", 100 * result.strict),
                      ("missing files (scored 0)", len(result.missing)),
                      (f"files for tasks not in {split or 'ARC-AGI-1'}", len(result.unknown)),
                      ("unreadable files (scored 0)", len(result.errors))], (str(directory), "")))
    for task_id, error in sorted(result.errors.items()):
        click.echo(f"{task_id}: {error}", err=True)


@runs.command("delete")
@click.argument("run_refs", nargs=-1, required=True)
@run_dir_option
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
def delete(run_refs, run_dir, yes) -> None:
    """Delete run directories (not a running one). The memory keeps what the runs wrote."""
    settings = _settings(run_dir)
    found = [_find(ref, settings) for ref in run_refs]
    if not yes:
        click.confirm(f"delete {', '.join(str(r.path) for r in found)}?", abort=True)
    for rundir in found:
        rundir.delete()
        click.echo(f"deleted {rundir.path}")


COMMANDS = [runs]
