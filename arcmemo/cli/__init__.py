"""The `arcmemo` command: a root click group; each noun's commands live in their own module."""

from __future__ import annotations

import click

from arcmemo import __version__


@click.group()
@click.version_option(__version__, prog_name="arcmemo")
def cli() -> None:
    """arcmemo: a concept memory that lets an LLM improve at ARC puzzles without weight updates."""


def _register() -> None:
    """Attach each command module's group; a module not yet present is simply absent."""
    import importlib

    for name in ("concepts", "tasks", "seed", "select", "solve", "runs", "calls", "models", "solvers", "serve"):
        try:
            module = importlib.import_module(f"arcmemo.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"arcmemo.cli.{name}":
                continue
            raise
        for command in module.COMMANDS:
            cli.add_command(command)


_register()
