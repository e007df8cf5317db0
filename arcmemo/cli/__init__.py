"""The `arcmemo` command: a root click group; each noun's commands live in their own module.

Command modules are imported when a command is looked up, and import what they need
inside the command, so `arcmemo --help` and simple commands start fast (no database,
numpy or model libraries loaded to print help).
"""

from __future__ import annotations

import importlib

import click

from arcmemo import __version__
from arcmemo.cli.common import ArcmemoGroup

# command name -> the module defining it (its COMMANDS list holds the command)
MODULES = {
    "calls": "calls", "cheatsheet": "cheatsheet", "concepts": "concepts", "models": "models", "prompts": "prompts",
    "runs": "runs", "seed": "seed",
    "select": "select", "serve": "serve", "solve": "solve", "solvers": "solvers", "sweep": "sweep",
    "tasks": "tasks",
}


class LazyGroup(ArcmemoGroup):
    """Loads a command's module the first time the command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | {n for n in MODULES if self._load(n) is not None})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return super().get_command(ctx, name) or self._load(name)

    def _load(self, name: str) -> click.Command | None:
        if name in self.commands:
            return self.commands[name]
        if name not in MODULES:
            return None
        try:
            module = importlib.import_module(f"arcmemo.cli.{MODULES[name]}")
        except ModuleNotFoundError as exc:   # a command module not (yet) present is simply absent
            if exc.name == f"arcmemo.cli.{MODULES[name]}":
                return None
            raise
        for command in module.COMMANDS:
            self.add_command(command)
        return self.commands.get(name)


@click.group(cls=LazyGroup)
@click.version_option(__version__, prog_name="arcmemo")
def cli() -> None:
    """arcmemo: a concept memory that lets an LLM improve at ARC puzzles without weight updates."""
