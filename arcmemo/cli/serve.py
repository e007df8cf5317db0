"""`arcmemo serve`: the local web page over runs, tasks and memory."""

from __future__ import annotations

import click

from arcmemo.cli.common import UserError, db_option, user_errors
from arcmemo.run.rundir import DEFAULT_RUNS_DIR


@click.command("serve")
@db_option
@click.option("--runs", "runs_root", default=DEFAULT_RUNS_DIR, show_default=True, help="The directory of run directories.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--host", default=None,
              help="Address to listen on (default 127.0.0.1, or the setting serve_host when it is loopback). "
                   "The page has no login and can edit memory: a non-loopback address must be given here.")
@click.option("--dataset", default="training", show_default=True,
              help="The dataset the tasks page opens with (training, evaluation, val100, all, or a path).")
@user_errors
def serve(db, runs_root, port, host, dataset) -> None:
    """Browse runs (live progress, compare, reports), puzzles and memory, and edit concepts, in a browser."""
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in ("starlette", "uvicorn", "multipart")):
        raise UserError("arcmemo serve needs the web extra: pip install 'arcmemo[web]'")
    from arcmemo.cli.concepts import _actor, _open
    from arcmemo.core.settings import setting
    from arcmemo.web import serve as server
    from arcmemo.web.app import create_app

    address = host or str(setting("serve_host", None, server.DEFAULT_HOST))
    server.check_host(address, explicit=host is not None)
    memory = _open(db)
    app = create_app(memory, runs_root, actor=_actor(None), allowed_hosts=server.allowed_hosts(address),
                     dataset=dataset)
    sock = server.bind(address, port)
    shown = f"[{address.strip('[]')}]" if ":" in address else address
    url = f"http://{shown}:{sock.getsockname()[1]}/"

    def started() -> None:
        click.echo(f"arcmemo serve: {url} (memory {memory.url}, runs {runs_root}/); Ctrl-C stops")
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
