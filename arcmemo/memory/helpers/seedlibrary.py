"""The hand-written helpers of a seed directory: `memory_helpers.py` beside the seeds.

Each function of the library is the helper of the annotated concept it is named after
(`helper_name`: "crop to bounding box" -> `crop_to_bounding_box`); the annotated seeds'
programs import them from `memory_helpers`, the module the sandbox builds from memory for a
task. So a seed is verified the way memory serves it: its program runs with a module built
from the helpers of the concepts its annotation names (and the helpers they call), and it
must call each of them (directly, or through another helper it calls).

The library holds only imports and functions; each function's stored source is the function
plus the library's imports it uses. The file is read, never imported: its functions run in
the sandbox only.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arcmemo.core import pyast
from arcmemo.core.errors import ArcmemoError
from arcmemo.core.helpermodule import MODULE
from arcmemo.memory.helpers.modules import build_module, closure
from arcmemo.memory.helpers.source import HelperError, check_helper, helper_name

LIBRARY = f"{MODULE}.py"


class HelperLibraryError(ArcmemoError, ValueError):
    """The library or one of its helpers cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class SeedHelper:
    """One library function as the helper of a concept."""

    name: str
    source: str                  # the function and the imports it uses
    depends: tuple[str, ...]     # other library helpers it calls
    line: int                    # where it starts in the library


def library_path(directory: str | Path) -> Path:
    return Path(directory) / LIBRARY


def read_library(directory: str | Path) -> dict[str, SeedHelper]:
    """The helpers of a seed directory by function name ({} when it has no library)."""
    path = library_path(directory)
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
        tree = pyast.parse(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise HelperLibraryError(f"{path}: cannot read ({exc})") from None
    except SyntaxError as exc:
        raise HelperLibraryError(f"{path}:{exc.lineno}: not valid Python ({exc.msg})") from None
    imports, functions = [], []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        elif isinstance(node, ast.FunctionDef):
            functions.append(node)
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node is tree.body[0]):
            raise HelperLibraryError(f"{path}:{node.lineno}: the library holds only imports and helper functions")
    names = {fn.name for fn in functions}
    helpers = {}
    for fn in functions:
        used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
        needed = [ast.get_source_segment(text, node) for node in imports
                  if any((alias.asname or alias.name).split(".")[0] in used for alias in node.names)]
        source = "\n".join(needed) + ("\n\n\n" if needed else "") + ast.get_source_segment(text, fn) + "\n"
        try:
            info = check_helper(source, fn.name, _own_parameters(fn), helpers=names)
        except HelperError as exc:  # its "line N" counts in the extracted source: name the function instead
            raise HelperLibraryError(f"{path}:{fn.lineno}: {fn.name}: {re.sub(r'^line [0-9]+: ', '', str(exc))}") from None
        helpers[fn.name] = SeedHelper(fn.name, source, info.depends, fn.lineno)
    return helpers


def _own_parameters(fn: ast.FunctionDef) -> list[str]:
    """The function's parameters without defaults: the least any concept of it must list."""
    positional = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    return positional[:len(positional) - len(fn.args.defaults)]


def concept_helpers(concepts: Iterable[Mapping], library: Mapping[str, SeedHelper]) -> dict[str, SeedHelper]:
    """The annotation's concepts that have a helper in the library: concept name -> helper."""
    found = {}
    for concept in concepts:
        try:
            name = helper_name(concept["name"])
        except HelperError:
            continue
        if name in library:
            found[concept["name"]] = library[name]
    return found


def check_against_concept(helper: SeedHelper, concept: Mapping, library: Mapping[str, SeedHelper]) -> None:
    """The helper's parameters start with the concept's (when the annotation gives them)."""
    params = [p["name"] for p in concept.get("parameters") or []]
    if params:
        check_helper(helper.source, helper.name, params, helpers=library)


def module_for(helpers: Iterable[SeedHelper], library: Mapping[str, SeedHelper]) -> str:
    """The `memory_helpers` module of a seed: its concepts' helpers and everything they call."""
    names = closure([h.name for h in helpers], lambda name: library[name].depends)
    return build_module({name: library[name].source for name in names})


def uncalled(wanted: Sequence[SeedHelper], called: Iterable[str], library: Mapping[str, SeedHelper]) -> list[str]:
    """The wanted helpers the program neither called nor reached through a helper it called."""
    reached = set(closure(called, lambda name: library[name].depends if name in library else ()))
    return [h.name for h in wanted if h.name not in reached]


def standalone(code: str, library: Mapping[str, SeedHelper]) -> str:
    """A seed's program that imports helpers, made self-contained: the helpers it imports (and
    those they call) written out above it, its `from memory_helpers import` lines dropped."""
    tree = pyast.parse(code)
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == MODULE]
    if not imports:
        return code
    wanted = [library[alias.name] for node in imports for alias in node.names]
    drop = {line for node in imports for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
    kept = "".join(line for i, line in enumerate(code.splitlines(keepends=True), 1) if i not in drop)
    return module_for(wanted, library) + "\n\n" + kept


__all__ = ["LIBRARY", "HelperLibraryError", "SeedHelper", "library_path", "read_library", "concept_helpers",
           "check_against_concept", "module_for", "uncalled", "standalone"]
