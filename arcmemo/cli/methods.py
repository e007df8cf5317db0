"""`arcmemo methods list`: the installed memory methods (entry point group arcmemo.methods)."""

from __future__ import annotations

import click

from arcmemo.cli.common import echo_json


@click.group("methods")
def methods() -> None:
    """Memory methods: how memory is read for a puzzle and written after a block (`solve --method NAME`);
    anything installed with an `arcmemo.methods` entry point."""


@methods.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--no-check", is_flag=True, help="Do not import each method (no description, formats or load check).")
def list_methods(as_json: bool, no_check: bool) -> None:
    """List the memory methods: name, description, the store formats of their items, the settings
    of their own they take (`solve --method-option KEY=VALUE`), where each comes from, and the
    error of one that does not load."""
    from arcmemo.methods.discovery import describe_methods

    rows = describe_methods(check=not no_check)
    if as_json:
        echo_json(rows)
        return
    from arcmemo.core.table import table

    click.echo(table([(r["name"], r["description"] or "", ", ".join(r["formats"] or []),
                       ", ".join(r["options"] or []) or "-", r["origin"],
                       f"[not loadable: {r['error']}]" if r["status"] == "error" else "")
                      for r in rows], ("name", "description", "formats", "options", "from", "")))


COMMANDS = [methods]
