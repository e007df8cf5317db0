"""`arcmemo select TASK`: show what memory selection would hand the solver for one puzzle.

A debugging aid: the chosen concepts, the names the model wrote that matched nothing,
how the memory was shown (full, compressed, pre-filtered), and the hint text itself.
"""

from __future__ import annotations

from pathlib import Path

import click

from arcmemo.cli.common import echo_json, warn
from arcmemo.cli.runplan.headings import GroupedCommand
from arcmemo.cli.runplan.options import read_options
from arcmemo.core.table import table


def _load_task(task_ref: str, source: str):
    from arcmemo.core.datasets import source_label
    from arcmemo.core.tasks import TaskError, load_tasks

    if task_ref.endswith(".json") or Path(task_ref).exists():
        return load_tasks(Path(task_ref)).tasks[0]
    taskset = load_tasks(source)
    if task_ref not in taskset.answers:
        raise TaskError(f"no task {task_ref!r} in {source_label(source)}")
    return taskset.by_id(task_ref)


@click.command("select", cls=GroupedCommand)
@click.argument("task_ref", metavar="TASK")
@read_options({"Run and output": [
    click.option("--record", is_flag=True,
                 help="Record the selection in a run directory under --run-dir (`arcmemo runs selections`)."),
    click.option("--run-id", default=None, help="The run --record writes into (made if missing; default: a new one)."),
    click.option("--reasoning", "show_reasoning", is_flag=True, help="Also print the model's reasoning / caption."),
    click.option("--json", "as_json", is_flag=True, help="Print the selection as JSON."),
]}, method_also=("--mode",))
def select_command(task_ref, record, run_id, show_reasoning, as_json, **params) -> None:
    """Show the concepts (and hint) selection picks for TASK, an ARC task id or JSON file.

    What `arcmemo solve --tasks TASK` with the same options would show the task's first
    thread: the method's read and memory's probe, through the same stages, with every option
    of solve's that shapes them (--config too: a run configuration's keys that shape a read).
    TASK is looked up in --split, --tasks-from, or both splits of --dataset (default
    arc-agi-1). The memory is only read."""
    from arcmemo.cli.common import task_source
    from arcmemo.cli.runplan import from_command_line, models_of, run_config, settings_of, solve_defaults
    from arcmemo.methods import load_method
    from arcmemo.run.config import fit_budgets
    from arcmemo.run.preview import preview
    from arcmemo.run.session import open_session, resolve_models
    from arcmemo.sandbox import get_sandbox

    p = {**solve_defaults(), **params}
    settings = settings_of(p)
    config = run_config(p, settings, from_command_line=from_command_line(click.get_current_context()))
    task = _load_task(task_ref, task_source(p["dataset"], p["split"], p["tasks_from"], p["solutions"],
                                            default_split=None) or "all")
    with open_session(settings) as session:
        prompts = session.use_prompts(config.prompts_dir, config.grid_text)
        memory = session.memory()
        llm = None
        if load_method(config.selection).read_roles or config.token_budget is None or config.hint_budget is None:
            llm = session.llm(run_id, resolve_models(models_of(p)))
        config = fit_budgets(config, llm)
        shown = preview(config, task, memory, llm, get_sandbox() if config.helpers and config.probe_helpers else None)
        sel = shown.selection
        names = {c.id: _label(c) for c in memory.list()}
        if record:
            rundir = _record_run_dir(settings, run_id, memory, prompts.record())
            for line in shown.records.selections:
                rundir.append_selection({k: v for k, v in line.items() if k != "time"})
            rundir.write_summary({"run_id": rundir.run_id, "selections": len(rundir.selections())})
            rundir.set_status("finished")
            if not as_json:
                warn(f"recorded in {rundir.path}/selections.jsonl")
    _print(task.id, sel, names, show_reasoning, as_json, fits=[f.call for f in shown.probed.fits],
           shown=_as_solver_sees(sel, shown.helpers))


def _as_solver_sees(selection, helpers) -> str:
    """Memory's part of the solver's prompt, as a solve's first thread would get it: the probe's
    calls first, then the read's hint, then the helpers offered."""
    from arcmemo.solverkit import Hint
    from arcmemo.solverkit.helpers import memory_section

    hint = Hint(text=selection.hint, concept_ids=list(selection.concept_ids), mode=selection.mode, helpers=helpers)
    return memory_section(hint, lambda text: text).strip()


def _record_run_dir(settings, run_id: str | None, memory, prompts: dict):
    """The run directory --record writes into: `run_id`'s if it exists, else a new one of kind select."""
    import time

    from arcmemo.run.config import memory_url_for_record
    from arcmemo.run.records.rundir import RunDir

    if run_id and (Path(settings.runs_dir) / run_id / "config.json").is_file():
        return RunDir.find(run_id, settings.runs_dir)
    rundir = RunDir.create(settings.runs_dir, run_id)
    rundir.write_config({"kind": "select", "run_id": rundir.run_id, "memory_url": memory_url_for_record(memory.url),
                         **prompts, "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    return rundir


def _label(concept) -> str:
    """A PS concept's name; an OE lesson's name plus the start of its situation."""
    if concept.format == "oe" and concept.situation:
        situation = concept.situation if len(concept.situation) <= 70 else concept.situation[:67] + "..."
        return f"{concept.name}: {situation}"
    return concept.name


def _print(task_id, sel, names, show_reasoning, as_json, *, fits: list[str], shown: str) -> None:
    chosen = [{"id": i, "name": names.get(i, "?"), "expanded": i in sel.expanded_ids} for i in sel.concept_ids]
    if as_json:
        echo_json({"task_id": task_id, "mode": sel.mode, "concepts": chosen, "unmatched": sel.unmatched,
                   "probe_fits": fits, "solver_sees": shown,
                   "fallback": sel.fallback, "error": sel.error, "stats": sel.stats, "usage": sel.usage_dict(),
                   "caption": sel.caption, "reasoning": sel.reasoning, "hint": sel.hint})
        return
    stats = sel.stats
    click.echo(f"task {task_id}  mode {sel.mode}")
    if "memory_size" in stats:
        line = f"memory: {stats['memory_size']} concepts"
        if "form" in stats:
            line += f", {stats['shown']} shown to the model ({stats['form']})"
        if "prompt_tokens_est" in stats:
            line += f", prompt ~{stats['prompt_tokens_est']} tokens (budget {stats.get('budget')})"
        click.echo(line)
    if fits:
        click.echo("probe: every train output from " + ", ".join(fits) + " (named first in the hint)")
    click.echo(f"chosen ({len(chosen)}):")
    if chosen:
        click.echo(table([(c["id"], c["name"], "expanded" if c["expanded"] else "") for c in chosen],
                         ("id", "concept", ""), rule=False, right=(0,), indent="  "))
    for written, name in (stats.get("near_misses") or {}).items():
        click.echo(f"  near-miss: {written!r} -> {name!r}")
    click.echo("unmatched: " + (", ".join(repr(u) for u in sel.unmatched) if sel.unmatched else "none"))
    if sel.fallback:
        warn(f"fallback (no hint): {sel.error}")
    usage = sel.usage_dict()
    if usage:
        click.echo(f"usage: {usage.get('calls', 0)} calls, {usage.get('prompt_tokens', 0)} prompt + "
                   f"{usage.get('completion_tokens', 0)} completion tokens, ${usage.get('cost_usd', 0):.4f}")
    if show_reasoning and sel.caption:
        click.echo("\n--- caption ---\n" + sel.caption)
    if show_reasoning and sel.reasoning and sel.reasoning != sel.caption:
        click.echo("\n--- reasoning ---\n" + sel.reasoning)
    click.echo("\n--- hint ---")
    click.echo(shown if shown else "(empty: the solver sees no memory)")


COMMANDS = [select_command]
