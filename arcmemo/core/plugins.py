"""Plugin discovery, one for every kind of plugin (solvers, memory methods): whatever an installed
distribution declares under the kind's entry point group is found with no change to arcmemo:

    [project.entry-points."arcmemo.solvers"]        # or "arcmemo.methods"
    my-plugin = "my_package:MyPlugin"

The same rules for every kind:
- arcmemo's own plugins are the entry points of the `arcmemo` distribution (its pyproject.toml,
  as installed: a source checkout is installed with `pip install -e .`, again after its
  pyproject gains a plugin);
- a name arcmemo ships is arcmemo's: another distribution's entry point with that name is
  refused (listed with the reason, never loaded); among the others, the first on the import
  path keeps a name and a later one with another value is refused;
- names come from the entry points alone (remembered in the user directory, core/entrypoints.py,
  and here for the process until the import path changes): no plugin is imported until it is
  loaded, so the command line can offer the names at start-up;
- a plugin that cannot be found or loaded is a `PluginError` naming it and what went wrong
  (a kind may raise a subclass of its own, for its messages).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arcmemo.core.errors import ArcmemoError

OWN = "arcmemo"             # the distribution whose plugins are arcmemo's own


class PluginError(ArcmemoError, LookupError):
    """A plugin could not be found or loaded; the message names it and what went wrong."""


@dataclass(frozen=True)
class Kind:
    """A kind of plugin: its entry point group, what one is called in messages, the error its
    problems raise, and the order arcmemo's own are listed in (the rest after them, by name)."""

    group: str
    noun: str
    error: type[PluginError] = PluginError
    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plugin:
    """One entry point: `value` is `module:attribute` (the attribute may be dotted)."""

    name: str
    value: str
    distribution: str | None
    version: str | None

    @property
    def own(self) -> bool:
        return _normalized(self.distribution) == OWN

    @property
    def origin(self) -> str:
        """The distribution and version it comes from ("?" when the finder gave none)."""
        return f"{self.distribution} {self.version}" if self.distribution else "?"

    @property
    def module(self) -> str:
        return self.value.partition("[")[0].partition(":")[0].strip()

    def load(self) -> object:
        """What the entry point names, imported (as importlib.metadata.EntryPoint.load does, without
        importing importlib.metadata: a solve's start-up)."""
        import importlib

        found: object = importlib.import_module(self.module)
        for part in filter(None, self.value.partition("[")[0].partition(":")[2].strip().split(".")):
            found = getattr(found, part)
        return found


@dataclass(frozen=True)
class Found:
    """What is installed of a kind: the usable plugins by name (arcmemo's own first), and those
    refused, each with why."""

    plugins: dict[str, Plugin]
    refused: tuple[tuple[Plugin, str], ...]

    @property
    def own(self) -> dict[str, Plugin]:
        return {name: plugin for name, plugin in self.plugins.items() if plugin.own}


_found: dict[tuple[str, tuple[str, ...]], Found] = {}      # by group and import path


def found(kind: Kind) -> Found:
    """The installed plugins of `kind`, read once per import path (a distribution put on the path
    later is found then)."""
    key = (kind.group, tuple(sys.path))
    if key not in _found:
        if any(path != key[1] for _, path in _found):      # the import path changed: what was found is stale
            _found.clear()
        _found[key] = _sorted(kind, *_scan(kind))
    return _found[key]


def _scan(kind: Kind) -> tuple[dict[str, Plugin], list[tuple[Plugin, str]]]:
    from arcmemo.core.entrypoints import entry_points

    points = [Plugin(ep["name"], ep["value"], ep["distribution"], ep["version"]) for ep in entry_points(kind.group)]
    usable = {p.name: p for p in points if p.own}
    refused = []
    for plugin in points:
        if plugin.own:
            continue
        taken = usable.get(plugin.name)
        if taken is None:
            usable[plugin.name] = plugin
        elif taken.value != plugin.value:            # the same value twice is the same plugin
            refused.append((plugin, f"the name {plugin.name!r} is arcmemo's own {kind.noun}'s" if taken.own
                            else f"the name {plugin.name!r} is taken by {taken.value} ({taken.origin})"))
    return usable, refused


def _sorted(kind: Kind, usable: dict[str, Plugin], refused: list[tuple[Plugin, str]]) -> Found:
    rank = {name: i for i, name in enumerate(kind.order)}
    listed = sorted(usable, key=lambda n: (not usable[n].own, rank.get(n, len(rank)), n))
    return Found({name: usable[name] for name in listed}, tuple(refused))


def names(kind: Kind) -> tuple[str, ...]:
    """The installed plugins' names, arcmemo's own first (no plugin imported)."""
    return tuple(found(kind).plugins)


def plugin(kind: Kind, name: str) -> Plugin:
    """The entry point of the plugin `name` (kind.error when none is installed)."""
    installed = found(kind)
    if name in installed.plugins:
        return installed.plugins[name]
    known = ", ".join(installed.plugins) or "none installed"
    missing = "" if installed.own else ("; arcmemo's own are declared by its installed metadata and none was "
                                        "found: install arcmemo (pip install -e . in a checkout)")
    raise kind.error(f"no {kind.noun} named {name!r} (entry point group {kind.group!r}; available: {known}{missing})")


def load(kind: Kind, name: str) -> object:
    """The plugin `name`: the class its entry point names, instantiated with no arguments, or the
    ready instance it names (kind.error: not installed, does not import, does not start)."""
    entry = plugin(kind, name)
    try:
        obj = entry.load()
    except Exception as exc:  # an import failure inside a third-party package
        raise kind.error(f"{kind.noun} {name!r} ({entry.value}) failed to import: "
                         f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(obj, type):
        return obj
    try:
        return obj()
    except Exception as exc:
        raise kind.error(f"{kind.noun} {name!r} ({entry.value}) failed to start: "
                         f"{type(exc).__name__}: {exc}") from exc


def check_findable(kind: Kind, entry: Plugin) -> None:
    """kind.error unless the top-level package of the entry point's module can be found (a look on
    the import path: importing it is `load`'s job)."""
    from importlib.util import find_spec

    package = entry.module.split(".")[0]
    try:
        findable = find_spec(package) is not None
    except (ImportError, ValueError) as exc:
        raise kind.error(f"{kind.noun} {entry.name!r} ({entry.value}): {package} cannot be looked up: {exc}") from None
    if not findable:
        raise kind.error(f"{kind.noun} {entry.name!r} ({entry.value}) failed to import: ModuleNotFoundError: "
                         f"no module named {package!r}")


class Names(Sequence):
    """`names(kind)` as a sequence looked up when first used (the command line builds its options
    at import, before it knows whether a plugin name will be needed)."""

    def __init__(self, kind: Kind):
        self.kind = kind

    def __getitem__(self, index):
        return names(self.kind)[index]

    def __len__(self) -> int:
        return len(names(self.kind))

    def __iter__(self) -> Iterator[str]:
        return iter(names(self.kind))

    def __contains__(self, name: object) -> bool:
        return name in found(self.kind).plugins

    def __repr__(self) -> str:
        return f"Names({', '.join(names(self.kind))})"


def _normalized(name: str | None) -> str | None:
    return re.sub(r"[-_.]+", "-", name).lower() if name else None


__all__ = ["OWN", "Found", "Kind", "Names", "Plugin", "PluginError", "check_findable", "found", "load", "names",
           "plugin"]
