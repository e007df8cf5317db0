"""Moving memory in and out: arcmemo's YAML export (export.py, whose names are importable from
here too) and import, and ArcMemo's released JSON files.

Imports are checked completely before anything is written, then written in one
transaction: a malformed file changes nothing and the error names the file, the line
(when the parser knows it) and the field. Importing merges (paper rule) into what the
database already holds; revisions get op "import".

Recognised inputs (by content, not only extension):
- arcmemo YAML (`arcmemo export`): {arcmemo_memory: 1, custom_types: {..}, concepts: [..]}
- ArcMemo `compressed_v1.json` (PS): {concepts: {name: concept}, custom_types: {..}, solutions: ..}
  (its solutions have no code and are not imported)
- ArcMemo `parsed_lessons.json` (OE): {task_id: [{situation, suggestion}, ...]}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcmemo.core import safeyaml
from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.io.export import EXPORT_VERSION, concept_entry, dump_yaml, export_yaml, write_yaml
from arcmemo.memory.io.files import Document, MemoryFileError, read_document
from arcmemo.memory.io.files import path_parts as _path_parts
from arcmemo.memory.schema.concept import DATA_FIELDS

MemoryImportError = MemoryFileError  # the name importers know: a file could not be imported; nothing was written


ON_DUPLICATE = ("refuse", "merge")   # a concept given twice in one file: refuse the file, or merge the two
MAX_IMPORT_TYPES = 500              # custom types one import may create (`concepts import --max-new-types`)


@dataclass
class ImportResult:
    path: str
    kind: str                       # "arcmemo-yaml" | "arcmemo-ps-json" | "arcmemo-oe-json"
    added: int = 0
    extended: int = 0
    unchanged: int = 0
    custom_types: int = 0           # created or redefined
    names: list[str] = field(default_factory=list)
    merged_duplicates: list[str] = field(default_factory=list)   # per concept given twice: where, into where
    types_dropped: list[str] = field(default_factory=list)       # custom types not created: over the cap


@dataclass
class Parsed:
    """A memory file checked: its custom types and concepts, and where in it each concept is."""

    kind: str
    types: dict[str, str]
    items: list[tuple[dict, str | None]]     # (concept data, model)
    places: list[list[str | int]]            # the field path of each item's entry
    src: Document


def read_edit(text: str) -> dict[str, Any]:
    """The changes a concept edited as text (`safeyaml.dump` of its data) asks for: `concepts edit` in
    $EDITOR and the web page's form. The text is the whole concept, so a field removed from it
    becomes empty. ConceptDataError (a ValueError, naming the line) when it is not a YAML mapping."""
    try:
        changes = safeyaml.load(text)
    except (safeyaml.YAMLError, RecursionError) as exc:
        problem = safeyaml.describe(exc) if isinstance(exc, safeyaml.YAMLError) else "nested too deeply to read"
        raise ConceptDataError(f"edited YAML {problem}") from None
    if not isinstance(changes, dict):
        raise ConceptDataError("edited YAML: expected a mapping of concept fields")
    return {field: changes.get(field) for field in DATA_FIELDS} | changes


# -- parsing ----------------------------------------------------------------------------------

def _concept(src: Document, raw: Any, parts: list, *, source: str, extra: dict | None = None,
             join_split_notes: bool = False) -> tuple[dict, str | None]:
    """Validate one concept entry; errors point at the entry's field."""
    from arcmemo.memory.schema import rules as schema  # pydantic: loaded by imports, not by exports

    if not isinstance(raw, dict):
        raise src.error(f"expected a mapping of concept fields, got {type(raw).__name__}", parts)
    raw = dict(raw)
    try:
        model = schema.checked_text(raw.pop("model", None), schema.MAX_NAME, line=True)
    except ConceptDataError as exc:
        raise src.error(exc.detail, parts + ["model"]) from None
    if extra:
        raw.update(extra)
    try:
        return schema.normalize(raw, source=source, join_split_notes=join_split_notes), model
    except ConceptDataError as exc:
        raise src.error(exc.detail, parts + _path_parts(exc.field)) from None


def _types(src: Document, raw: Any, parts: list) -> dict[str, str]:
    from arcmemo.memory.schema import rules as schema

    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise src.error("expected a mapping of type name to definition", parts)
    types = {}
    for name, definition in raw.items():
        try:
            clean_name, clean_definition = schema.custom_type(name, definition)
        except ConceptDataError as exc:
            raise src.error(exc.detail, parts + [str(name)]) from None
        types[clean_name] = clean_definition
    return types


def parse_file(path: str | Path) -> tuple[str, dict[str, str], list[tuple[dict, str | None]]]:
    """(kind, custom types, [(concept data, model)]) from any supported file; raises MemoryImportError."""
    parsed = _parse(path)
    return parsed.kind, parsed.types, parsed.items


def _parse(path: str | Path) -> Parsed:
    src = read_document(path)
    doc = src.data
    items: list[tuple[dict, str | None]] = []
    places: list[list[str | int]] = []

    def add(raw: Any, place: list[str | int], **how: Any) -> None:
        items.append(_concept(src, raw, place, **how))
        places.append(place)

    if isinstance(doc, dict) and "arcmemo_memory" in doc:
        if doc["arcmemo_memory"] != EXPORT_VERSION:
            raise src.error(f"unsupported export version {doc['arcmemo_memory']!r} (expected {EXPORT_VERSION})",
                            ["arcmemo_memory"])
        unknown = sorted(set(doc) - {"arcmemo_memory", "custom_types", "concepts"}, key=str)
        if unknown:
            raise src.error("unknown top-level key", [str(unknown[0])])
        entries = doc.get("concepts") or []
        if not isinstance(entries, list):
            raise src.error("expected a list of concepts", ["concepts"])
        types = _types(src, doc.get("custom_types"), ["custom_types"])
        for i, entry in enumerate(entries):
            add(entry, ["concepts", i], source="human")
            entries[i] = None  # the checked copy replaces it: a 100k-concept file is held once, not twice
        return Parsed("arcmemo-yaml", types, items, places, src)
    if isinstance(doc, dict) and isinstance(doc.get("concepts"), dict):
        types = _types(src, doc.get("custom_types"), ["custom_types"])
        for name, entry in list(doc["concepts"].items()):
            doc["concepts"][name] = None  # held once (see above)
            if isinstance(entry, dict) and entry.get("name") not in (None, name):
                raise src.error(f"name {entry.get('name')!r} differs from its key", ["concepts", name, "name"])
            add(entry, ["concepts", name], source="import", extra={"name": name, "format": "ps"},
                join_split_notes=True)
        return Parsed("arcmemo-ps-json", types, items, places, src)
    if isinstance(doc, dict) and doc and all(isinstance(v, list) for v in doc.values()):
        for task_id, lessons in doc.items():
            for i, lesson in enumerate(lessons):
                if isinstance(lesson, dict) and "format" in lesson and lesson["format"] != "oe":
                    raise src.error("a lessons file holds OE lessons only", [task_id, i, "format"])
                extra = {"format": "oe", "used_in": [str(task_id)]} if isinstance(lesson, dict) else None
                add(lesson, [task_id, i], source="import", extra=extra)
        return Parsed("arcmemo-oe-json", {}, items, places, src)
    raise src.error("not a recognised memory file (expected an arcmemo YAML export, ArcMemo's "
                    "compressed_v1.json or parsed_lessons.json)", [])


def _duplicates(parsed: Parsed, on_duplicate: str) -> list[str]:
    """Concepts given twice in the file (the same name; for OE lessons, the same content): the
    file refused at the second one, or (`on_duplicate="merge"`) each merge said, in file order.
    Two different lessons under one name cannot be merged: always refused."""
    from arcmemo.memory.schema.merge_rule import merge_key

    src, places = parsed.src, parsed.places
    first: dict[tuple[str, str], int] = {}
    lesson_names: dict[str, int] = {}
    merged = []
    for i, (data, _) in enumerate(parsed.items):
        key = merge_key(data)
        j = first.setdefault(key, i)
        what = "this lesson" if key[0] == "oe" else f"{data['format']} concept {data['name']!r}"
        if j != i:
            if on_duplicate != "merge":
                raise src.error(f"{what} appears twice in this file (first at {src.place(places[j])}); give each "
                                "concept once, or import with --on-duplicate merge to merge the two", places[i])
            merged.append(f"{what} at {src.place(places[i])} merged into the one at {src.place(places[j])}")
        elif key[0] == "oe":
            other = lesson_names.setdefault(data["name"], i)
            if other != i:
                raise src.error(f"two different lessons are named {data['name']!r} (the other at "
                                f"{src.place(places[other])}); rename one", places[i] + ["name"])
    return merged


HelperCheck = Callable[[dict, Mapping[str, dict]], None]


def import_file(memory, path: str | Path, *, actor: str, reason: str = "",
                check_helpers: HelperCheck | None = None, on_duplicate: str = "refuse",
                max_new_types: int = MAX_IMPORT_TYPES) -> ImportResult:
    """Validate the whole file, then merge it into `memory` in one transaction.

    A concept given twice in the file refuses it, or with `on_duplicate="merge"` the two are
    merged (the paper's rule) and each such merge is listed in `merged_duplicates`. At most
    `max_new_types` custom types are created; the others are listed in `types_dropped`.

    Helpers are code: the file's are verified by `check_helpers(concept data, the file's helpers
    by name)` (the run layer's, which runs each helper's program in the sandbox and raises
    ValueError saying why one fails) before anything is written; one that fails rejects the
    whole file, naming the line and the concept. A file with helpers and no checker is refused.
    """
    if on_duplicate not in ON_DUPLICATE:
        raise ValueError(f"on_duplicate must be one of {', '.join(ON_DUPLICATE)}, not {on_duplicate!r}")
    parsed = _parse(path)
    result = ImportResult(path=str(path), kind=parsed.kind, merged_duplicates=_duplicates(parsed, on_duplicate))
    _check_helpers(parsed, check_helpers)
    reason = reason or f"import {Path(path).name}"
    try:
        with memory.transaction(max_new_types=max_new_types) as write:
            known = memory.custom_types()
            for name, definition in parsed.types.items():
                if known.get(name) != definition.strip():
                    memory.add_custom_type(name, definition, actor=actor, reason=reason)
                    result.custom_types += name in known
            counts = memory.merge_many(parsed.items, actor=actor, reason=reason, op="import", validated=True)
    except MemoryImportError:
        raise
    except ValueError as exc:  # the store refused the file as a whole
        raise MemoryImportError(path, str(exc)) from None
    result.added, result.extended, result.unchanged = counts["added"], counts["extended"], counts["unchanged"]
    result.names = counts["names"]
    result.custom_types += len(write.created)
    result.types_dropped = list(write.dropped)
    return result


def _check_helpers(parsed: Parsed, check: HelperCheck | None) -> None:
    with_helpers = [(i, data) for i, (data, _) in enumerate(parsed.items) if data.get("helper")]
    if not with_helpers:
        return
    if check is None:
        raise parsed.src.error("holds helpers (code), which can only be imported verified: import it with "
                               "`arcmemo concepts import`, which runs each helper's program in the sandbox", [])
    batch = {data["helper"]["name"]: data for _, data in with_helpers}
    for i, data in with_helpers:
        try:
            check(data, batch)
        except ValueError as exc:
            raise parsed.src.error(f"concept {data['name']!r}: its helper does not verify: {exc}",
                                   parsed.places[i] + ["helper"]) from None


__all__ = ["MemoryImportError", "ImportResult", "ON_DUPLICATE", "MAX_IMPORT_TYPES", "export_yaml", "write_yaml", "dump_yaml",
           "concept_entry", "parse_file", "import_file", "EXPORT_VERSION", "read_edit"]
