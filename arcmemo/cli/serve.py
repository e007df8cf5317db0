"""`arcmemo serve`: the local web page over runs, tasks and memory."""

from __future__ import annotations

from pathlib import Path

import click

from arcmemo.cli.common import UserError, db_option, user_errors
from arcmemo.core.settings import DEFAULT_RUNS_DIR


@click.command("serve")
@db_option
@click.option("--runs", "runs_root", default=DEFAULT_RUNS_DIR, show_default=True, help="The directory of run directories.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--host", default=None,
              help="Address to listen on (default 127.0.0.1, or the setting serve_host when it is loopback). "
                   "The page has no login and can edit memory: a non-loopback address must be given here.")
@click.option("--tasks-from", "tasks_from", multiple=True, type=click.Path(exists=True, path_type=Path),
              help="A folder of task JSON files (or a task or challenges file) the tasks page may show too, "
                   "named after the folder. Repeatable.")
@click.option("--dataset", default=None,
              help="The dataset the tasks page opens with: training, evaluation, val100, all, arc-agi-2/..., "
                   "or the name of a --tasks-from folder (default: the first --tasks-from, else training).")
@user_errors
def serve(db, runs_root, port, host, tasks_from, dataset) -> None:
    """Browse runs (live progress, compare, reports), puzzles and memory, and edit concepts, in a browser.

    The page reads only arcmemo's data: the runs directly under --runs, the bundled datasets and
    the --tasks-from folders, and the memory; a request names these, it never gives a path."""
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in ("starlette", "uvicorn", "multipart")):
        raise UserError("arcmemo serve needs the web extra: pip install 'arcmemo[web]'")
    from arcmemo.cli.concepts import _actor, _open
    from arcmemo.core.config import setting_value
    from arcmemo.web import serve as server
    from arcmemo.web.app import create_app
    from arcmemo.web.lookup import TaskSources

    address = host or setting_value("serve_host")
    try:                              # a ValueError saying what is wrong with the address
        server.check_host(address, explicit=host is not None)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        sources = TaskSources(tasks_from)
    except ValueError as exc:        # TaskError: the file and what is wrong with it
        raise UserError(f"--tasks-from: {exc}") from None
    dataset = dataset or next(iter(sources.paths), "training")
    if dataset not in sources.names:
        hint = f"; to show a folder, name it with --tasks-from {dataset}" if Path(dataset).exists() else ""
        raise UserError(f"--dataset: no dataset {dataset!r}; choose one of {', '.join(sources.names)}{hint}")
    memory = _open(db)
    app = create_app(memory, runs_root, actor=_actor(None), allowed_hosts=server.allowed_hosts(address),
                     sources=sources, dataset=dataset)
    try:
        sock = server.bind(address, port)
    except ValueError as exc:
        memory.close()
        raise UserError(str(exc)) from None
    shown = f"[{address.strip('[]')}]" if ":" in address else address
    url = f"http://{shown}:{sock.getsockname()[1]}/"

    def started() -> None:
        click.echo(f"arcmemo serve: {url} (memory {memory.url}, runs {runs_root}/); Ctrl-C stops")
        for name, path in sources.paths.items():
            click.echo(f"  dataset {name}: {path}")
        if not server.is_loopback(address):
            click.echo("warning: listening beyond this machine; anyone who reaches this address can edit the "
                       "memory", err=True)

    try:
        server.run(app, sock, on_start=started)
    except KeyboardInterrupt:      # uvicorn shuts down cleanly, then passes Ctrl-C on
        click.echo("arcmemo serve: stopped")
    finally:
        sock.close()
        memory.close()


COMMANDS = [serve]
