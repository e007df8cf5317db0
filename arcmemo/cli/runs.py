"""`arcmemo runs list|show|compare|selections|score|export|report|delete`: look at, score, export and report runs."""

from __future__ import annotations

from pathlib import Path

import click

from arcmemo.cli.common import echo_json, run_dir_option, task_source_options, warn
from arcmemo.core.table import counted


def _settings(run_dir: str | None):
    from arcmemo.core.settings import Settings

    return Settings.load(runs_dir=run_dir)


def _find(ref: str, settings):
    """The run `ref` (an id under the runs folder, or a path), read (run/records/reader.py)."""
    from arcmemo.run.records.reader import find_run

    return find_run(ref, settings.runs_dir)


def _find_all(refs, settings) -> list:
    return [_find(ref, settings) for ref in refs]


def _not_finished(record, settings) -> str | None:
    """What to say above a run that did not finish: its state, and how to finish a solve run."""
    status = record.status()["status"]
    if status == "finished":
        return None
    from arcmemo.run.session import resume_command

    done = (f": {record.summary['tasks']} of {record.summary['tasks_planned']} tasks done, scored so far"
            if record.partial else "")
    hint = (f"; `{resume_command(record.rundir, settings)}` finishes it"
            if status in ("interrupted", "failed") and record.kind == "solve" else "")
    return f"run {record.run_id} is {record.state()}{done}{hint}"


@click.group()
def runs() -> None:
    """Look at runs, compare memory settings, score submissions."""


@runs.command("list")
@run_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_command(run_dir, as_json) -> None:
    """One line per run: kind, settings, score, status (running, finished, stopped, failed, interrupted).

    The score is the paper's oracle@k over the run's threads at its full retry depth (oracle@2;
    oracle@1 for a one-thread run); the ARC Prize score scores the two attempts submitted per
    test input. † marks a test-informed run."""
    from arcmemo.core.table import fit_text, table, yes_no
    from arcmemo.run.records.reader import read_run
    from arcmemo.run.records.report import footnote
    from arcmemo.run.records.rundir import RunDirError, list_runs
    from arcmemo.scoring.runscore import ARC_PRIZE

    root = _settings(run_dir).runs_dir
    rows, scores = [], []
    for rundir in list_runs(root):
        try:
            record = read_run(rundir)
            settings, score = record.settings, record.score
            row = {
                "run": record.run_id, "kind": record.kind, "selection": settings.get("selection"),
                "solver": settings.get("solver"), "model": (record.recorded.get("models") or {}).get("solver"),
                "continual": settings.get("continual"), "holds": record.brief(),
                "tasks": (record.summary or {}).get("tasks") if record.kind == "solve" else None,
                "score": score.value if score else None, "statistic": score.name if score else None,
                "score_unknown": score.why if score else None, "arc_prize": score.arc_prize if score else None,
                "strict": score.strict if score else None,
                "strict_variant": score.strict_variant if score else None,
                "test_informed": bool(score and score.test_informed), "status": record.state(),
            }
        except RunDirError as exc:          # this run cannot be read: listed with why, the others as usual
            score, row = None, {"run": rundir.run_id, "status": f"cannot be read: {exc}"}
        rows.append(row)
        scores.append(score)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo(f"no runs under {root}/")
        return
    shown = []
    for row, score in zip(rows, scores):
        shown.append((*(row.get(k) for k in ("run", "kind", "selection", "solver", "model")), yes_no(row.get("continual")),
                      row.get("holds"),
                      score.cell() if score else "-", row.get("statistic") or "-",
                      score.mark(score.arc_prize, "unknown") if score else "-", row["status"]))
    click.echo(table(shown, ("run", "kind", "selection", "solver", "model", "continual", "tasks", "score",
                             "statistic", ARC_PRIZE, "status")))
    note = footnote([score for score in scores if score])
    if note:
        click.echo(fit_text(note))


@runs.command("show")
@click.argument("run")
@run_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the config, status, summary and score as JSON.")
@click.option("--tasks", "per_task", is_flag=True, help="Also list every task's scores.")
@click.option("--task", "task_id", default=None, help="Draw this task's attempts next to the expected output.")
def show(run, run_dir, as_json, per_task, task_id) -> None:
    """A run's summary table (and per-task scores with --tasks, one task's attempts with --task).

    A solve run that did not finish shows the tasks it did so far; a seed, cheatsheet or select
    run shows what it verified, wrote or selected."""
    from arcmemo.core.table import fit_text, table
    from arcmemo.run.records.report import depth_text, footnote, per_task_rows

    settings = _settings(run_dir)
    record = _find(run, settings)
    if task_id is not None:
        show_task(record, task_id, as_json)
        return
    if as_json:
        echo_json({"config": record.recorded, "status": record.status(), "summary": record.summary,
                   "partial": record.partial, "score": record.score.to_dict() if record.score else None})
        return
    note = _not_finished(record, settings)
    if note:
        click.echo(fit_text(note))
    click.echo(table(record.rows(), (f"{record.kind} run {record.run_id}", "")))
    if record.score is None:
        return
    if footnote([record.score]):
        click.echo(fit_text(footnote([record.score])))
    depth = depth_text(record.summary, record.recorded)
    if depth:
        click.echo()
        click.echo(fit_text(depth))
    if per_task:
        rows, header = per_task_rows(record.summary, record.recorded)
        click.echo()
        click.echo(table(rows, header))


def show_task(run, task_id: str, as_json: bool) -> None:
    """Each pass's attempts at one task beside the expected output, differing cells marked
    (the truth is shown to the user here, from the run's own puzzles; it never goes to a model)."""
    from arcmemo.core.table import wrapped
    from arcmemo.pictures import attempt_rows
    from arcmemo.pictures.terminal import print_rows
    from arcmemo.run.records.answered import attempt_sources, task_answers

    record = run.task(task_id)
    if as_json:
        echo_json({"task": task_id, "passes": [o.event() for o in record.passes],
                   "writes": [w.event() for w in record.writes], "scores": [run.task_scores(o) for o in record.passes]})
        return
    puzzles = run.puzzles()
    tasks, answers = puzzles.tasks, puzzles.answers
    for outcome in record.passes:
        scores = run.task_scores(outcome)
        said = task_answers(outcome)
        text = (f"{scores['statistic']} over its threads {scores['headline']}, ARC Prize (submitted) "
                f"{scores['arc_prize']}, submitted strict {scores['strict']}"
                if outcome.scores else "not scored (no test outputs)")
        click.echo(wrapped(f"{task_id}, pass {outcome.pass_index}: {text}", "  "))
        click.echo("\n".join(wrapped(line, "    ") for line in said.lines()))
        if task_id not in tasks:
            click.echo(f"(the puzzle is not recorded: {puzzles.missing or 'not in the run'}; predictions only in --json)")
            continue
        truth = answers[task_id].test_outputs if task_id in answers else None
        print_rows(attempt_rows(tasks[task_id].test_inputs, outcome.predictions, truth, attempt_sources(outcome)))


@runs.command("compare")
@click.argument("run_refs", nargs=-1, required=True)
@run_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print each run's settings, scores and lone solves as JSON.")
@click.option("--mean", "as_mean", is_flag=True,
              help="Repeated runs of one configuration (`solve --repeat 1, 2, ...`): the mean (std) over the "
                   "runs of every cell of their Table 4 and 5, of the headline and of the ARC Prize score. Runs "
                   "of other settings, or one that replayed another's answers from the call cache, are refused. "
                   "The paper's run0..run2 are the threads of ONE run (--threads 3), which `runs show` tabulates.")
@click.option("--allow-mismatch", is_flag=True,
              help="With --mean: average runs of different settings, or runs that replayed each other's answers, "
                   "on purpose (said on stderr).")
def compare(run_refs, run_dir, as_json, as_mean, allow_mismatch) -> None:
    """Runs side by side: the score (the paper's oracle@k over threads), the ARC Prize score of
    the submitted attempts, per-pass scores, tokens, cost, and what each solves alone; then each
    run's oracle@k by retry depth (the paper's Table 4). Seed, cheatsheet and select runs are
    shown by what they hold. With --mean: the mean and standard deviation over repeated runs
    of one configuration."""
    from arcmemo.core.table import fit_text, table
    from arcmemo.run.records.report import MismatchedRuns, compare_records, compare_table, depth_text, mean_records, mean_text

    settings = _settings(run_dir)
    records = _find_all(run_refs, settings)
    solve = [r for r in records if r.kind == "solve"]
    entries = [(r.recorded, r.summary) for r in solve]
    if as_mean:
        others = [f"{r.run_id} ({r.kind})" for r in records if r.kind != "solve"]
        unfinished = [f"{r.run_id} ({r.state()}, {r.summary['tasks']} of {r.summary['tasks_planned']} tasks)"
                      for r in solve if r.partial]
        try:
            if others:
                raise MismatchedRuns(f"--mean averages solve runs; not solve runs: {', '.join(others)}")
            if unfinished:
                raise MismatchedRuns(f"--mean averages finished runs; not finished: {', '.join(unfinished)}")
            reason = _unlike(entries)
            if reason and not allow_mismatch:
                raise MismatchedRuns(reason)
            if reason:
                warn(f"averaging anyway (--allow-mismatch): {reason}")
            echo_json(mean_records(entries)) if as_json else click.echo(fit_text(mean_text(entries)))
        except MismatchedRuns as exc:
            raise click.ClickException(str(exc)) from None
        return
    if as_json:
        echo_json([*({**row, "kind": "solve", "status": r.state(), "partial": r.partial}
                     for r, row in zip(solve, compare_records(entries))),
                   *({"run": r.run_id, "kind": r.kind, "status": r.state(), "summary": r.summary}
                     for r in records if r.kind != "solve")])
        return
    for r in records:
        note = _not_finished(r, settings)
        if note:
            click.echo(fit_text(note))
    if entries:
        click.echo(fit_text(compare_table(entries)))
        for config, summary in entries:
            depth = depth_text(summary, config)
            if depth:
                click.echo(fit_text(f"\nrun {summary['run_id']}:\n{depth}"))
    for r in records:
        if r.kind != "solve":
            click.echo()
            click.echo(table(r.rows(), (f"{r.kind} run {r.run_id}", "")))


def _unlike(entries) -> str | None:
    """Why these solve runs are not repeats of one configuration (run/records/likeness.py)."""
    from arcmemo.llm.log import CallLog, log_path
    from arcmemo.run.records.likeness import unlike

    path = log_path()
    if not path.exists():
        return unlike(entries, None)
    with CallLog(path) as log:
        return unlike(entries, log)


@runs.command("selections")
@click.argument("run")
@click.option("--task", "task_id", default=None, help="Only this task.")
@run_dir_option
@click.option("--reasoning", is_flag=True, help="Also print the select model's reasoning and its answer (or the "
                                                 "caption).")
@click.option("--json", "as_json", is_flag=True, help="Print the selection records as JSON.")
def selections(run, task_id, run_dir, reasoning, as_json) -> None:
    """What memory selection offered each task of a run, and why (from the run directory)."""
    run = _find(run, _settings(run_dir))
    rundir = run.rundir
    records = rundir.selections() or _older_selections(run)
    rows = [{"task": r.get("task_id"), "pass": r.get("pass_index"), "mode": r.get("mode"),
             "concepts": r.get("concepts", []), "unmatched": r.get("unmatched", []),
             "named_types": r.get("named_types", []), "probe_fits": r.get("probe_fits"),
             "asked_again": r.get("asked_again"), "fallback": r.get("fallback"), "error": r.get("error"),
             "reasoning": r.get("reasoning"), "caption": r.get("caption"), "thread": r.get("thread", 0),
             "retry": r.get("retry", 0), "level": r.get("level")}
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
        if row["named_types"]:
            click.echo(f"  named types of the memory, not concepts: {', '.join(row['named_types'])}")
        if row["fallback"]:
            click.echo(f"  fell back to no hint: {row['error']}")
        if reasoning:
            _print_reasoning(row)
    if not rows:
        click.echo(f"no selections recorded for run {rundir.run_id}" + (f", task {task_id}" if task_id else ""))


def _print_reasoning(row: dict) -> None:
    """The select model's reasoning apart from its answer (the list), or the caption it selected by."""
    from arcmemo.run.records.selections import reasoning_parts

    def block(title: str, text: str) -> None:
        click.echo(f"  {title}:\n    " + text.strip().replace("\n", "\n    "))

    if row["probe_fits"]:
        click.echo("  no select call: the probe found helper calls giving every train output: "
                   + ", ".join(row["probe_fits"]))
        return
    if row["caption"]:
        block("caption (what the lessons were picked by)", row["caption"])
        if row["reasoning"] in (None, row["caption"]):
            return
    thought, answer = reasoning_parts(row["reasoning"])
    if not (row["reasoning"] or "").strip():
        click.echo("  (nothing recorded: no select model was asked)")
        return
    if thought:
        block("reasoning", thought)
    else:
        click.echo("  (the select model gave no reasoning: its answer was the list alone)")
    if answer:
        block("answer", answer)


def _older_selections(run) -> list[dict]:
    """A run from before selection records moved to the run directory: its records in its memory."""
    from arcmemo.memory.store import Memory
    from arcmemo.run.records.selections import concept_names

    rundir, url = run.rundir, run.recorded.get("memory_url")
    if not url or (("://" not in url) and not Path(url).is_file()):
        return []
    with Memory(url, read_only=True) as memory:
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
    shape, or arcmemo's older one) or a Kaggle submission.json, as ARC Prize scores them (the
    submitted attempts per test input; a run's own headline, oracle@k over its threads, needs
    its run directory: `runs show`).

    Without --split or --tasks-from the split is inferred from the task ids. A malformed
    grid, a wrong number of test entries or an unknown task id is named and scored 0; the
    exit code is 1 if anything was.
    """
    from pathlib import Path

    from arcmemo.core.datasets import SPLITS
    from arcmemo.core.table import table
    from arcmemo.scoring import rescore
    from arcmemo.scoring.runscore import ARC_PRIZE

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
                          (ARC_PRIZE, 100 * result.oracle2), ("the submitted attempts' oracle@1", 100 * result.oracle1),
                          ("the submitted attempts' strict", 100 * result.strict),
                          ("tasks without a submission (scored 0)", len(result.missing)),
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
@click.option("--allow-test-informed", is_flag=True,
              help="Export a test-informed run too (a test output decided something in it; refused by default).")
@run_dir_option
def export(run, kaggle_path, harness_dir, allow_test_informed, run_dir) -> None:
    """Export a solve run's submissions for Kaggle or the ARC Prize benchmarking harness.

    A run without predictions (seed, cheatsheet and select runs, a run that finished no task)
    is refused, and so is a test-informed run unless --allow-test-informed."""
    from arcmemo.run.records.export import export_harness, export_kaggle

    if not kaggle_path and not harness_dir:
        raise click.UsageError("say where to: --kaggle FILE and/or --harness FOLDER")
    record = _find(run, _settings(run_dir))
    if kaggle_path:
        done = export_kaggle(record, kaggle_path, allow_test_informed=allow_test_informed)
        click.echo(f"{done.path}: {done.tasks} tasks, {done.tasks - len(done.placeholder_tasks)} from the run, "
                   f"{len(done.placeholder_tasks)} not reached (placeholder [[0]])"
                   + (f"; {counted(done.empty_tests, 'test input')} without a prediction (placeholder [[0]])"
                      if done.empty_tests else "")
                   + (f"; {done.repeated} single guess(es) submitted as both attempts" if done.repeated else ""))
    if harness_dir:
        click.echo(f"{harness_dir}: {export_harness(record, harness_dir, allow_test_informed=allow_test_informed)} "
                   "submission files")


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
    from arcmemo.core.table import counted
    from arcmemo.web.render import MemoryFacts
    from arcmemo.web.report import build_report, write_report

    records = _find_all(run_refs, _settings(run_dir))
    memory = run_memory(records[0], db)
    html = build_report(records, MemoryFacts(memory), memory=memory)
    path = write_report(output, html)
    tasks = sum(len(r.latest) for r in records)
    click.echo(f"wrote {path} ({counted(len(records), 'run')}, {counted(tasks, 'task')}, {len(html) // 1024} KB)")


def run_memory(run, db: str | None):
    """The memory a run read (--db, else the one it recorded), or None with a warning when it is gone."""
    from pathlib import Path

    from arcmemo.memory.store import Memory
    from arcmemo.run.config import REDACTED

    url = db or run.recorded.get("memory_url")
    if not url or REDACTED in url or ("://" not in url and not Path(url).expanduser().is_file()):
        warn(f"the memory of run {run.run_id} is not at hand ({url or 'not recorded'}; pass --db): concepts "
             "show as ids, without the selection's reasoning or what was written")
        return None
    return Memory(url, read_only=True)


@runs.command("delete")
@click.argument("run_refs", nargs=-1, required=True)
@run_dir_option
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
def delete(run_refs, run_dir, yes) -> None:
    """Delete run directories (not a running one). The memory keeps what the runs wrote."""
    found = [r.rundir for r in _find_all(run_refs, _settings(run_dir))]
    if not yes:
        click.confirm(f"delete {', '.join(str(r.path) for r in found)}?", abort=True)
    for rundir in found:
        rundir.delete()
        click.echo(f"deleted {rundir.path}")


COMMANDS = [runs]
