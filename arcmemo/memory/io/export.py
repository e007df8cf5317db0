"""The YAML export: canonical, so export -> import into an empty database -> export gives the
same bytes. Concepts are sorted by (format, name), fields in the order of the concept data
shape, empty fields left out, multi-line text as `|` blocks (core/safeyaml.py's `dump`). It
streams: concepts are read a chunk at a time and written one by one into the same document
(`write_yaml`), so its memory does not grow with the memory's size.

Apart from the import (imports.py) so that printing the memory (`concepts export`) loads neither the
file parsers nor the import's classes.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any, TextIO

from arcmemo.core import safeyaml
from arcmemo.memory.schema.concept import DATA_FIELDS, Concept

EXPORT_VERSION = 1


def concept_entry(concept: Concept) -> dict[str, Any]:
    """A concept as an export entry: data fields in order, empty ones dropped, `model` if known."""
    entry: dict[str, Any] = {}
    for key in DATA_FIELDS:
        value = getattr(concept, key)
        if key == "parameters":
            value = [{k: v for k, v in p.items() if v is not None} for p in value or []]
        elif key == "helper" and value:
            value = value.to_data()
            value["verified"] = {k: v for k, v in value["verified"].items() if v is not None}
        if value not in (None, []) or key in ("format", "name"):
            entry[key] = value
    if concept.created_by_model:
        entry["model"] = concept.created_by_model
    return entry


def _document(custom_types: dict[str, str], entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    return {"arcmemo_memory": EXPORT_VERSION, "custom_types": dict(sorted(custom_types.items())),
            "concepts": entries}


def dump_yaml(concepts: Iterable[Concept], custom_types: dict[str, str]) -> str:
    """The export of these concepts and types, built whole (`write_yaml` streams the same text)."""
    entries = [concept_entry(c) for c in sorted(concepts, key=lambda c: (c.format, c.name))]
    return safeyaml.dump(_document(custom_types, entries))


EXPORT_CHUNK = 500  # concepts read from the store at a time


def write_yaml(memory, out: TextIO, *, as_of: int | None = None, format: str | None = None) -> None:
    """Write the memory (optionally as of a revision, optionally one format) to `out` as
    canonical YAML, each concept as it is read: the bytes `dump_yaml` gives for the whole memory."""
    types = memory.custom_types(as_of=as_of) if format in (None, "ps") else {}
    concepts = memory.by_name(format, as_of=as_of, chunk=EXPORT_CHUNK)
    safeyaml.dump(_document(types, (concept_entry(c) for c in concepts)), out)


def export_yaml(memory, *, as_of: int | None = None, format: str | None = None) -> str:
    """The memory (optionally as of a revision, optionally one format) as canonical YAML text."""
    out = io.StringIO()
    write_yaml(memory, out, as_of=as_of, format=format)
    return out.getvalue()


__all__ = ["EXPORT_VERSION", "concept_entry", "dump_yaml", "write_yaml", "export_yaml"]
