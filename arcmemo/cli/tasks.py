"""`arcmemo tasks show`: draw an ARC puzzle in the terminal (or to a PNG/SVG file)."""

from __future__ import annotations

from pathlib import Path

import click

from arcmemo.cli.common import user_errors
from arcmemo.core.table import counted

DATASET_HELP = ("training | evaluation | val100, a task JSON file or a directory of them "
                "(default: ARC-AGI-1 training + evaluation).")


@click.group()
def tasks() -> None:
    """Look at ARC puzzles."""


@tasks.command("show")
@click.argument("task_id")
@click.option("--dataset", default=None, help=DATASET_HELP)
@click.option("--answers", is_flag=True, help="Also draw the test outputs (for you; a model never sees them).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the picture to this file (.png or .svg) instead of drawing it here.")
@user_errors
def show(task_id, dataset, answers, output) -> None:
    """Draw a puzzle's train pairs and test inputs as coloured cells (digits when not on a terminal),
    or with -o, to a PNG or SVG file."""
    from arcmemo.core.tasks import TaskError, UnknownTask, load_tasks
    from arcmemo.pictures import pair_rows, png, svg, task_rows
    from arcmemo.pictures.terminal import print_rows

    if output is not None and output.suffix.lower() not in (".png", ".svg"):
        raise click.UsageError(f"--output {output}: the file name must end in .png or .svg")
    try:
        taskset = load_tasks(dataset or "all", ids=[task_id])      # the one task, not all of them
    except UnknownTask:
        raise TaskError(f"no task {task_id!r} in {dataset or 'ARC-AGI-1 training + evaluation'}") from None
    task = taskset.tasks[0]
    truth = taskset.answers[task_id].test_outputs if answers else None
    summary = f"{task.id}: {len(task.train)} train pairs, {counted(len(task.test_inputs), 'test input')}"
    if output is None:
        click.echo(summary)
        print_rows(pair_rows(task, truth))
        return
    rows = task_rows(task, truth)
    if output.suffix.lower() == ".png":
        output.write_bytes(png(rows, columns=True))
    else:
        output.write_text(svg(rows, inline=False, columns=True), encoding="utf-8")
    click.echo(f"wrote {output} ({summary})")


COMMANDS = [tasks]
