"""The YAML export: canonical, so export -> import into an empty database -> export gives the
same bytes. Concepts are sorted by (format, name), fields in the order of the concept data
shape, empty fields left out, multi-line text as `|` blocks. It streams: concepts are read and
written a chunk at a time (`write_yaml`), so its memory does not grow with the memory's size;
the text is the one `to_yaml` gives for the whole document.

Apart from the import (io.py) so that printing a concept (`concepts show`) or the memory
(`concepts export`) loads neither the file parsers nor the import's classes, nor PyYAML: the
text is written by core/blockyaml.py, the bytes PyYAML's libyaml emitter would write.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterable
from typing import Any, TextIO

from arcmemo.core import blockyaml
from arcmemo.memory.schema.concept import DATA_FIELDS, Concept

EXPORT_VERSION = 1


def to_yaml(data: Any) -> str:
    """Data as block YAML in the export's style: keys in their order, multi-line text as `|` blocks."""
    return blockyaml.dump(data)


def concept_entry(concept: Concept) -> dict[str, Any]:
    """A concept as an export entry: data fields in order, empty ones dropped, `model` if known."""
    entry: dict[str, Any] = {}
    for key in DATA_FIELDS:
        value = getattr(concept, key)
        if key == "parameters":
            value = [{k: v for k, v in p.items() if v is not None} for p in value or []]
        elif key == "helper" and value:
            value = {**value, "verified": {k: v for k, v in value["verified"].items() if v is not None}}
        if value not in (None, []) or key in ("format", "name"):
            entry[key] = value
    if concept.created_by_model:
        entry["model"] = concept.created_by_model
    return entry


def dump_yaml(concepts: Iterable[Concept], custom_types: dict[str, str]) -> str:
    entries = [concept_entry(c) for c in sorted(concepts, key=lambda c: (c.format, c.name))]
    doc = {"arcmemo_memory": EXPORT_VERSION, "custom_types": dict(sorted(custom_types.items())), "concepts": entries}
    return to_yaml(doc)


EXPORT_CHUNK = 500  # concepts read and written at a time


def write_yaml(memory, out: TextIO, *, as_of: int | None = None, format: str | None = None) -> None:
    """Write the memory (optionally as of a revision, optionally one format) to `out` as
    canonical YAML, a chunk of concepts at a time: the bytes `dump_yaml` gives for the whole
    memory (a block sequence's items are the same text alone as inside the document)."""
    types = memory.custom_types(as_of=as_of) if format in (None, "ps") else {}
    out.write(to_yaml({"arcmemo_memory": EXPORT_VERSION, "custom_types": dict(sorted(types.items()))}))
    concepts = memory.by_name(format, as_of=as_of, chunk=EXPORT_CHUNK)
    chunk = list(itertools.islice(concepts, EXPORT_CHUNK))
    if not chunk:
        out.write(to_yaml({"concepts": []}))
        return
    out.write("concepts:\n")
    while chunk:
        out.write(to_yaml([concept_entry(c) for c in chunk]))
        chunk = list(itertools.islice(concepts, EXPORT_CHUNK))


def export_yaml(memory, *, as_of: int | None = None, format: str | None = None) -> str:
    """The memory (optionally as of a revision, optionally one format) as canonical YAML text."""
    out = io.StringIO()
    write_yaml(memory, out, as_of=as_of, format=format)
    return out.getvalue()


__all__ = ["EXPORT_VERSION", "to_yaml", "concept_entry", "dump_yaml", "write_yaml", "export_yaml"]
