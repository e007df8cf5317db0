"""`arcmemo runs list|show|compare|selections|score|export|report|delete`: look at, score, export and report runs."""

from __future__ import annotations

from pathlib import Path

import click

from arcmemo.cli.common import echo_json, run_dir_option, task_source_options, warn


def _settings(run_dir: str | None):
    from arcmemo.core.settings import Settings

    return Settings.load(runs_dir=run_dir)


def _find(ref: str, settings):
    from arcmemo.run.rundir import RunDir

    return RunDir.find(ref, settings.runs_dir)


def _find_all(refs, settings) -> list:
    return [_find(ref, settings) for ref in refs]


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
@click.option("--task", "task_id", default=None, help="Draw this task's attempts next to the expected output.")
def show(run, run_dir, as_json, per_task, task_id) -> None:
    """A run's summary table (and per-task scores with --tasks, one task's attempts with --task)."""
    from arcmemo.core.table import table
    from arcmemo.run.report import depth_text, summary_table

    settings = _settings(run_dir)
    rundir = _find(run, settings)
    if task_id is not None:
        show_task(rundir, task_id, as_json)
        return
    summary = _summary(rundir, settings)
    if as_json:
        echo_json({"config": rundir.config(), "status": rundir.status(), "summary": summary})
        return
    if rundir.kind != "solve":
        click.echo(table([(k, v) for k, v in summary.items() if not isinstance(v, (dict, list))],
                         (f"{rundir.kind} run {rundir.run_id}", "")))
        return
    click.echo(summary_table(summary))
    depth = depth_text(summary)
    if depth:
        click.echo()
        click.echo(depth)
    if per_task:
        rows = [(t, s.get("oracle1"), s.get("oracle2"), s.get("strict"), s["passed_train"], s["pass"], s["selected"])
                for t, s in summary["per_task"].items()]
        click.echo()
        click.echo(table(rows, ("task", "oracle@1", "oracle@2", "strict", "passed train", "pass", "concepts")))


def show_task(rundir, task_id: str, as_json: bool) -> None:
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
        if outcome.fit_answers:
            click.echo(f"answered by memory's fit (a helper call giving every train output): {', '.join(outcome.fit_answers)}")
        if task_id not in tasks:
            click.echo(f"(the task file of {task_id} cannot be loaded any more; predictions only in --json)")
            continue
        truth = answers[task_id].test_outputs if task_id in answers else None
        print_rows(attempt_rows(tasks[task_id].test_inputs, outcome.predictions, truth))


@runs.command("compare")
@click.argument("run_refs", nargs=-1, required=True)
@run_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print each run's settings, scores and lone solves as JSON.")
@click.option("--mean", "as_mean", is_flag=True,
              help="Repeated runs of one setting: the mean (std) of every cell of their Table 4 and 5 and of the "
                   "official scores, as the paper reports them.")
def compare(run_refs, run_dir, as_json, as_mean) -> None:
    """Runs side by side: scores, per-pass scores, tokens, cost, and what each solves alone;
    then each run's oracle@k by retry depth (the paper's Table 4). With --mean: the mean and
    standard deviation of those over the runs."""
    from arcmemo.run.report import (
        MismatchedRuns,
        compare_records,
        compare_table,
        depth_text,
        mean_records,
        mean_text,
    )

    settings = _settings(run_dir)
    entries = [(rundir.config(), _summary(rundir, settings)) for rundir in _find_all(run_refs, settings)]
    if as_mean:
        summaries = [summary for _, summary in entries]
        try:
            if as_json:
                echo_json(mean_records(summaries))
            else:
                click.echo(mean_text(summaries))
        except MismatchedRuns as exc:
            raise click.ClickException(str(exc)) from None
    elif as_json:
        echo_json(compare_records(entries))
    else:
        click.echo(compare_table(entries))
        for _, summary in entries:
            depth = depth_text(summary)
            if depth:
                click.echo(f"\nrun {summary['run_id']}:\n{depth}")


@runs.command("selections")
@click.argument("run")
@click.option("--task", "task_id", default=None, help="Only this task.")
@run_dir_option
@click.option("--reasoning", is_flag=True, help="Also print the selector's reasoning or caption.")
@click.option("--json", "as_json", is_flag=True, help="Print the selection records as JSON.")
def selections(run, task_id, run_dir, reasoning, as_json) -> None:
    """What memory selection offered each task of a run, and why (from the run directory)."""
    rundir = _find(run, _settings(run_dir))
    records = rundir.selections() or _older_selections(rundir)
    rows = [{"task": r.get("task_id"), "pass": r.get("pass_index"), "mode": r.get("mode"),
             "concepts": r.get("concepts", []), "unmatched": r.get("unmatched", []),
             "asked_again": r.get("asked_again"), "fallback": r.get("fallback"), "error": r.get("error"),
             "reasoning": r.get("reasoning"), "thread": r.get("thread", 0), "retry": r.get("retry", 0),
             "level": r.get("level")}
            for r in records if task_id is None or r.get("task_id") == task_id]
    if as_json:
        echo_json(rows)
        return
    for row in rows:
        where = "".join([f", thread {row['thread']}" if row["thread"] else "",
                         f", re-selected before retry {row['retry']}" if row["retry"] else "",
                         f", memory shown {row['level']}" if row["level"] not in (None, "full") else ""])
        click.echo(f"{row['task']} (pass {row['pass']}, {row['mode']}{where}): {', '.join(row['concepts']) or '-'}")
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


def _older_selections(rundir) -> list[dict]:
    """A run from before selection records moved to the run directory: its records in its memory."""
    from arcmemo.memory.store import Memory
    from arcmemo.run.records import concept_names

    url = rundir.config().get("memory_url")
    if not url or (("://" not in url) and not Path(url).is_file()):
        return []
    with Memory(url) as memory:
        names = concept_names(memory)
        return [{"task_id": r.task_id, "pass_index": r.pass_index, "mode": r.mode, "unmatched": r.unmatched,
                 "concepts": [names.get(i, f"#{i}") for i in r.concept_ids], "fallback": r.fallback,
                 "error": r.error, "reasoning": r.reasoning} for r in memory.selection_records(rundir.run_id)]


@runs.command("score")
@click.argument("path", type=click.Path(exists=True))
@task_source_options
@click.option("--all", "all_tasks", is_flag=True, help="Score every task of the chosen set (a missing one scores 0).")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
@click.pass_context
def score(ctx, path, dataset, split, tasks_from, solutions, all_tasks, as_json) -> None:
    """Score submissions from any tool: a folder of <task_id>.json files (ARC Prize harness
    shape, or arcmemo's older one) or a Kaggle submission.json.

    Without --split or --tasks-from the split is inferred from the task ids. A malformed
    grid, a wrong number of test entries or an unknown task id is named and scored 0; the
    exit code is 1 if anything was.
    """
    from pathlib import Path

    from arcmemo.core.datasets import SPLITS
    from arcmemo.core.table import table
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
@run_dir_option
def export(run, kaggle_path, harness_dir, run_dir) -> None:
    """Export a run's submissions for Kaggle or the ARC Prize benchmarking harness."""
    from arcmemo.run.export import export_harness, export_kaggle

    if not kaggle_path and not harness_dir:
        raise click.UsageError("say where to: --kaggle FILE and/or --harness FOLDER")
    rundir = _find(run, _settings(run_dir))
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
@run_dir_option
@click.option("--db", default=None, help="The memory the runs read (for concept names, selections and what was "
                                         "written); default: the memory the first run recorded.")
def report(run_refs, output, run_dir, db) -> None:
    """One self-contained HTML file (opens offline) for one or more runs: summary tables, charts,
    and per task the puzzle, the concepts offered and why, each program and its predictions
    against the truth, and the memory written from it."""
    from arcmemo.web.render import MemoryFacts
    from arcmemo.web.report import build_report, write_report
    from arcmemo.web.rundata import RunView

    rundirs = _find_all(run_refs, _settings(run_dir))
    memory = run_memory(rundirs[0], db)
    views = [RunView(r, memory) for r in rundirs]
    html = build_report(views, MemoryFacts(memory))
    path = write_report(output, html)
    tasks = sum(len(v.latest) for v in views)
    click.echo(f"wrote {path} ({len(views)} run(s), {tasks} task(s), {len(html) // 1024} KB)")


def run_memory(rundir, db: str | None):
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


@runs.command("delete")
@click.argument("run_refs", nargs=-1, required=True)
@run_dir_option
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
def delete(run_refs, run_dir, yes) -> None:
    """Delete run directories (not a running one). The memory keeps what the runs wrote."""
    found = _find_all(run_refs, _settings(run_dir))
    if not yes:
        click.confirm(f"delete {', '.join(str(r.path) for r in found)}?", abort=True)
    for rundir in found:
        rundir.delete()
        click.echo(f"deleted {rundir.path}")


COMMANDS = [runs]
