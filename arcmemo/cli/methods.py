"""`arcmemo methods list`: the installed memory methods (entry point group arcmemo.methods)."""

from __future__ import annotations

from textwrap import wrap

import click

from arcmemo.cli.common import echo_json


@click.group("methods")
def methods() -> None:
    """Memory methods: how memory is read for a puzzle and written after a block (`solve --method NAME`);
    anything installed with an `arcmemo.methods` entry point."""


@methods.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of the listing.")
@click.option("--no-check", is_flag=True, help="Do not import each method (no description, formats or load check).")
def list_methods(as_json: bool, no_check: bool) -> None:
    """List the memory methods: name, where each comes from, description, whether a solve probes
    memory's helpers with it by default (`--probe-helpers`), the store formats of its items, the
    settings of its own with their defaults (`solve --method-option KEY=VALUE`), where it departs
    from its paper, and the error of one that does not load."""
    from arcmemo.methods.discovery import describe_methods

    rows = describe_methods(check=not no_check)
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        if r["status"] == "error":
            click.echo(f"{r['name']}  ({r['origin']})  not loadable: {r['error']}")
            continue
        click.echo(f"{r['name']}  ({r['origin']})")
        if r["description"]:
            click.echo("\n".join(wrap(r["description"], width=96, initial_indent="  ", subsequent_indent="  ")))
        if r["status"] == "ok":
            options = ", ".join(f"{k}={_spell(v)}" for k, v in (r["options"] or {}).items()) or "none"
            facts = (f"probe: {'on' if r['probe'] else 'off'} by default · formats: {', '.join(r['formats']) or '-'}"
                     f" · options: {options}")
            click.echo("\n".join(wrap(facts, width=96, initial_indent="  ", subsequent_indent="    ")))
            for line in r["departures"] or []:
                click.echo("\n".join(wrap(f"departs from its paper: {line}", width=96, initial_indent="  ",
                                          subsequent_indent="    ")))


def _spell(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


COMMANDS = [methods]
