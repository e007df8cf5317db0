"""The paper's merge rule for two concepts with the same key (pure functions on the data shape).

The shape itself, its validation and the content hash are in `rules.py`; `normalize`,
`content_hash`, `custom_types_in` and `ConceptDataError` are re-exported here for the
modules that have always imported them from this one.
"""

from __future__ import annotations

from typing import Any

from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.schema.rules import content_hash, custom_types_in, normalize


def _union(old: list, new: list) -> list:
    out, seen = list(old), set(old)
    for item in new:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def merge_key(data: dict[str, Any]) -> tuple[str, str]:
    """What two normalised concepts that merge share: (format, name), or for an OE lesson
    ("oe", its content hash): lessons merge by what they say."""
    return ("oe", content_hash(data)) if data["format"] == "oe" else (data["format"], data["name"])


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
    value, and so does each of a method's own fields (meta); parameters merge by name; cues
    and implementation notes are appended with order-preserving de-duplication; the first
    verified helper stays (`second_helper`). A cheatsheet (format "sheet") is one evolving
    text: its newest non-empty description replaces the old one.
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
    out["helper"] = old.get("helper") or new.get("helper")   # the first verified helper stays
    kept = old.get("meta") or {}
    out["meta"] = {**kept, **{k: v for k, v in (new.get("meta") or {}).items() if k not in kept}} or None
    return out


def second_helper(old: dict[str, Any], new: dict[str, Any]) -> dict | None:
    """A different verified helper `new` offers for a concept that already has one (the store keeps
    it in the concept's history, not in the concept)."""
    kept, offered = old.get("helper"), new.get("helper")
    if kept and offered and (kept["source"], kept["depends"]) != (offered["source"], offered["depends"]):
        return offered
    return None


__all__ = ["merge", "merge_key", "merge_parameters", "second_helper", "normalize", "content_hash", "custom_types_in",
           "ConceptDataError"]
