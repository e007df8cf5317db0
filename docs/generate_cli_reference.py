"""Write docs/cli.md from the commands' own --help (a test checks it is current).

    python docs/generate_cli_reference.py
"""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from arcmemo.cli import cli

OUT = Path(__file__).with_name("cli.md")


def commands(group: click.Group, prefix: list[str]):
    ctx = click.Context(group)
    for name in sorted(group.list_commands(ctx)):       # the root loads a command's module when asked for it
        command = group.get_command(ctx, name)
        yield prefix + [name], command
        if isinstance(command, click.Group):
            yield from commands(command, prefix + [name])


def reference() -> str:
    runner = CliRunner()
    parts = ["# CLI reference\n", "Generated from `--help` by `python docs/generate_cli_reference.py`.\n",
             "```\n" + runner.invoke(cli, ["--help"], terminal_width=88, prog_name="arcmemo").output + "```\n"]
    for path, _ in commands(cli, []):
        text = runner.invoke(cli, path + ["--help"], terminal_width=88, prog_name="arcmemo").output
        parts.append(f"## arcmemo {' '.join(path)}\n\n```\n{text}```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    OUT.write_text(reference())
    print(f"wrote {OUT}")
