"""A user's directory of templates (`--prompts DIR`, setting prompts_dir), read and checked whole.

Layout: the shipped layout, each file optional. arcmemo's own templates at the top
(`DIR/select_ps.txt`), a solver's in a folder named after the solver
(`DIR/program-synthesis/solve.txt`); `arcmemo prompts export DIR` writes exactly this.
Names starting with "." are ignored (a git folder, editor files).

Everything is checked before anything runs, and the first problem is one PromptError
naming the file: a directory that does not exist, a file or folder that matches no shipped
template, a file that does not parse (templatefile.py), a text that uses a variable its
template does not take or leaves out a required one.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from arcmemo.prompts import BUILTINS, Templates, template_sets
from arcmemo.prompts.templatefile import PromptError, TemplateFile, check_uses, parse_template


def read_prompt_dir(directory: str | Path, sets: Iterable[Templates] | None = None) -> dict[tuple[str, str], TemplateFile]:
    """The checked files of `directory`: (set name, template name) -> TemplateFile. `sets`: the
    template sets a file may replace (default: every set known to this process)."""
    directory = Path(directory).expanduser()
    if not directory.is_dir():
        problem = "not a directory" if directory.exists() else "no such directory"
        raise PromptError(f"{directory}: {problem} (the prompts directory: --prompts or setting prompts_dir)")
    by_name = {t.name: t for t in (template_sets() if sets is None else sets)}
    solvers = sorted(n for n in by_name if n)
    found: dict[tuple[str, str], TemplateFile] = {}
    for path in _visible(directory):
        if path.is_dir():
            if path.name not in solvers:
                raise PromptError(f"{path}: no solver's templates are called {path.name!r} ({_hint(path.name, solvers)}"
                                  f"a folder here holds a solver's templates: {', '.join(solvers) or 'none known'})")
            for inner in _visible(path):
                found[(path.name, inner.stem)] = _read(inner, by_name[path.name], by_name)
        else:
            found[("", path.stem)] = _read(path, by_name[""], by_name)
    return found


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith("."))


def _read(path: Path, templates: Templates, every: dict[str, Templates]) -> TemplateFile:
    known = templates.names()
    if path.is_dir() or path.suffix != ".txt" or path.stem not in known:
        elsewhere = [t.qualified(path.stem) + ".txt" for t in every.values() if path.stem in t.names()]
        hint = f"did you mean {elsewhere[0]}? " if elsewhere and path.suffix == ".txt" else _hint(path.stem, known)
        whose = f"{templates.name}'s" if templates.name else "arcmemo's"
        raise PromptError(f"{path}: matches no shipped template ({hint}{whose}: "
                          f"{', '.join(name + '.txt' for name in known)})")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PromptError(f"{path}: cannot read ({exc.strerror})") from None
    file = parse_template(data, str(path))
    check_uses(file, templates.declared(path.stem), templates.qualified(path.stem), BUILTINS)
    return file


def _hint(given: str, names: list[str]) -> str:
    close = difflib.get_close_matches(given, names, n=1)
    return f"did you mean {close[0]!r}? " if close else ""


__all__ = ["read_prompt_dir"]
