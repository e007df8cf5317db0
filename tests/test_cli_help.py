"""`solve`, `sweep` and `select` show their options under headings (cloup's option groups), each
option's help one or two lines as docs/cli.md shows them."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from arcmemo.cli import cli

WIDTH = 88          # as docs/generate_cli_reference.py renders --help
HEADINGS = {
    "solve": ["What to solve", "Memory method", "Protocol", "Model", "Attempts and retries", "Run and output"],
    "select": ["What to solve", "Memory method", "Protocol", "Model", "Run and output"],
    "sweep": ["What to run", "Memory and prompts", "Run and output"],
}


def help_entries(text: str) -> dict[str, int]:
    """Each option of a --help text and how many lines its help takes."""
    entries: dict[str, int] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("  -"):
            current = line.split()[0].rstrip(",")
            entries[current] = 1 if re.search(r"\S {2,}\S", line.strip()) else 0   # help beside the name
        elif current and line.startswith("    ") and line.strip():
            entries[current] += 1
        else:
            current = None
    return entries


@pytest.mark.parametrize("command", sorted(HEADINGS))
def test_options_are_shown_under_headings_each_in_one_or_two_lines(command):
    text = CliRunner().invoke(cli, [command, "--help"], terminal_width=WIDTH, prog_name="arcmemo").output
    headings = [line[:-1] for line in text.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert headings == [*HEADINGS[command], "Other options"]
    entries = help_entries(text)
    assert len(entries) >= 8
    long = {name: lines for name, lines in entries.items() if lines > 2}
    assert long == {}, f"{command}: options whose help takes more than two lines: {long}"
    assert "--help" in text.split("Other options:")[1] and text.split("Other options:")[1].count("  -") == 1
