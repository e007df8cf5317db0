"""The concept data shape: validation/normalisation, content hashes, and the paper's merge rule.

Pure functions on plain dicts; the store (`store.py`) and the importers (`io.py`) both
use them, so a file is checked field by field before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.models import DATA_FIELDS, FORMATS, KINDS, SOURCES

_STR_FIELDS = ("kind", "routine_subtype", "output_typing", "description", "situation", "suggestion")
_TEXT_LIST_FIELDS = ("cues", "implementation", "used_in")
_PARAM_KEYS = ("name", "typing", "description")
# Keys that name a concept besides `name`: ArcMemo's prompts and files write `concept: NAME`.
_NAME_ALIASES = ("concept",)
_CUSTOM_TYPE = re.compile(r"^\s*([A-Za-z_][\w ]*?)\s*:=\s*(\S.*?)\s*$", re.S)


def _text(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConceptDataError(f"{field}: expected text, got {type(value).__name__} {value!r}", field)
    value = value.strip()
    return value or None


def _text_list(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConceptDataError(f"{field}: expected a list of text, got {type(value).__name__}", field)
    out: list[str] = []
    for i, item in enumerate(value):
        if isinstance(item, dict) and len(item) == 1 and field != "used_in":
            # YAML reads the note `use slicing: seq[::n]` as a one-key mapping; restore the text
            (key, val), = item.items()
            item = f"{key}: {val}" if isinstance(key, str) and isinstance(val, (str, int, float)) else item
        text = _text(item, f"{field}[{i}]")
        if text is not None and text not in out:
            out.append(text)
    return out


def _parameters(value: Any) -> list[dict[str, str | None]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConceptDataError(f"parameters: expected a list, got {type(value).__name__}", "parameters")
    out: dict[str, dict] = {}
    for i, item in enumerate(value):
        where = f"parameters[{i}]"
        if not isinstance(item, dict):
            raise ConceptDataError(f"{where}: expected a mapping with name, typing, description", where)
        unknown = sorted(set(item) - set(_PARAM_KEYS))
        if unknown:
            raise ConceptDataError(f"{where}: unknown key(s) {', '.join(map(str, unknown))}", f"{where}.{unknown[0]}")
        param = {k: _text(item.get(k), f"{where}.{k}") for k in _PARAM_KEYS}
        if param["name"] is None:
            raise ConceptDataError(f"{where}.name: a parameter needs a name", f"{where}.name")
        known = out.setdefault(param["name"], param)
        for key in ("typing", "description"):  # a repeated name only fills empty fields
            if not known[key] and param[key]:
                known[key] = param[key]
    return list(out.values())


def normalize(data: Any, *, format: str = "ps", source: str = "human") -> dict[str, Any]:
    """Check one concept's data and return it in canonical form (all DATA_FIELDS, in order).

    Empty text becomes None, list fields default to [], lists are de-duplicated in order.
    `format`/`source` are defaults for data that does not say. OE lessons get the name
    `lesson-<8 hex of their content>` when none is given.
    """
    if not isinstance(data, dict):
        raise ConceptDataError(f"expected a mapping of concept fields, got {type(data).__name__}")
    data = dict(data)
    for alias in _NAME_ALIASES:
        if alias in data:
            if "name" in data and data["name"] != data[alias]:
                raise ConceptDataError(f"{alias}: conflicts with name {data['name']!r}", alias)
            data["name"] = data.pop(alias)
    unknown = sorted(set(data) - set(DATA_FIELDS), key=str)
    if unknown:
        raise ConceptDataError(f"{unknown[0]}: unknown field (known: {', '.join(DATA_FIELDS)})", str(unknown[0]))

    out: dict[str, Any] = {}
    fmt = data.get("format") if data.get("format") is not None else format
    if fmt not in FORMATS:
        raise ConceptDataError(f"format: must be one of {', '.join(FORMATS)}, got {fmt!r}", "format")
    out["format"] = fmt
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        name = str(name) if isinstance(name, (int, float)) else name
    out["name"] = _text(name, "name")
    for field in _STR_FIELDS:
        out[field] = _text(data.get(field), field)
    if out["kind"] is not None and out["kind"] not in KINDS:
        raise ConceptDataError(f"kind: must be one of {', '.join(KINDS)} or null, got {out['kind']!r}", "kind")
    out["parameters"] = _parameters(data.get("parameters"))
    for field in _TEXT_LIST_FIELDS:
        out[field] = _text_list(data.get(field), field)
    src = data.get("source") if data.get("source") is not None else source
    if src not in SOURCES:
        raise ConceptDataError(f"source: must be one of {', '.join(SOURCES)}, got {src!r}", "source")
    out["source"] = src

    if fmt == "oe":
        if out["situation"] is None or out["suggestion"] is None:
            missing = "situation" if out["situation"] is None else "suggestion"
            raise ConceptDataError(f"{missing}: an OE lesson needs a situation and a suggestion", missing)
        if out["name"] is None:
            out["name"] = "lesson-" + content_hash(out)[:8]
    elif out["name"] is None:
        raise ConceptDataError("name: a concept needs a name", "name")
    return {f: out[f] for f in DATA_FIELDS}


def content_hash(data: dict[str, Any]) -> str:
    """sha256 of what a concept says: every data field except name, used_in and source.

    Two OE lessons with the same situation and suggestion have the same hash (the OE
    merge key); PS concepts merge by name, so for them the hash only detects change.
    """
    body = {k: data.get(k) for k in DATA_FIELDS if k not in ("name", "used_in", "source")}
    blob = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def _union(old: list, new: list) -> list:
    return old + [x for x in new if x not in old]


def merge_parameters(old: list[dict], new: list[dict]) -> list[dict]:
    """Parameters merge by name: a new name is appended; a known one only fills its empty fields."""
    out = [dict(p) for p in old]
    by_name = {p["name"]: p for p in out}
    for param in new:
        known = by_name.get(param["name"])
        if known is None:
            known = dict(param)
            out.append(known)
            by_name[known["name"]] = known
        else:
            for key in ("typing", "description"):
                if not known.get(key) and param.get(key):
                    known[key] = param[key]
    return out


def merge(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The paper's merge of two normalised concepts with the same key.

    used_in is a union; description, typing, kind and subtype keep the first non-empty
    value; parameters merge by name; cues and implementation notes are appended with
    order-preserving de-duplication. A cheatsheet (format "sheet") is one evolving text:
    its newest non-empty description replaces the old one.
    """
    out = dict(old)
    for field in ("kind", "routine_subtype", "output_typing", "description", "situation", "suggestion"):
        if not out.get(field):
            out[field] = new.get(field)
    if old["format"] == "sheet" and new.get("description"):
        out["description"] = new["description"]
    out["parameters"] = merge_parameters(old["parameters"], new["parameters"])
    for field in ("cues", "implementation", "used_in"):
        out[field] = _union(old[field], new[field])
    return out


def custom_types_in(data: dict[str, Any]) -> dict[str, str]:
    """Custom types defined inline in typing fields (`name := definition`), first definition wins."""
    found: dict[str, str] = {}
    typings = [data.get("output_typing")] + [p.get("typing") for p in data.get("parameters", [])]
    for typing in typings:
        match = _CUSTOM_TYPE.match(typing or "")
        if match and match.group(1) not in found:
            found[match.group(1)] = match.group(2)
    return found
