"""The entry points of a group, as importlib.metadata finds them, remembered in the user
directory until a distribution on the import path changes: importing importlib.metadata (it
brings the email package) and reading every distribution costs a listing (`solvers list`)
more than a bare python start-up.

What is remembered is keyed on the import path and, in each of its folders, the folder's own
time stamp (a distribution installed or removed) and those of every distribution's files that
importlib.metadata reads (entry_points.txt, METADATA, PKG-INFO: one rewritten in place), as a
stale .pyc is told from its source. An import path whose distributions something other than
the standard path finder provides is read afresh every time.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from arcmemo.core.config import user_dir

CACHE = "entry_points.json"
_SUFFIXES = (".dist-info", ".egg-info", ".egg")
_FILES = ("entry_points.txt", "METADATA", "PKG-INFO", "EGG-INFO/entry_points.txt", "EGG-INFO/PKG-INFO")


def entry_points(group: str) -> list[dict[str, Any]]:
    """{name, value, distribution, version} of each entry point of `group`, in the order
    importlib.metadata gives them (a distribution found twice on the path counts once, the first)."""
    key = _fingerprint()
    cached = _read() if key is not None else None
    if cached is not None and cached.get("key") == key and group in cached["groups"]:
        return cached["groups"][group]
    found = _scan(group)
    if key is not None:
        groups = cached["groups"] if cached is not None and cached.get("key") == key else {}
        _write({"key": key, "groups": {**groups, group: found}})
    return found


def _scan(group: str) -> list[dict[str, Any]]:
    from importlib import metadata

    found = []
    origins: dict[int, tuple[str | None, str | None]] = {}   # each distribution's metadata read once
    for ep in metadata.entry_points(group=group):
        dist = getattr(ep, "dist", None)
        if id(dist) not in origins:
            fields = dist.metadata if dist is not None else None
            origins[id(dist)] = (fields["Name"], fields["Version"]) if fields is not None else (None, None)
        name, version = origins[id(dist)]
        found.append({"name": ep.name, "value": ep.value, "distribution": name, "version": version})
    return found


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


def _read() -> dict | None:
    try:
        data = json.loads((user_dir() / CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("groups"), dict) else None


def _write(data: dict) -> None:
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


__all__ = ["entry_points", "CACHE"]
