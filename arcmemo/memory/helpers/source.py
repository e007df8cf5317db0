"""The source text of concept helpers: checking it against its concept, describing it, and
reading which helpers a program imports.

A PS concept may carry a *helper*: one Python function implementing it (DESIGN.md section
11). This module only ever *reads* helper source (with `ast`); helper code is model- or
person-written and runs only in the sandbox, where the helpers a task is offered are one
importable module, `memory_helpers` (core/helpermodule.py's MODULE; modules.py joins them).

A helper's source is import statements plus exactly one function:

- the function's name is the concept's name as an identifier (`helper_name`: "crop to
  bounding box" -> `crop_to_bounding_box`);
- its first parameters are the concept's parameters, by name and in order; any further
  parameter has a default;
- its docstring has a one-line summary and a line starting `Example:`;
- it imports only numpy, scipy and other helpers (`from memory_helpers import name`);
- every name it uses is its own, a builtin, an import, or another helper's function: those
  are its dependencies (`depends`), joined into the module with it.

`check_helper` raises HelperError naming the problem; messages are one line; `check_helper_of`
says the same as the concept schema's ConceptDataError at field "helper".
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arcmemo.core import pyast
from arcmemo.core.errors import ArcmemoError
from arcmemo.core.helpermodule import MODULE
from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.helpers.value import Helper

ALLOWED_IMPORTS = ("numpy", "scipy")          # and their submodules
MAX_SOURCE = 20_000                            # characters of one helper
RESERVED = frozenset({"transform", "main", MODULE}) | frozenset(dir(builtins)) | frozenset(keyword.kwlist)
EXAMPLE = "Example:"


class HelperError(ArcmemoError, ValueError):
    """A helper's source cannot be used: the message says why, in one line."""


@dataclass(frozen=True)
class HelperInfo:
    """What a checked helper's source says about itself."""

    name: str
    signature: str            # "crop_to_bounding_box(grid, mask=None)"
    summary: str              # the docstring's first line
    doc: str                  # the whole docstring, dedented
    depends: tuple[str, ...]  # other helpers it calls, sorted


def helper_name(concept_name: str) -> str:
    """The function name of a concept's helper: lower case, runs of other characters as `_`."""
    name = re.sub(r"[^0-9a-z]+", "_", concept_name.lower()).strip("_")
    if not name or not (name[0].isalpha() and name.isascii()):
        raise HelperError(f"the concept name {concept_name!r} does not start with a letter, so no function "
                          "can be named after it")
    if name in RESERVED:
        raise HelperError(f"the concept name {concept_name!r} would name its helper {name!r}, which is a "
                          "Python or sandbox name a program needs; rename the concept")
    return name


def parse_source(source: str) -> ast.Module:
    """A helper's source parsed; HelperError when it is empty, too long or not Python."""
    if not isinstance(source, str) or not source.strip():
        raise HelperError("the helper source is empty")
    if len(source) > MAX_SOURCE:
        raise HelperError(f"the helper source is {len(source):,} characters, more than {MAX_SOURCE:,}")
    try:
        return pyast.parse(source)
    except SyntaxError as exc:
        raise HelperError(f"the helper does not parse: line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise HelperError(f"the helper does not parse: {type(exc).__name__}") from None


def _imports(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(names the imports bind, helpers imported from MODULE); HelperError for any other import."""
    bound, helpers = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in ALLOWED_IMPORTS:
                    raise HelperError(f"line {node.lineno}: imports {alias.name!r}; a helper may import only "
                                      f"numpy, scipy and other helpers (from {MODULE} import ...)")
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or (module != MODULE and module.split(".")[0] not in ALLOWED_IMPORTS):
                raise HelperError(f"line {node.lineno}: imports from {'.' * node.level + module!r}; a helper may "
                                  f"import only numpy, scipy and other helpers (from {MODULE} import ...)")
            for alias in node.names:
                if alias.name == "*":
                    raise HelperError(f"line {node.lineno}: 'import *' hides which names the helper uses; "
                                      "import them by name")
                if module == MODULE and alias.asname not in (None, alias.name):
                    raise HelperError(f"line {node.lineno}: import the helper {alias.name!r} under its own name")
                (helpers if module == MODULE else bound).add(alias.asname or alias.name)
    return bound, helpers


def _bound_names(fn: ast.AST) -> set[str]:
    """Every name the function binds anywhere inside it (arguments, assignments, loops, nested defs...)."""
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.alias,)):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
    return names


def _signature(fn: ast.FunctionDef) -> str:
    return f"{fn.name}({ast.unparse(fn.args)})"


def _check_parameters(fn: ast.FunctionDef, parameters: Sequence[str]) -> None:
    args = fn.args
    if args.vararg or args.kwarg:
        raise HelperError(f"{_signature(fn)}: takes *args or **kwargs; give every parameter a name")
    positional = [a.arg for a in args.posonlyargs + args.args]
    if not parameters and positional[:1] and len(args.defaults) < len(positional):
        raise HelperError(f"{_signature(fn)}: the concept lists no parameters; list the helper's parameters "
                          "(name, typing, description) in the concept")
    if positional[:len(parameters)] != list(parameters):
        raise HelperError(f"{_signature(fn)}: its first parameters must be the concept's, in order: "
                          f"({', '.join(parameters)})")
    required = len(positional) - len(args.defaults)
    if required > len(parameters):
        extra = positional[len(parameters):required]
        raise HelperError(f"{_signature(fn)}: parameter(s) {', '.join(extra)} are not the concept's; "
                          "give them defaults or add them to the concept's parameters")


def _docstring(fn: ast.FunctionDef) -> tuple[str, str]:
    doc = ast.get_docstring(fn, clean=True) or ""
    lines = [line.strip() for line in doc.splitlines()]
    if not lines or not lines[0]:
        raise HelperError(f"{_signature(fn)}: needs a docstring whose first line says what it does")
    if not any(line.startswith(EXAMPLE) for line in lines):
        raise HelperError(f"{_signature(fn)}: its docstring needs an example, a line starting {EXAMPLE!r}")
    return lines[0], doc


def check_helper(source: str, name: str, parameters: Sequence[str] | None = (), *,
                 helpers: Iterable[str] = ()) -> HelperInfo:
    """Check one helper's source against its concept (see the module docstring); `helpers` are
    the function names of the other helpers it may call; `parameters` None skips the check of
    the parameters (a partial concept about to merge into a stored one). Raises HelperError."""
    tree = parse_source(source)
    functions = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.FunctionDef):
            functions.append(node)
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node is tree.body[0]:
            continue  # a module docstring
        what = "an async function" if isinstance(node, ast.AsyncFunctionDef) else type(node).__name__.lower()
        raise HelperError(f"line {node.lineno}: a helper is imports and one function; this is {what} "
                          "(put constants and inner functions inside the function)")
    if len(functions) != 1:
        found = ", ".join(f.name for f in functions) or "none"
        raise HelperError(f"a helper defines exactly one function, {name}(...); found {found}")
    fn = functions[0]
    if fn.name != name:
        raise HelperError(f"defines {fn.name}(...), but this concept's helper must be named {name}")
    if fn.decorator_list:
        raise HelperError(f"{_signature(fn)}: decorators are not allowed")
    if parameters is not None:
        _check_parameters(fn, parameters)
    summary, doc = _docstring(fn)
    imported, from_module = _imports(tree)
    known = set(helpers) - {name}
    unknown = sorted(from_module - known)
    if unknown:
        raise HelperError(f"imports {', '.join(unknown)} from {MODULE}, which no other concept's helper defines")
    free = {node.id for node in ast.walk(fn) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    free -= _bound_names(fn) | imported | set(dir(builtins)) | {name}
    undefined = sorted(free - known)
    if undefined:
        raise HelperError(f"{_signature(fn)}: uses {', '.join(undefined)}, which it neither defines nor imports "
                          "and no other concept's helper is named")
    depends = tuple(sorted((free & known) | from_module))
    return HelperInfo(name=name, signature=_signature(fn), summary=summary, doc=doc, depends=depends)


def describe(source: str) -> HelperInfo:
    """Signature and docstring of an already checked helper (for prompts; no dependency check)."""
    tree = parse_source(source)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if fn is None:
        raise HelperError("the helper defines no function")
    doc = ast.get_docstring(fn, clean=True) or ""
    return HelperInfo(name=fn.name, signature=_signature(fn), summary=(doc.splitlines() or [""])[0].strip(),
                      doc=doc, depends=())


def check_helper_of(concept: str, parameters: list[str] | None, name: str, source: str, depends: list[str]) -> list[str]:
    """A helper's source against its concept: its name, its parameters (None: a partial concept
    gives none; the store checks the concept it merges into), docstring and imports, and the
    helpers it calls being exactly the `depends` it lists (whether those exist is the store's
    check). Returns the dependencies sorted; ConceptDataError at field "helper"."""
    try:
        expected = helper_name(concept)
        if name != expected:
            raise HelperError(f"is named {name!r}; the helper of concept {concept!r} is named {expected}")
        info = check_helper(source, name, parameters, helpers=depends)
    except HelperError as exc:
        raise ConceptDataError(str(exc), "helper") from None
    if sorted(set(depends)) != list(info.depends):
        raise ConceptDataError(f"lists {', '.join(depends) or 'no helpers'} under depends, but calls "
                               f"{', '.join(info.depends) or 'none'}", "helper.depends")
    return list(info.depends)


def imported_helpers(program: str) -> list[str]:
    """The names a program takes from the helpers' module: `from memory_helpers import a, b`, or
    `memory_helpers.a` after `import memory_helpers` (a program that does not parse imports none)."""
    try:
        tree = pyast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == MODULE:
            names.update(alias.name for alias in node.names if alias.name != "*")
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == MODULE):
            names.add(node.attr)
    return sorted(names)


def same_code_key(helper: Helper) -> str | None:
    """A helper's code with its function's name and docstring left out (None if it does not parse):
    two helpers with the same key are the same function under two names."""
    name = helper.name
    try:
        tree = pyast.parse(helper.source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            node.name = "_"
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                node.body = body[1:] or [ast.Pass()]
        elif isinstance(node, ast.Name) and node.id == name:
            node.id = "_"
    return ast.dump(tree) + repr(sorted(helper.depends))


__all__ = ["ALLOWED_IMPORTS", "MAX_SOURCE", "HelperError", "HelperInfo", "helper_name", "check_helper",
           "check_helper_of", "describe", "parse_source", "imported_helpers", "same_code_key"]
