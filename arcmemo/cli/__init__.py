"""The `arcmemo` command: a root click group; each noun's commands live in their own module.

Command modules are imported when a command is looked up, and import what they need
inside the command, so `arcmemo --help` and simple commands start fast (no database,
numpy or model libraries loaded to print help). `arcmemo --help` imports none of them: it
lists each command with its summary from the table below (a test keeps the summaries
equal to the commands' own help).
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
from typing import Any

import click

from arcmemo import __version__
from arcmemo.cli.common import ArcmemoGroup

# command name -> (the module defining it: its COMMANDS list holds the command, the command's summary)
MODULES = {
    "calls": ("calls", "The model call log: every request and answer, tokens, latency, cost, cache hits."),
    "cheatsheet": ("cheatsheet", "The cheatsheet baseline (Dynamic Cheatsheet, cumulative): one evolving text as "
                                 "memory."),
    "concepts": ("concepts", "Browse, edit and move the concept memory."),
    "methods": ("methods", "Memory methods: how memory is read for a puzzle and written after a block "
                           "(`solve --method NAME`); anything installed with an `arcmemo.methods` entry point."),
    "models": ("models", "Models: which one each role uses, aliases, prices, and the embedded offline model."),
    "prompts": ("prompts", "The prompt templates: see them, copy them to edit, run with your own (--prompts DIR)."),
    "quickstart": ("quickstart", "Solve two small puzzles with memory and without, and show what memory changed."),
    "runs": ("runs", "Look at runs, compare memory settings, score submissions."),
    "seed": ("seed", "Verify every seed in DIRECTORY against all pairs of its task, then ingest it."),
    "select": ("select", "Show the concepts (and hint) selection picks for TASK, an ARC task id or JSON file."),
    "serve": ("serve", "Browse runs (live progress, compare, reports), puzzles and memory, and edit concepts, in a "
                       "browser."),
    "settings": ("settings", "Every setting: its value here and now, where it came from, and how to set it."),
    "solve": ("solve", "Solve ARC puzzles with memory; with --continual, grow it from verified solves."),
    "solvers": ("solvers", "Solver plugins: anything installed with an `arcmemo.solvers` entry point."),
    "sweep": ("sweep", "Run a grid of solve configurations (settings x models x repeats) and compare them."),
    "tasks": ("tasks", "Look at ARC puzzles."),
}


class LazyGroup(ArcmemoGroup):
    """Loads a command's module the first time the command is asked for."""

    _program = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run as the program (`arcmemo`, `python -m arcmemo`; a caller embedding the command line
        calls `main` and its collector is left alone). What the start-up loads (click, the command's
        module) lives until the program exits: frozen, the cycle collector never scans it again, in
        a collection while the command runs or in the last one at exit (a tenth of the start-up of
        a read-only command)."""
        self._program = True
        gc.freeze()
        return super().__call__(*args, **kwargs)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | {n for n in MODULES if self._present(n)})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return super().get_command(ctx, name) or self._load(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their summaries, without importing their modules."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names), default=0)
        rows = []
        for name in names:
            command = self.commands.get(name)
            if command is None and name in MODULES:
                rows.append((name, click.utils.make_default_short_help(MODULES[name][1], limit)))
            elif (command := command or self.get_command(ctx, name)) is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    @staticmethod
    def _present(name: str) -> bool:
        """A command module not (yet) present is simply absent."""
        return importlib.util.find_spec(f"arcmemo.cli.{MODULES[name][0]}") is not None

    def _load(self, name: str) -> click.Command | None:
        if name in self.commands:
            return self.commands[name]
        if name not in MODULES:
            return None
        try:
            module = importlib.import_module(f"arcmemo.cli.{MODULES[name][0]}")
        except ModuleNotFoundError as exc:   # a command module not (yet) present is simply absent
            if exc.name == f"arcmemo.cli.{MODULES[name][0]}":
                return None
            raise
        if self._program:
            gc.freeze()
        for command in module.COMMANDS:
            self.add_command(command)
        return self.commands.get(name)


@click.group(cls=LazyGroup)
@click.version_option(__version__, prog_name="arcmemo")
def cli() -> None:
    """arcmemo: a concept memory that lets an LLM improve at ARC puzzles without weight updates."""
