"""Helpers joined into the one module a program imports them from (`memory_helpers`): a set of
helpers and everything they call, in one module's source text.

Only text is made here; the module runs in the sandbox alone (run/stages/probe.py,
run/helpers/verify.py, run/helpers/behaviour.py give it to the sandbox).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping

from arcmemo.core.helpermodule import MODULE
from arcmemo.memory.helpers.source import parse_source
from arcmemo.memory.helpers.value import Helper


def _without_helper_imports(source: str) -> str:
    """The source minus its `from memory_helpers import ...` lines (in the module they are defined alongside)."""
    tree = parse_source(source)
    drop = {line for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == MODULE
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
    if not drop:
        return source
    return "".join(line for i, line in enumerate(source.splitlines(keepends=True), 1) if i not in drop)


def closure(names: Iterable[str], depends: Callable[[str], Iterable[str]]) -> list[str]:
    """`names` and everything they depend on (transitively), sorted; `depends(name)` lists a helper's."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(depends(name))
    return sorted(seen)


def build_module(sources: Mapping[str, str]) -> str:
    """One module of helpers (name -> source, dependencies included), in name order. Each function
    finds the others as globals of the module, so the order does not matter for calls."""
    parts = [f'"""Helpers from memory: {", ".join(sorted(sources))}."""\n']
    parts += [_without_helper_imports(sources[name]).strip() + "\n" for name in sorted(sources)]
    return "\n\n".join(parts)


def module_of(helpers: Mapping[str, Helper], names: Iterable[str]) -> str:
    """One module of the named helpers and every helper they call (`helpers`: function name ->
    helper; a name not among them is left out)."""
    needed = closure(list(names), lambda name: helpers[name].depends if name in helpers else ())
    return build_module({name: helpers[name].source for name in needed if name in helpers})


__all__ = ["build_module", "closure", "module_of"]
