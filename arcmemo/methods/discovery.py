"""Memory method discovery: every installed distribution with an entry point in the group
`arcmemo.methods` is a memory method, found with no change to arcmemo:

    [project.entry-points."arcmemo.methods"]
    my-method = "my_package:MyMethod"

The entry point names a class (instantiated with no arguments) or a ready instance that
follows arcmemo.methods.contract.MemoryMethod.

Discovery is arcmemo's one plugin discovery (core/plugins.py): arcmemo's own methods are the
entry points of its distribution (pyproject.toml, as installed), and their names are arcmemo's:
another distribution's entry point with the same name is listed with that error and never
loaded. Names come from entry points alone, without importing any plugin (`method_names`, what
the command line offers); a plugin is imported when it is used or listed with `check`, and one
that fails to load is listed with its error, never breaking another command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arcmemo.core import plugins
from arcmemo.core.plugins import Plugin, PluginError

if TYPE_CHECKING:
    from arcmemo.methods.contract import MemoryMethod

ENTRY_POINT_GROUP = "arcmemo.methods"
# The order the help and `methods list` show arcmemo's own methods in: the default first, ArcMemo's
# two, the baselines, then the other papers'. Only the order: which methods arcmemo ships, and
# where each is, are its distribution's entry points; one not named here is listed after these.
LISTING_ORDER = ("ps", "oe", "none", "all", "cheatsheet", "reasoningbank", "dc-rs", "ace")


class MethodError(PluginError):
    """A memory method could not be found or loaded; the message names it and what went wrong."""


METHODS = plugins.Kind(ENTRY_POINT_GROUP, "memory method", MethodError, LISTING_ORDER)


def available_methods() -> dict[str, Plugin]:
    """Installed methods by name: arcmemo's own first (LISTING_ORDER), then the others by name."""
    return dict(plugins.found(METHODS).plugins)


def shipped_methods() -> dict[str, str]:
    """arcmemo's own methods: name -> entry point, in the order they are listed."""
    return {name: entry.value for name, entry in plugins.found(METHODS).own.items()}


def method_names() -> tuple[str, ...]:
    """The installed methods' names (no plugin imported)."""
    return plugins.names(METHODS)


MODES = plugins.Names(METHODS)          # the names, looked up when first used

_loaded: dict[tuple[str, str], Any] = {}


def load_method(name: str) -> MemoryMethod:
    """The method `name`, loaded once per process (MethodError: unknown, or it does not load)."""
    key = (name, plugins.plugin(METHODS, name).value)
    if key not in _loaded:
        _loaded[key] = _checked(name, key[1], plugins.load(METHODS, name))
    return _loaded[key]


def _checked(name: str, value: str, method: Any) -> MemoryMethod:
    lacking = missing_members(method)
    if lacking:
        raise MethodError(f"memory method {name!r} ({value}) lacks {', '.join(lacking)} of the contract "
                          "(arcmemo.methods.contract.MemoryMethod): subclass arcmemo.methods.MethodBase, which "
                          "gives each a default")
    if getattr(method, "name", None) != name:
        try:
            method.name = name
        except AttributeError:
            raise MethodError(f"memory method {name!r} ({value}) calls itself {method.name!r}") from None
    return method


def missing_members(method: Any) -> list[str]:
    """The members of the method contract `method` lacks (a method the run could not ask)."""
    from arcmemo.methods.contract import MemoryMethod

    names = set(MemoryMethod.__annotations__) | {n for n, v in vars(MemoryMethod).items()
                                                   if callable(v) and not n.startswith("_")}
    return sorted(n for n in names if not hasattr(method, n))


def describe_methods(*, check: bool = True) -> list[dict[str, Any]]:
    """One row per method entry point: name, entry point, where it comes from and (with `check`)
    its description, formats, options with their defaults, whether it probes memory's helpers by
    default, where it departs from its paper, and whether it loads; a method that fails is
    reported, not raised."""
    installed = plugins.found(METHODS)
    rows = []
    for name, entry in installed.plugins.items():
        row = _row(entry)
        if check:
            try:
                method = load_method(name)
                row.update(status="ok", description=str(method.description or ""), formats=list(method.formats),
                           options=method.option_values({}), probe=bool(method.probes_by_default),
                           departures=list(method.departures))
            except MethodError as exc:
                row.update(status="error", error=str(exc))
        rows.append(row)
    rows += [{**_row(entry), "status": "error", "error": f"not used: {why}"} for entry, why in installed.refused]
    return rows


def _row(entry: Plugin) -> dict[str, Any]:
    return {"name": entry.name, "entry_point": entry.value, "origin": entry.origin, "description": None,
            "formats": None, "options": None, "probe": None, "departures": None, "status": None, "error": None}


__all__ = ["ENTRY_POINT_GROUP", "LISTING_ORDER", "METHODS", "MODES", "MethodError", "available_methods",
           "describe_methods", "load_method", "method_names", "shipped_methods"]
