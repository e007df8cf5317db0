"""A concept as the store hands it out (`Concept`, a plain value) and the names of its fields.

Standard library only: the read-only commands (`concepts list`, `show`, `search`, `export`)
get their concepts through `store/reader.py` without loading pydantic or the database libraries.
`Concept` is the one value a concept is in the code; the data shape (`to_data`, a mapping in
DATA_FIELDS order) is what files, model answers and exports hold. The rules a concept's data
must follow on its way in are schema/rules.py's; the table it is stored in, whose columns are
CONCEPT_COLUMNS, is store/rows.py's (tests/test_concept_shape.py checks that they all agree).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from arcmemo.memory.helpers.value import Helper, Verified

# The formats of memory items, one per kind of item a memory method keeps (arcmemo.methods): PS concepts, OE
# lessons, a cheatsheet, an ACE playbook's bullets, ReasoningBank's items, DC-RS's past cases. The store is the
# same for all (revisioned, exported, imported) and needs no method installed to hold them.
FORMATS = ("ps", "oe", "sheet", "playbook", "bank", "case")
# Whose items a format's items are when they say nothing else (meta "method"): each memory method owns
# the items it shows the model (memory/store/scoped.py); an item written by another method than its
# format's owner records that method in its meta (a PS run's lessons from failures are OE lessons of ps).
DEFAULT_OWNER = {"ps": "ps", "oe": "oe", "sheet": "cheatsheet", "playbook": "ace", "bank": "reasoningbank",
                 "case": "dc-rs"}
KINDS = ("structure", "routine")
SOURCES = ("human", "self", "import")

# The concept data shape, in the order used for YAML/JSON output.
DATA_FIELDS = (
    "format", "name", "kind", "routine_subtype", "output_typing", "description",
    "parameters", "cues", "implementation", "used_in", "situation", "suggestion", "helper", "source", "meta",
)
LIST_FIELDS = ("parameters", "cues", "implementation", "used_in")

# The concept table's columns, in order: a Concept's fields and a revision snapshot's keys.
CONCEPT_COLUMNS = ("id", *DATA_FIELDS, "created_by_model", "content_hash", "created_at", "updated_at")


def utcnow() -> datetime:
    """Aware UTC (SQLModel's datetime columns require a timezone)."""
    return datetime.now(timezone.utc)


def split_custom_type(typing: str | None) -> tuple[str, str] | None:
    """(name, definition) when `typing` defines a custom type (`name := definition`, the definition
    a type expression: typings.py), else None: the typing is text that defines nothing."""
    # imported here: typings.py compiles its patterns at import, which a listing never needs
    from arcmemo.memory.schema.typings import split_definition

    return split_definition(typing)


def owner_of(item: Any) -> str:
    """The memory method an item belongs to (a Concept or its data): its meta's "method", else its
    format's owner (DEFAULT_OWNER)."""
    meta = item.get("meta") if isinstance(item, dict) else item.meta
    fmt = item.get("format", "ps") if isinstance(item, dict) else item.format
    return (meta or {}).get("method") or DEFAULT_OWNER.get(fmt, fmt)


@lru_cache(maxsize=1 << 16)     # a write compares its names with every name in memory
def name_key(name: str) -> str:
    """Names that differ only in case, spaces, '_' or '-' are the same concept name."""
    return re.sub(r"[\s_-]+", " ", name).strip().lower()


@dataclass(slots=True)
class Concept:
    """One concept as the store hands it out: a plain value, a copy of the row (keep or
    mutate it freely; writes go through `Memory` methods only)."""

    id: int | None = None
    format: str = "ps"
    name: str = ""
    kind: str | None = None
    routine_subtype: str | None = None
    output_typing: str | None = None
    description: str | None = None
    parameters: list = field(default_factory=list)
    cues: list = field(default_factory=list)
    implementation: list = field(default_factory=list)
    used_in: list = field(default_factory=list)
    situation: str | None = None
    suggestion: str | None = None
    helper: Helper | None = None      # a PS concept's verified helper (memory/helpers/value.py)
    source: str = "human"
    meta: dict | None = None          # a method's own fields (ACE's section, where an item came from); None: none
    created_by_model: str | None = None
    content_hash: str = ""
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)

    def to_data(self) -> dict[str, Any]:
        """The concept data shape of docs/architecture.md (plain lists/dicts, copies)."""
        data = {f: getattr(self, f) for f in DATA_FIELDS}
        for key in LIST_FIELDS:
            data[key] = [dict(p) for p in data[key]] if key == "parameters" else list(data[key])
        if data["meta"] is not None:
            data["meta"] = dict(data["meta"])
        if data["helper"] is not None:
            data["helper"] = data["helper"].to_data()
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any], **columns: Any) -> Concept:
        """A concept of this data (the data shape: a helper as its mapping) and these other columns."""
        helper = data.get("helper")
        return cls(**{**data, "helper": Helper.from_data(helper) if helper else None}, **columns)

    def snapshot(self) -> dict[str, Any]:
        """Every column as JSON-able values: what a revision's snapshot holds."""
        row = {c: getattr(self, c) for c in CONCEPT_COLUMNS}
        row.update(self.to_data())
        for key in ("created_at", "updated_at"):
            row[key] = row[key].isoformat() if row[key] is not None else None
        return row

    @property
    def uses(self) -> int:
        return len(self.used_in or [])


__all__ = ["Concept", "Helper", "Verified", "CONCEPT_COLUMNS", "DATA_FIELDS", "LIST_FIELDS", "FORMATS", "KINDS", "SOURCES",
           "utcnow", "name_key", "split_custom_type", "DEFAULT_OWNER", "owner_of"]
