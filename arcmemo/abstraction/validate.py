"""Strict checks of PS concepts and OE lessons, from a model's YAML or a hand-written annotation.

Errors are ParseError with a message that can be shown back to the model as is
("concepts[2].parameters[0]: missing text field 'typing'"). A concept may be a bare
reference (`- name: sort objects`, the paper's `concept: name`) only when a concept of
that name already exists: then it just records this task's use of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from arcmemo.core.parsing import ParseError

KINDS = ("structure", "routine")
CONCEPT_FIELDS = ("name", "kind", "routine_subtype", "output_typing", "description",
                  "parameters", "cues", "implementation")
PARAMETER_FIELDS = ("name", "typing", "description")
LESSON_FIELDS = ("situation", "suggestion")
def name_key(name: str) -> str:
    """Names that differ only in case, spaces, '_' or '-' are the same concept name."""
    return re.sub(r"[\s_-]+", " ", name).strip().lower()


_CUSTOM_TYPE = re.compile(r"^\s*([^:=]+?)\s*:=\s*(.+?)\s*$", re.DOTALL)


def _text(value: Any, where: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ParseError(f"{where}: expected text, got {type(value).__name__}")
    text = str(value).strip()
    if not text and not optional:
        raise ParseError(f"{where}: must not be empty")
    return text or None


def _text_list(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ParseError(f"{where}: expected a YAML list of strings, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            raise ParseError(
                f"{where}[{i}]: expected a string, got a mapping (a ': ' inside an unquoted "
                "list item makes YAML read it as a key; quote the item)"
            )
        out.append(_text(item, f"{where}[{i}]"))
    return out


def _parameters(value: Any, where: str) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ParseError(f"{where}: expected a list of {{name, typing, description}} mappings, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        at = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise ParseError(f"{at}: expected a mapping with name, typing, description; got {type(item).__name__}")
        unknown = sorted(set(item) - set(PARAMETER_FIELDS))
        if unknown:
            raise ParseError(f"{at}: unknown field(s) {', '.join(map(str, unknown))}; allowed: {', '.join(PARAMETER_FIELDS)}")
        for required in ("name", "typing"):
            if item.get(required) is None:
                raise ParseError(f"{at}: missing text field '{required}'")
        out.append({
            "name": _text(item["name"], f"{at}.name"),
            "typing": _text(item["typing"], f"{at}.typing"),
            "description": _text(item.get("description"), f"{at}.description", optional=True) or "",
        })
    return out


def validate_concepts(value: Any, *, exists: Callable[[str], bool], what: str = "concepts") -> list[dict]:
    """Check a list of PS concepts; return them in the store's data shape (format ps).

    `exists(name)` tells whether the memory already has a concept of that name (a bare
    reference to an unknown concept is an error).
    """
    if not isinstance(value, list):
        raise ParseError(f"{what}: expected a YAML list of concepts, got {type(value).__name__}")
    if not value:
        raise ParseError(f"{what}: the list is empty; give at least one concept")
    concepts, seen = [], set()
    for i, item in enumerate(value):
        at = f"{what}[{i}]"
        if not isinstance(item, dict):
            raise ParseError(f"{at}: expected a mapping, got {type(item).__name__}")
        item = dict(item)
        if "concept" in item:                       # the paper's spelling of the name field
            if "name" in item:
                raise ParseError(f"{at}: give the name once, as 'name' (not both 'name' and 'concept')")
            item["name"] = item.pop("concept")
        if item.get("format") == "ps":             # harmless if a model repeats it
            del item["format"]
        unknown = sorted(set(item) - set(CONCEPT_FIELDS), key=str)
        if unknown:
            raise ParseError(f"{at}: unknown field(s) {', '.join(map(str, unknown))}; allowed: {', '.join(CONCEPT_FIELDS)}")
        if item.get("name") is None:
            raise ParseError(f"{at}: missing text field 'name'")
        name = " ".join(_text(item["name"], f"{at}.name").split())
        at = f"{at} ({name!r})"
        if name_key(name) in seen:
            raise ParseError(f"{at}: the name appears twice in the list; distinct concepts need distinct names")
        seen.add(name_key(name))
        kind = item.get("kind")
        if isinstance(kind, str):
            kind = kind.strip().lower() or None
        if kind is None:
            if not exists(name):
                raise ParseError(
                    f"{at}: no concept of this name exists yet, so it needs 'kind' "
                    f"({' or '.join(KINDS)}) and its fields; to reuse an existing concept use its exact name"
                )
        elif kind not in KINDS:
            raise ParseError(f"{at}.kind: must be one of {', '.join(KINDS)}, got {kind!r}")
        data = {
            "format": "ps",
            "name": name,
            "kind": kind,
            "routine_subtype": _text(item.get("routine_subtype"), f"{at}.routine_subtype", optional=True),
            "output_typing": _text(item.get("output_typing"), f"{at}.output_typing", optional=True),
            "description": _text(item.get("description"), f"{at}.description", optional=True),
            "parameters": _parameters(item.get("parameters"), f"{at}.parameters"),
            "cues": _text_list(item.get("cues"), f"{at}.cues"),
            "implementation": _text_list(item.get("implementation"), f"{at}.implementation"),
        }
        concepts.append(data)
    return concepts


def split_custom_types(concepts: list[dict]) -> dict[str, str]:
    """Pull `name := definition` typings out of concepts (in place: the typing becomes `name`)."""
    found: dict[str, str] = {}

    def take(typing: str | None) -> str | None:
        if not typing or ":=" not in typing:
            return typing
        match = _CUSTOM_TYPE.match(typing)
        if not match:
            return typing
        name, definition = match.group(1).strip(), match.group(2).strip()
        found.setdefault(name, definition)
        return name

    for concept in concepts:
        concept["output_typing"] = take(concept.get("output_typing"))
        concept["routine_subtype"] = take(concept.get("routine_subtype"))
        for param in concept.get("parameters") or []:
            param["typing"] = take(param.get("typing"))
    return found


def validate_custom_types(value: Any, what: str = "custom_types") -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ParseError(f"{what}: expected a mapping of type name to definition, got {type(value).__name__}")
    return {_text(k, f"{what} key"): _text(v, f"{what}[{k!r}]") for k, v in value.items()}


def validate_lessons(value: Any, what: str = "lessons") -> list[dict]:
    """Check a list of OE lessons (situation + suggestion text); return them as OE concept data."""
    if not isinstance(value, list):
        raise ParseError(f"{what}: expected a YAML list of {{situation, suggestion}} mappings, got {type(value).__name__}")
    if not value:
        raise ParseError(f"{what}: the list is empty; give at least one lesson")
    out = []
    for i, item in enumerate(value):
        at = f"{what}[{i}]"
        if not isinstance(item, dict):
            raise ParseError(f"{at}: expected a mapping with situation and suggestion, got {type(item).__name__}")
        unknown = sorted(set(item) - set(LESSON_FIELDS), key=str)
        if unknown:
            raise ParseError(f"{at}: unknown field(s) {', '.join(map(str, unknown))}; allowed: situation, suggestion")
        for field in LESSON_FIELDS:
            if item.get(field) is None:
                raise ParseError(f"{at}: missing text field '{field}'")
        out.append({
            "format": "oe",
            "situation": _text(item["situation"], f"{at}.situation"),
            "suggestion": _text(item["suggestion"], f"{at}.suggestion"),
        })
    return out
