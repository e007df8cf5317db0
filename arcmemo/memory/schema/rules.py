"""The concept data shape, once (docs/architecture.md): pydantic models every concept passes
through on its way into memory — an import file, a hand annotation, a model's answer, an
edit, `Memory.add` or `merge` — so all of them accept and refuse the same things in the
same words.

These models check data; they are not values the code passes around: `normalize` returns
the data shape (a dict, fields in DATA_FIELDS order) and the store hands out `Concept`
values (schema/concept.py), a helper as a `Helper` (memory/helpers/value.py).

Two forms of the one shape:
- `ConceptData`: a concept as the store keeps it, every field.
- `ConceptAnswer` and `LessonAnswer`: one PS concept or OE lesson as a model, or a person
  annotating a seed, writes it. Fewer fields, and one rule stricter, checked under the
  ANSWER validation context: a parameter needs a typing.

Nothing is coerced: a number, list or mapping where text is expected is refused, naming the
field (YAML reads an unquoted `3` as a number: quote it). One exception, for ArcMemo's
released files only (`normalize(..., join_split_notes=True)`): a cue or implementation note
that YAML split into a one-key mapping (an unquoted `- use slicing: seq[::n]`) is joined
back into its text, as ArcMemo's own files hold such notes.

Text is cleaned on the way in (`core/text.py`: lone surrogates replaced, invisible and
direction-changing characters removed; names and task ids on one line) and capped (MAX_* below), so junk
never reaches the store and an oversized field is refused naming the field.

A custom type is written `name := definition` inside a typing. Its name is what a person
would type as a name: letters, digits, `_`, spaces and hyphens, starting with a letter,
digit or `_` (`color-map`, `2d grid`, `selection criteria`); anything else before `:=`
(`list[symmetry := …`) is a typing expression, not a definition, and stays as written.

Errors are `ConceptDataError` with `field` the dotted path of the offending value
(`parameters[0].name`) and `detail` what is wrong with it.
"""

from __future__ import annotations

import hashlib
import json
import reprlib
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from arcmemo.core.text import clean_line, clean_text
from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.helpers.source import MAX_SOURCE as MAX_HELPER_SOURCE
from arcmemo.memory.helpers.source import check_helper_of
from arcmemo.memory.helpers.value import Helper, Verified
from arcmemo.memory.schema.concept import DATA_FIELDS, FORMATS, KINDS, LIST_FIELDS, SOURCES, name_key, split_custom_type

HELPER_FIELDS = Helper.__slots__          # a helper's data shape is its value's fields
VERIFIED_FIELDS = Verified.__slots__
PARAMETER_FIELDS = ("name", "typing", "description")
ANSWER_FIELDS = ("name", "kind", "routine_subtype", "output_typing", "description",
                 "parameters", "cues", "implementation")
LESSON_FIELDS = ("situation", "suggestion")

MAX_NAME = 200            # a concept, parameter or custom type name; a task id (ArcMemo's longest: 46)
MAX_TEXT = 50_000         # a description, situation or suggestion (a cheatsheet is one description)
MAX_ITEM = 5_000          # a typing, subtype, cue, implementation note, parameter description
MAX_ITEMS = 1_000         # parameters, cues, implementation notes of one concept; concepts of one answer
MAX_TASKS = 100_000       # used_in
MAX_META = 20_000         # a concept's meta, as JSON text

ANSWER = {"answer": True}  # validation context of the answer forms
JOIN_SPLIT_NOTES = {"join_split_notes": True}  # validation context of ArcMemo's released files

_short = reprlib.Repr()
_short.maxlevel, _short.maxstring, _short.maxother = 2, 60, 60
_brief = _short.repr  # a value quoted in an error: bounded however big or deep the value is


# -- field rules ---------------------------------------------------------------------------------

def checked_text(value: Any, limit: int, *, line: bool = False) -> str | None:
    """Cleaned text (None when empty). Anything else is refused, numbers included: YAML reads an
    unquoted `3` as a number, and turning it back into text would hide that."""
    if value is None:
        return None
    if not isinstance(value, str):
        hint = f" (quote it to mean the text: '{value}')" if isinstance(value, (int, float)) else ""
        raise ConceptDataError(f"expected text, got {_kind(value)} {_brief(value)}{hint}")
    text = str(value)
    if not (text.isascii() and text.isprintable()) or (line and "  " in text):  # printable ASCII is clean
        text = clean_line(text) if line else clean_text(text)
    text = text.strip()
    if len(text) > limit:
        raise ConceptDataError(f"{len(text):,} characters is too long (at most {limit:,})")
    return text or None


def _kind(value: Any) -> str:
    """A value's type as a person reading a YAML file knows it."""
    kinds = {bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "a mapping"}
    return kinds.get(type(value), type(value).__name__)


def _sized(limit: int, **how) -> Callable[[Any], str | None]:
    return lambda value: checked_text(value, limit, **how)


def _choice(options: tuple[str, ...], *, optional: bool) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        text = value.strip().lower() if isinstance(value, str) else value
        if text in (None, "") and optional:
            return None
        if text not in options:
            allowed = ", ".join(options) + (" or null" if optional else "")
            raise ConceptDataError(f"must be one of {allowed}, got {_brief(value)}")
        return text
    return check


def _a_list(limit: int) -> Callable[[Any], list]:
    def check(value: Any) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            raise ConceptDataError(f"expected a YAML list of text, got {type(value).__name__}")
        if len(value) > limit:
            raise ConceptDataError(f"{len(value):,} items is too many (at most {limit:,})")
        return value
    return check


def _note(value: Any, info: ValidationInfo) -> str | None:
    """One cue or implementation note. YAML reads the unquoted note `use slicing: seq[::n]` as
    a one-key mapping: refused saying how to fix it, except in ArcMemo's released files
    (JOIN_SPLIT_NOTES), where it is joined back into its text."""
    if isinstance(value, dict):
        joined = None
        if (info.context or {}).get("join_split_notes") and len(value) == 1:
            (key, val), = value.items()
            if isinstance(key, str) and isinstance(val, (str, int, float)) and not isinstance(val, bool):
                joined = f"{key}: {val}"
        if joined is None:
            raise ConceptDataError("expected text, got a mapping (a ': ' inside an unquoted list item "
                                   "makes YAML read it as a key; quote the item)")
        value = joined
    return checked_text(value, MAX_ITEM)


def _code(value: Any) -> str | None:
    """Program text: kept as written (only junk characters removed), at most MAX_HELPER_SOURCE long."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConceptDataError(f"expected Python source text, got {type(value).__name__}")
    text = clean_text(value)
    if len(text) > MAX_HELPER_SOURCE:
        raise ConceptDataError(f"{len(text):,} characters is too long (at most {MAX_HELPER_SOURCE:,})")
    return text if text.strip() else None


def _unique(items: list) -> list:
    """Order-preserving de-duplication, empty items dropped."""
    return list(dict.fromkeys(item for item in items if item is not None))


def _meta(value: Any) -> dict | None:
    """A method's own fields: a mapping of names to JSON values (text cleaned, at most MAX_META as
    JSON); an empty one is none."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConceptDataError(f"expected a mapping of a method's fields, got {type(value).__name__}")
    clean = _json_value(value, "")
    if len(json.dumps(clean, ensure_ascii=False)) > MAX_META:
        raise ConceptDataError(f"is too long as JSON (at most {MAX_META:,} characters)")
    return clean or None


def _json_value(value: Any, where: str, depth: int = 0) -> Any:
    """`value` as plain JSON data (text cleaned); ConceptDataError at the path (`where`, from meta)
    of the first value that is not."""
    def refuse(detail: str):
        return ConceptDataError(f"{where}: {detail}" if where else detail, where or None, detail)

    if depth > 8:
        raise refuse("nested too deeply (at most 8 levels)")
    if isinstance(value, str):
        return clean_text(value)
    if value is None or isinstance(value, (bool, int)) or (isinstance(value, float) and value == value
                                                          and abs(value) != float("inf")):
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str) or not key.strip():
                raise refuse(f"a key must be text, got {_brief(key)}")
            out[clean_line(key).strip()] = _json_value(item, f"{where}.{key}" if where else key, depth + 1)
        return out
    if isinstance(value, list):
        return [_json_value(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value)]
    raise refuse(f"expected text, a number, true/false, a list or a mapping, got {type(value).__name__}")


Name = Annotated[str | None, BeforeValidator(_sized(MAX_NAME, line=True))]
Item = Annotated[str | None, BeforeValidator(_sized(MAX_ITEM))]
LongText = Annotated[str | None, BeforeValidator(_sized(MAX_TEXT))]
Kind = Annotated[str | None, BeforeValidator(_choice(KINDS, optional=True))]
Notes = Annotated[list[Annotated[str | None, BeforeValidator(_note)]],
                  BeforeValidator(_a_list(MAX_ITEMS)), AfterValidator(_unique)]
TaskIds = Annotated[list[Annotated[str | None, BeforeValidator(_sized(MAX_NAME, line=True))]],
                    BeforeValidator(_a_list(MAX_TASKS)), AfterValidator(_unique)]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=False)


class _Mapping(_Shape):
    """A shape given as a mapping; anything else is refused naming its FIELDS."""

    FIELDS: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _a_mapping(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ConceptDataError(f"expected a mapping with {', '.join(cls.FIELDS)}; got {type(value).__name__}")
        return value


class Parameter(_Mapping):
    FIELDS: ClassVar[tuple[str, ...]] = PARAMETER_FIELDS

    name: Name = None
    typing: Item = None
    description: Item = None

    @model_validator(mode="after")
    def _complete(self, info: ValidationInfo) -> Parameter:
        if self.name is None:
            raise ConceptDataError("a parameter needs a name", "name")
        if self.typing is None and (info.context or {}).get("answer"):
            raise ConceptDataError("missing text field 'typing'", "typing")
        return self


def _by_name(params: list[Parameter]) -> list[dict[str, str | None]]:
    """Parameters as dicts, one per name: a repeated name only fills the first one's empty fields."""
    out: dict[str, dict] = {}
    for p in params:
        known = out.setdefault(p.name, {"name": p.name, "typing": p.typing, "description": p.description})
        for key in ("typing", "description"):
            if not known[key] and getattr(p, key):
                known[key] = getattr(p, key)
    return list(out.values())


def _params_list(value: Any) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConceptDataError(f"expected a list of {{name, typing, description}} mappings, got {type(value).__name__}")
    return _a_list(MAX_ITEMS)(value)


Parameters = Annotated[list[Parameter], BeforeValidator(_params_list), AfterValidator(_by_name)]


def _one_name(data: Any) -> Any:
    """ArcMemo's prompts and files write `concept: NAME`; it means `name`."""
    if isinstance(data, dict) and "concept" in data:
        data = dict(data)
        alias = data.pop("concept")
        if data.get("name") is not None and data["name"] != alias:
            raise ConceptDataError(f"conflicts with name {_brief(data['name'])}; give the name once", "concept")
        data["name"] = alias
    return data


class _PSFields(_Shape):
    """The fields a PS concept's author writes (ANSWER_FIELDS)."""

    name: Name = None
    kind: Kind = None
    routine_subtype: Item = None
    output_typing: Item = None
    description: LongText = None
    parameters: Parameters = []
    cues: Notes = []
    implementation: Notes = []


class VerifiedData(_Shape):
    """Where a helper was verified: a program calling it passed every train pair of `task_id`
    (looked up in the task source `tasks`) in the sandbox, at time `at`."""

    task_id: Annotated[str | None, BeforeValidator(_sized(MAX_NAME, line=True))] = None
    tasks: Name = None
    program: Annotated[str | None, BeforeValidator(_sized(MAX_HELPER_SOURCE))] = None
    at: Name = None
    run_id: Name = None

    @model_validator(mode="after")
    def _complete(self) -> VerifiedData:
        for field in ("task_id", "tasks", "program", "at"):
            if getattr(self, field) is None:
                raise ConceptDataError(f"missing text field '{field}'", field)
        return self


class HelperData(_Mapping):
    """A PS concept's helper: the source of one function implementing it, the other helpers it
    calls, and where it was verified (memory/helpers/source.py says what the source may be)."""

    FIELDS: ClassVar[tuple[str, ...]] = HELPER_FIELDS

    name: Name = None
    source: Annotated[str | None, BeforeValidator(_code)] = None
    depends: Annotated[list[Annotated[str, BeforeValidator(_sized(MAX_NAME, line=True))]],
                       BeforeValidator(_a_list(MAX_ITEMS))] = []
    verified: VerifiedData | None = None

    @model_validator(mode="after")
    def _complete(self) -> HelperData:
        for field in ("name", "source"):
            if getattr(self, field) is None:
                raise ConceptDataError(f"missing text field '{field}'", field)
        if self.verified is None:
            raise ConceptDataError("a helper enters memory only verified: missing 'verified' (task_id, tasks, "
                                   "program, at)", "verified")
        return self


class ConceptData(_PSFields):
    """A concept as the store keeps it."""

    format: Annotated[str, BeforeValidator(_choice(FORMATS, optional=False))]
    used_in: TaskIds = []
    situation: LongText = None
    suggestion: LongText = None
    helper: HelperData | None = None
    source: Annotated[str, BeforeValidator(_choice(SOURCES, optional=False))]
    meta: Annotated[dict | None, BeforeValidator(_meta)] = None

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        return _one_name(data)

    @model_validator(mode="after")
    def _complete(self) -> ConceptData:
        if self.format == "oe":
            for field in ("situation", "suggestion"):
                if getattr(self, field) is None:
                    raise ConceptDataError("an OE lesson needs a situation and a suggestion", field)
        elif self.name is None:
            raise ConceptDataError("a concept needs a name", "name")
        if self.helper is not None:
            if self.format != "ps":
                raise ConceptDataError("only a PS concept can have a helper", "helper")
            self.helper.depends = check_helper_of(self.name, [p["name"] for p in self.parameters] or None,
                                                  self.helper.name, self.helper.source, self.helper.depends)
        return self


class ConceptAnswer(_PSFields):
    """One PS concept as a model or an annotation writes it (validated with context ANSWER)."""

    format: Annotated[str | None, BeforeValidator(_choice(("ps",), optional=True))] = None

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if isinstance(data, dict) and "concept" in data and "name" in data:
            raise ConceptDataError("give the name once, as 'name' (not both 'name' and 'concept')")
        return _one_name(data)

    @model_validator(mode="after")
    def _complete(self) -> ConceptAnswer:
        if self.name is None:
            raise ConceptDataError("missing text field 'name'")
        return self


class LessonAnswer(_Shape):
    """One OE lesson as a model or an annotation writes it."""

    situation: LongText = None
    suggestion: LongText = None

    @model_validator(mode="after")
    def _complete(self) -> LessonAnswer:
        for field in LESSON_FIELDS:
            if getattr(self, field) is None:
                raise ConceptDataError(f"missing text field '{field}'")
        return self


# -- errors ---------------------------------------------------------------------------------------

def _path(loc: tuple) -> str:
    """('parameters', 0, 'name') -> 'parameters[0].name'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _join(*parts: str | None) -> str:
    out = ""
    for part in parts:
        if part:
            out += part if not out or part.startswith("[") else f".{part}"
    return out


def data_error(exc: ValidationError, allowed: tuple[str, ...], label: str = "", at: str = "") -> ConceptDataError:
    """The first problem pydantic found, as one ConceptDataError (unknown fields first, listed together).

    `at` is the path of the validated value in its document ("concepts[2]"), prefixed to the
    error's field; `label` is how the message names it ("concepts[2] ('sort objects')")."""
    errors = exc.errors(include_url=False)
    extras = [e for e in errors if e["type"] == "extra_forbidden"]
    if extras:
        parent = extras[0]["loc"][:-1]
        names = [str(e["loc"][-1]) for e in extras if e["loc"][:-1] == parent]
        options = PARAMETER_FIELDS if "parameters" in parent else allowed
        field = _join(_path(parent), names[0])
        detail = f"unknown field(s) {', '.join(names)}; allowed: {', '.join(options)}"
    else:
        error = errors[0]
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, ConceptDataError):
            field, detail = _join(_path(error["loc"]), cause.field), cause.detail
        elif error["type"] == "missing":
            field, detail = _path(error["loc"]), f"missing text field '{error['loc'][-1]}'"
        else:
            field, detail = _path(error["loc"]), error["msg"]
    where = _join(label or at, field)
    return ConceptDataError(f"{where}: {detail}" if where else detail, _join(at, field) or None, detail)


# -- the store's form -----------------------------------------------------------------------------

def normalize(data: Any, *, format: str = "ps", source: str = "human", join_split_notes: bool = False) -> dict[str, Any]:
    """Check one concept's data and return it in canonical form (all DATA_FIELDS, in order).

    Empty text becomes None, list fields default to [], lists are de-duplicated in order.
    `format`/`source` are defaults for data that does not say. OE lessons get the name
    `lesson-<8 hex of their content>` when none is given. `join_split_notes`: data from
    ArcMemo's released files (module docstring).
    """
    if not isinstance(data, dict):
        raise ConceptDataError(f"expected a mapping of concept fields, got {type(data).__name__}")
    filled = dict(data)
    for key, default in (("format", format), ("source", source)):
        if filled.get(key) is None:
            filled[key] = default
    try:
        concept = ConceptData.model_validate(filled, context=JOIN_SPLIT_NOTES if join_split_notes else None)
    except ValidationError as exc:
        raise data_error(exc, DATA_FIELDS) from None
    out = {field: getattr(concept, field) for field in DATA_FIELDS}
    if out["helper"] is not None:
        out["helper"] = helper_data(concept.helper)
    if out["format"] == "oe" and out["name"] is None:
        out["name"] = "lesson-" + content_hash(out)[:8]
    return out


def helper_data(helper: HelperData) -> dict[str, Any]:
    """A checked helper as the plain mapping the store keeps (its value's data shape)."""
    verified = helper.verified
    return Helper(helper.name, helper.source, tuple(helper.depends),
                  Verified(verified.task_id, verified.tasks, verified.program, verified.at, verified.run_id)).to_data()


def content_hash(data: dict[str, Any]) -> str:
    """sha256 of what a concept says: every data field except name, used_in and source (and meta
    when it has none, so a concept without one hashes as before the field existed).

    Two OE lessons with the same situation and suggestion have the same hash (the OE
    merge key); PS concepts merge by name, so for them the hash only detects change.
    """
    body = {k: data.get(k) for k in DATA_FIELDS if k not in ("name", "used_in", "source")
            and (k != "meta" or data.get(k))}
    blob = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


# -- the answer forms ------------------------------------------------------------------------------

def _error_at(field: str, detail: str, label: str | None = None) -> ConceptDataError:
    return ConceptDataError(f"{label or field}: {detail}", field, detail)


def _answer_list(value: Any, what: str, things: str) -> list:
    if not isinstance(value, list):
        raise _error_at(what, f"expected a YAML list of {things}, got {type(value).__name__}")
    if not value:
        raise _error_at(what, "the list is empty; give at least one")
    if len(value) > MAX_ITEMS:
        raise _error_at(what, f"{len(value):,} items is too many (at most {MAX_ITEMS:,})")
    return value


def concept_answers(value: Any, *, exists: Callable[[str], bool], what: str = "concepts") -> list[dict]:
    """A list of PS concepts as a model or annotation wrote them, checked; returned in the store's
    data shape (format ps, no used_in or source). A concept may be a bare reference (`- name: x`,
    no kind) only when `exists(name)`: then it just records this task's use of it."""
    concepts, seen = [], set()
    for i, item in enumerate(_answer_list(value, what, "concepts")):
        at = f"{what}[{i}]"
        if not isinstance(item, dict):
            raise _error_at(at, f"expected a mapping, got {type(item).__name__}")
        peek = item.get("name", item.get("concept"))
        label = f"{at} ({_brief(clean_line(str(peek)))})" if isinstance(peek, (str, int, float)) else at
        try:
            answer = ConceptAnswer.model_validate(item, context=ANSWER)
        except ValidationError as exc:
            raise data_error(exc, ANSWER_FIELDS, label, at) from None
        label = f"{at} ({answer.name!r})"
        if name_key(answer.name) in seen:
            raise _error_at(f"{at}.name", "the name appears twice in the list; distinct concepts need distinct names",
                            label)
        seen.add(name_key(answer.name))
        if answer.kind is None and not exists(answer.name):
            raise _error_at(f"{at}.kind", f"no concept of this name exists yet, so it needs 'kind' "
                            f"({' or '.join(KINDS)}) and its fields; to reuse an existing concept use its exact name",
                            label)
        concepts.append({"format": "ps", **{field: getattr(answer, field) for field in ANSWER_FIELDS}})
    return concepts


def lesson_answers(value: Any, what: str = "lessons") -> list[dict]:
    """A list of OE lessons (situation + suggestion) checked; returned as OE concept data."""
    lessons = []
    for i, item in enumerate(_answer_list(value, what, "{situation, suggestion} mappings")):
        at = f"{what}[{i}]"
        if not isinstance(item, dict):
            raise _error_at(at, f"expected a mapping with situation and suggestion, got {type(item).__name__}")
        try:
            lesson = LessonAnswer.model_validate(item, context=ANSWER)
        except ValidationError as exc:
            raise data_error(exc, LESSON_FIELDS, at=at) from None
        lessons.append({"format": "oe", "situation": lesson.situation, "suggestion": lesson.suggestion})
    return lessons


# -- custom types ---------------------------------------------------------------------------------

def _typings(data: dict[str, Any]) -> list[str | None]:
    return [data.get("output_typing")] + [p.get("typing") for p in data.get("parameters") or []]


def custom_types_in(data: dict[str, Any]) -> dict[str, str]:
    """Custom types defined inline in a concept's typings, first definition wins (the typing keeps it)."""
    found: dict[str, str] = {}
    for typing in _typings(data):
        defined = split_custom_type(typing)
        if defined and defined[0] not in found:
            found[defined[0]] = defined[1]
    return found


def split_custom_types(concepts: list[dict]) -> dict[str, str]:
    """Custom types defined in answer concepts' typings, first wins; in place, each such typing
    becomes just the type's name."""
    found: dict[str, str] = {}
    for concept in concepts:
        found.update((k, v) for k, v in custom_types_in(concept).items() if k not in found)
        if split_custom_type(concept.get("output_typing")):
            concept["output_typing"] = split_custom_type(concept["output_typing"])[0]
        for param in concept.get("parameters") or []:
            if split_custom_type(param.get("typing")):
                param["typing"] = split_custom_type(param["typing"])[0]
    return found


def custom_type(name: Any, definition: Any) -> tuple[str, str]:
    """One explicitly listed custom type (a file's or annotation's `custom_types` mapping), cleaned.
    Any name is kept as given (ArcMemo's file lists `list[symmetry`)."""
    try:
        clean = checked_text(name, MAX_NAME, line=True), checked_text(definition, MAX_ITEM)
    except ConceptDataError as exc:
        raise ConceptDataError(f"a custom type maps a name to a definition (text): {exc.detail}") from None
    if None in clean:
        raise ConceptDataError("a custom type maps a name to a definition (text)")
    return clean


__all__ = [
    "FORMATS", "KINDS", "SOURCES", "DATA_FIELDS", "LIST_FIELDS", "HELPER_FIELDS", "VERIFIED_FIELDS", "HelperData",
    "VerifiedData", "helper_data", "PARAMETER_FIELDS", "ANSWER_FIELDS",
    "LESSON_FIELDS", "MAX_NAME", "MAX_TEXT", "MAX_ITEM", "MAX_ITEMS", "MAX_TASKS", "MAX_META", "ANSWER",
    "JOIN_SPLIT_NOTES",
    "ConceptData", "ConceptAnswer", "LessonAnswer", "Parameter", "ConceptDataError",
    "normalize", "content_hash", "checked_text", "name_key", "concept_answers", "lesson_answers", "data_error",
    "split_custom_type", "custom_types_in", "split_custom_types", "custom_type",
]
