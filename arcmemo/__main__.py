"""`python -m arcmemo` is the `arcmemo` command."""

from arcmemo.cli import cli

cli(prog_name="arcmemo")
