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
- names come from the entry points alone (remembered in the user directory, and for the process
  until the import path changes): no plugin is imported until it is loaded, so the command
  line can offer the names at start-up;
- a plugin that cannot be found or loaded is a `PluginError` naming it and what went wrong
  (a kind may raise a subclass of its own, for its messages).

The entry points are remembered in the user directory (CACHE) until a distribution on the import
path changes: importing importlib.metadata (it brings the email package) and reading every
distribution costs a listing (`solvers list`) more than a bare python start-up. What is
remembered is keyed on the import path and, in each of its folders, the folder's own time stamp
(a distribution installed or removed) and those of every distribution's files that
importlib.metadata reads (entry_points.txt, METADATA, PKG-INFO: one rewritten in place), as a
stale .pyc is told from its source. An import path whose distributions something other than the
standard path finder provides is read afresh every time.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arcmemo.core.config import user_dir
from arcmemo.core.errors import ArcmemoError

OWN = "arcmemo"             # the distribution whose plugins are arcmemo's own
CACHE = "entry_points.json"     # the entry points remembered, in the user directory
_SUFFIXES = (".dist-info", ".egg-info", ".egg")
_FILES = ("entry_points.txt", "METADATA", "PKG-INFO", "EGG-INFO/entry_points.txt", "EGG-INFO/PKG-INFO")


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
    """(usable plugins by name, [(plugin, why it is refused)]): the rules of the module docstring."""
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


# -- the entry points, remembered in the user directory ------------------------------------------------

def entry_points(group: str) -> list[dict[str, Any]]:
    """{name, value, distribution, version} of each entry point of `group`, in the order
    importlib.metadata gives them (a distribution found twice on the path counts once, the first)."""
    key = _fingerprint()
    cached = _remembered() if key is not None else None
    if cached is not None and cached.get("key") == key and group in cached["groups"]:
        return cached["groups"][group]
    points = _read_entry_points(group)
    if key is not None:
        groups = cached["groups"] if cached is not None and cached.get("key") == key else {}
        _remember({"key": key, "groups": {**groups, group: points}})
    return points


def _read_entry_points(group: str) -> list[dict[str, Any]]:
    from importlib import metadata

    points = []
    origins: dict[int, tuple[str | None, str | None]] = {}   # each distribution's metadata read once
    for ep in metadata.entry_points(group=group):
        dist = getattr(ep, "dist", None)
        if id(dist) not in origins:
            fields = dist.metadata if dist is not None else None
            origins[id(dist)] = (fields["Name"], fields["Version"]) if fields is not None else (None, None)
        name, version = origins[id(dist)]
        points.append({"name": ep.name, "value": ep.value, "distribution": name, "version": version})
    return points


def _fingerprint() -> list | None:
    """What the entry points depend on, as JSON-able values; None when it cannot be told (a
    finder other than the standard one provides distributions)."""
    from importlib.machinery import PathFinder

    if any(finder is not PathFinder and hasattr(finder, "find_distributions") for finder in sys.meta_path):
        return None
    stamps: list = [sys.version, os.getcwd()]
    for entry in sys.path:
        folder = entry or "."
        stamps.append([entry, _stamp(folder)])
        try:
            children = sorted(os.listdir(folder))
        except OSError:                 # missing, or a zip file: its own stamp covers it
            continue
        for child in children:
            if child.lower().endswith(_SUFFIXES):
                path = os.path.join(folder, child)
                stamps.append([child, _stamp(path), *(_stamp(os.path.join(path, name)) for name in _FILES)])
    return stamps


def _stamp(path: str) -> list[int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [stat.st_mtime_ns, stat.st_size]


def _remembered() -> dict | None:
    try:
        data = json.loads((user_dir() / CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("groups"), dict) else None


def _remember(data: dict) -> None:
    """Written whole or not at all; a user directory that cannot be written only costs the next scan."""
    tmp = None
    try:
        path = user_dir() / CACHE
        tmp = path.with_name(f"{CACHE}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            tmp.unlink(missing_ok=True)


def _normalized(name: str | None) -> str | None:
    return re.sub(r"[-_.]+", "-", name).lower() if name else None


__all__ = ["CACHE", "OWN", "Found", "Kind", "Names", "Plugin", "PluginError", "check_findable", "entry_points", "found",
           "load", "names", "plugin"]
