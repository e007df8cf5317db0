"""Memory method discovery: every installed distribution with an entry point in the group
`arcmemo.methods` is a memory method, found with no change to arcmemo:

    [project.entry-points."arcmemo.methods"]
    my-method = "my_package:MyMethod"

The entry point names a class (instantiated with no arguments) or a ready instance that
follows arcmemo.methods.contract.MemoryMethod.

arcmemo's own methods are in its pyproject.toml too, and also known here (SHIPPED), so a
source checkout on the import path (or an install whose metadata predates a method) has
them all; their names are arcmemo's: another distribution's entry point with the same name
is listed with that error and never loaded.

Names come from entry points alone, without importing any plugin (`method_names`, what the
command line offers); a plugin is imported when it is used or listed with `check`, and one
that fails to load is listed with its error, never breaking another command.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from typing import Any

from arcmemo.core.errors import ArcmemoError

ENTRY_POINT_GROUP = "arcmemo.methods"
# arcmemo's own methods, as in pyproject.toml (a test keeps the two the same), in the order the help lists them
SHIPPED = {
    "ps": "arcmemo.methods.arcmemo.ps:ArcMemoPS",
    "oe": "arcmemo.methods.arcmemo.oe:ArcMemoOE",
    "none": "arcmemo.methods.baselines:NoMemory",
    "all": "arcmemo.methods.baselines:WholeMemory",
    "cheatsheet": "arcmemo.methods.dynamic_cheatsheet.cumulative:Cheatsheet",
    "reasoningbank": "arcmemo.methods.reasoningbank.method:ReasoningBank",
    "dc-rs": "arcmemo.methods.dynamic_cheatsheet.retrieval_synthesis:DynamicCheatsheetRS",
    "ace": "arcmemo.methods.ace.method:ACE",
}
OWN = "arcmemo"


class MethodError(ArcmemoError, LookupError):
    """A memory method could not be found or loaded; the message names it and what went wrong."""


def _entry_point(name: str, value: str):
    from importlib import metadata

    return metadata.EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)


def _dist_name(ep) -> str | None:
    dist = getattr(ep, "dist", None)
    return dist.metadata["Name"] if dist is not None else None


def _scan() -> tuple[dict[str, Any], list[tuple[Any, str]]]:
    """(usable entry points by name, [(entry point, why it is not usable)])."""
    from importlib import metadata

    found: dict[str, Any] = {}
    refused: list[tuple[Any, str]] = []
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in SHIPPED:
            if _dist_name(ep) != OWN and ep.value != SHIPPED[ep.name]:
                refused.append((ep, f"the name {ep.name!r} is arcmemo's own method's"))
            elif ep.name not in found:
                found[ep.name] = ep
            continue
        if ep.name in found:
            refused.append((ep, f"the name {ep.name!r} is taken by {found[ep.name].value}"))
            continue
        found[ep.name] = ep
    for name, value in SHIPPED.items():
        found.setdefault(name, _entry_point(name, value))
    return found, refused


_cache: dict[tuple[str, ...], tuple[dict[str, Any], list[tuple[Any, str]]]] = {}


def _found() -> tuple[dict[str, Any], list[tuple[Any, str]]]:
    key = tuple(sys.path)           # a distribution put on the path later is found then
    if key not in _cache:
        _cache.clear()
        _cache[key] = _scan()
    return _cache[key]


def available_methods() -> dict[str, Any]:
    """Installed methods by name: arcmemo's own first (SHIPPED order), then the others sorted."""
    found = _found()[0]
    others = sorted(n for n in found if n not in SHIPPED)
    return {name: found[name] for name in [*SHIPPED, *others]}


def method_names() -> tuple[str, ...]:
    """The installed methods' names (no plugin imported)."""
    return tuple(available_methods())


class MethodNames(Sequence):
    """`method_names()` as a sequence looked up when first used (the command line builds its
    options at import, before it knows whether a method name will be needed)."""

    def _names(self) -> tuple[str, ...]:
        return method_names()

    def __getitem__(self, index):
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, name: object) -> bool:
        return name in SHIPPED or name in self._names()

    def __repr__(self) -> str:
        return f"MethodNames({', '.join(self._names())})"


MODES = MethodNames()


_loaded: dict[tuple[str, str], Any] = {}


class _Own:
    """One of arcmemo's own methods as its entry point would load it, without reading the
    installed distributions (no other can claim its name: `_scan`): a solve's start-up."""

    def __init__(self, value: str):
        self.value = value

    def load(self) -> Any:
        import importlib

        module, _, attribute = self.value.partition(":")
        return getattr(importlib.import_module(module), attribute)


def load_method(name: str):
    """The method `name`, loaded once per process (MethodError: unknown, or it does not load)."""
    methods = {name: _Own(SHIPPED[name])} if name in SHIPPED else available_methods()
    if name not in methods:
        raise MethodError(f"no memory method named {name!r} (entry point group {ENTRY_POINT_GROUP!r}; "
                          f"available: {', '.join(methods)})")
    ep = methods[name]
    key = (name, ep.value)
    if key not in _loaded:
        _loaded[key] = _instantiate(name, ep)
    return _loaded[key]


def _instantiate(name: str, ep):
    try:
        obj = ep.load()
    except Exception as exc:  # an import failure inside a third-party package
        raise MethodError(f"memory method {name!r} ({ep.value}) failed to import: "
                          f"{type(exc).__name__}: {exc}") from exc
    try:
        method = obj() if isinstance(obj, type) else obj
    except Exception as exc:
        raise MethodError(f"memory method {name!r} ({ep.value}) failed to start: "
                          f"{type(exc).__name__}: {exc}") from exc
    lacking = missing_members(method)
    if lacking:
        raise MethodError(f"memory method {name!r} ({ep.value}) lacks {', '.join(lacking)} of the contract "
                          "(arcmemo.methods.contract.MemoryMethod): subclass arcmemo.methods.MethodBase, which "
                          "gives each a default")
    if getattr(method, "name", None) != name:
        try:
            method.name = name
        except AttributeError:
            raise MethodError(f"memory method {name!r} ({ep.value}) calls itself {method.name!r}") from None
    return method


def missing_members(method: Any) -> list[str]:
    """The members of the method contract `method` lacks (a method the run could not ask)."""
    from arcmemo.methods.contract import MemoryMethod

    names = set(MemoryMethod.__annotations__) | {n for n, v in vars(MemoryMethod).items()
                                                   if callable(v) and not n.startswith("_")}
    return sorted(n for n in names if not hasattr(method, n))


def _origin(ep) -> str:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return f"{OWN} (built in)" if ep.name in SHIPPED and ep.value == SHIPPED[ep.name] else "?"
    return f"{dist.metadata['Name']} {dist.version}"


def describe_methods(*, check: bool = True) -> list[dict[str, Any]]:
    """One row per method entry point: name, entry point, where it comes from and (with `check`)
    its description, formats, options with their defaults, whether it probes memory's helpers by
    default, where it departs from its paper, and whether it loads; a method that fails is
    reported, not raised."""
    rows = []
    for name, ep in available_methods().items():
        row: dict[str, Any] = {"name": name, "entry_point": ep.value, "origin": _origin(ep), "description": None,
                               "formats": None, "options": None, "probe": None, "departures": None, "status": None,
                               "error": None}
        if check:
            try:
                method = load_method(name)
                row.update(status="ok", description=str(method.description or ""), formats=list(method.formats),
                           options=method.option_values({}), probe=bool(method.probes_by_default),
                           departures=list(method.departures))
            except MethodError as exc:
                row.update(status="error", error=str(exc))
        rows.append(row)
    for ep, why in _found()[1]:
        rows.append({"name": ep.name, "entry_point": ep.value, "origin": _origin(ep), "description": None,
                     "formats": None, "options": None, "probe": None, "departures": None, "status": "error",
                     "error": f"not used: {why}"})
    return rows


__all__ = ["ENTRY_POINT_GROUP", "SHIPPED", "MODES", "MethodError", "MethodNames",
           "available_methods", "describe_methods", "load_method", "method_names"]
