"""`arcmemo solvers list`: the installed solver plugins (entry point group arcmemo.solvers)."""

from __future__ import annotations

import click

from arcmemo.cli.common import echo_json


@click.group("solvers")
def solvers() -> None:
    """Solver plugins: anything installed with an `arcmemo.solvers` entry point."""


@solvers.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--check", is_flag=True,
              help="Import each solver to check it loads (without: whether its package is installed).")
@click.option("--no-check", is_flag=True, hidden=True, help="Older spelling of the default (nothing imported).")
def list_solvers(as_json: bool, check: bool, no_check: bool) -> None:
    """List installed solvers with their entry point, distribution and status."""
    from arcmemo.solverkit.discovery import describe_solvers

    rows = describe_solvers(load=check)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no solvers installed (entry point group arcmemo.solvers)")
        return
    from arcmemo.core.table import table

    click.echo(table([(r["name"], r["entry_point"],
                       f"({r['distribution']} {r['version']})" if r["distribution"] else "(?)",
                       f"[not loadable: {r['error']}]" if r.get("status") == "error" else "")
                      for r in rows], ("name", "entry point", "distribution", "")))


COMMANDS = [solvers]

