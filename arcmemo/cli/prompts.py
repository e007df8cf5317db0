"""`arcmemo prompts list|show|export`: the prompt templates, where each comes from, what it takes.

A user changes the wording by exporting the shipped templates to a folder, editing the
ones to change (deleting the others, which then stay the shipped ones), and running with
`--prompts DIR` (logic: arcmemo.prompts, arcmemo.run.prompting).
"""

from __future__ import annotations

from pathlib import Path

import click

from arcmemo.cli.common import UserError, echo_json, prompts_option
from arcmemo.core.table import counted


@click.group("prompts")
def prompts() -> None:
    """The prompt templates: see them, copy them to edit, run with your own (--prompts DIR)."""


def _setup(prompts_dir):
    """The settings' prompts directory read and checked (PromptError naming the file if not)."""
    from arcmemo.core.settings import Settings
    from arcmemo.run.prompting import PromptSetup

    return PromptSetup(Settings.load(prompts_dir=prompts_dir).prompts_dir)


def _rows() -> list[dict]:
    """One row per template of every set, as in force."""
    from arcmemo.prompts import SHIPPED
    from arcmemo.run.prompting import load_template_sets

    rows = []
    for templates in load_template_sets():
        for name in templates.names():
            declared, file = templates.declared(name), templates.load(name)
            rows.append({"name": templates.qualified(name), "source": file.where if file is not templates.shipped(name)
                         else SHIPPED, "required": list(declared.required), "optional": list(declared.optional),
                         "about": declared.about, "hash": file.digest})
    return rows


@prompts.command("list")
@prompts_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_prompts(prompts_dir, as_json) -> None:
    """Every template: its name, where it comes from (shipped, or your file in --prompts DIR) and
    the variables it takes ([optional] ones in brackets)."""
    from arcmemo.core.table import table
    from arcmemo.prompts import BUILTINS

    with _setup(prompts_dir):
        rows = _rows()
    if as_json:
        echo_json(rows)
        return
    click.echo(table([(r["name"], r["source"], " ".join([*(f"${v}" for v in r["required"]),
                                                          *(f"[${v}]" for v in r["optional"])]) or "-", r["about"])
                      for r in rows], ("name", "from", "takes", "what it is")))
    click.echo(f"\nAny template may also use {', '.join('$' + b for b in BUILTINS)}: how grids are written "
               "(--grid-text).")


def _find(name: str):
    """(Templates, template name) for a name as `prompts list` shows it; UserError if none."""
    import difflib

    from arcmemo.run.prompting import load_template_sets

    wanted = name.removesuffix(".txt")
    known = {}
    for templates in load_template_sets():
        for each in templates.names():
            known[templates.qualified(each)] = (templates, each)
    if wanted in known:
        return known[wanted]
    close = difflib.get_close_matches(wanted, list(known), n=1)
    raise UserError(f"no prompt template named {name!r}" + (f"; did you mean {close[0]!r}?" if close else "")
                    + " (`arcmemo prompts list` shows them all)")


@prompts.command("show")
@click.argument("name")
@prompts_option
def show_prompt(name, prompts_dir) -> None:
    """Print template NAME as a run would use it (your file in --prompts DIR, else the shipped
    one), its header included."""
    with _setup(prompts_dir):
        templates, template = _find(name)
        file = templates.load(template)
    click.echo(Path(file.where).read_text(encoding="utf-8"), nl=False)


@prompts.command("export")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.argument("names", nargs=-1)
@click.option("--force", is_flag=True, help="Overwrite templates already in DIRECTORY.")
def export_prompts(directory: Path, names, force) -> None:
    """Copy the shipped templates (or only NAMES) into DIRECTORY, laid out as --prompts reads them.

    Edit the ones to change and delete the others (a template missing from the folder is the
    shipped one). Nothing is written if any file is already there, unless --force."""
    from arcmemo.run.prompting import load_template_sets

    chosen = [_find(n) for n in names] or [(t, n) for t in load_template_sets() for n in t.names()]
    targets = [(templates.shipped(name).where, directory / f"{templates.qualified(name)}.txt")
               for templates, name in chosen]
    existing = [str(target) for _, target in targets if target.exists()]
    if existing and not force:
        raise UserError(f"{existing[0]} already exists{f' (and {len(existing) - 1} more)' if len(existing) > 1 else ''}:"
                        " pass --force to overwrite")
    for source, target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(Path(source).read_bytes())
    click.echo(f"wrote {counted(len(targets), 'template')} to {directory}: edit the ones to change, delete the others, "
               f"then run with --prompts {directory}")


COMMANDS = [prompts]
