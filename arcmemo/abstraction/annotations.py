"""Hand annotations `seeds/<task_id>.yaml`: loading them strictly, and writing them into memory as is.

The file holds summary, pseudocode, concepts, custom_types and lessons (the concept shape
is in docs/architecture.md). No model is involved: the concepts and lessons enter the store exactly as
written (merged by name / content, actor "human"), with the seed's code as the solution.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arcmemo.abstraction.records import WriteResult
from arcmemo.core import safeyaml
from arcmemo.core.errors import ArcmemoError
from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.io.files import Document, MemoryFileError, path_parts, read_text
from arcmemo.memory.schema import rules as schema

FIELDS = ("summary", "pseudocode", "concepts", "custom_types", "lessons")
HUMAN = "human"


class AnnotationError(ArcmemoError, ValueError):
    """An annotation file is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Annotation:
    path: Path
    task_id: str
    summary: str | None
    pseudocode: str | None
    concepts: list[dict] = field(default_factory=list)       # PS concept data (validated)
    custom_types: dict[str, str] = field(default_factory=dict)
    lessons: list[dict] = field(default_factory=list)        # OE concept data (validated)
    raw: dict = field(default_factory=dict)                  # the file as parsed (for few-shot examples)
    content_hash: str = ""

    def has(self, fmt: str) -> bool:
        return bool(self.concepts if fmt == "ps" else self.lessons)


def annotation_path(seed_path: str | Path) -> Path:
    return Path(seed_path).with_suffix(".yaml")


def load_annotation(path: str | Path) -> Annotation:
    """Read and check one annotation file through the concept schema (every field is checked
    before anything is used); AnnotationError names the file, the line and the field."""
    path = Path(path)
    try:
        text = read_text(path)
    except MemoryFileError as exc:
        raise AnnotationError(str(exc)) from None
    try:
        data = safeyaml.load(text)
    except safeyaml.YAMLError as exc:
        raise AnnotationError(f"{path}: not valid YAML: {safeyaml.describe(exc)}") from None
    except RecursionError:
        raise AnnotationError(f"{path}: not valid YAML: nested too deeply to read") from None
    if not isinstance(data, dict):
        raise AnnotationError(f"{path}: expected a mapping with {', '.join(FIELDS)}")
    unknown = sorted(set(data) - set(FIELDS), key=str)
    if unknown:
        raise AnnotationError(f"{path}: unknown field(s) {', '.join(map(str, unknown))}; allowed: {', '.join(FIELDS)}")
    try:
        summary = _optional_text(data.get("summary"), "summary")
        pseudocode = _optional_text(data.get("pseudocode"), "pseudocode")
        concepts: list[dict] = []
        if data.get("concepts") is not None:
            # Bare references are checked against the store at ingest time.
            concepts = schema.concept_answers(data["concepts"], exists=lambda name: True)
            if not (summary and pseudocode):
                raise ConceptDataError("concepts need the 'summary' and 'pseudocode' they were abstracted from")
        custom_types = {**schema.split_custom_types(concepts), **_custom_types(data.get("custom_types"))}
        lessons = schema.lesson_answers(data["lessons"]) if data.get("lessons") is not None else []
    except ConceptDataError as exc:
        if exc.field is None:
            raise AnnotationError(f"{path}: {exc}") from None
        raise AnnotationError(str(Document(path, text, data).error(exc.detail, path_parts(exc.field)))) from None
    if not concepts and not lessons:
        raise AnnotationError(f"{path}: has neither concepts nor lessons")
    return Annotation(
        path=path, task_id=path.stem, summary=summary, pseudocode=pseudocode, concepts=concepts,
        custom_types=custom_types, lessons=lessons, raw=data,
        content_hash=hashlib.sha256(text.encode()).hexdigest(),
    )


def _optional_text(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConceptDataError("expected non-empty text", what, "expected non-empty text")
    try:
        return schema.checked_text(value, schema.MAX_TEXT)
    except ConceptDataError as exc:
        raise ConceptDataError(exc.detail, what, exc.detail) from None


def _custom_types(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConceptDataError("expected a mapping of type name to definition", "custom_types",
                               "expected a mapping of type name to definition")
    types = {}
    for name, definition in value.items():
        try:
            clean_name, clean_definition = schema.custom_type(name, definition)
        except ConceptDataError as exc:
            raise ConceptDataError(exc.detail, f"custom_types.{name}", exc.detail) from None
        types[clean_name] = clean_definition
    return types


def ingest_annotation(memory, annotation: Annotation, code: str, *, formats: tuple[str, ...],
                      run_id: str | None = None, task_id: str | None = None,
                      helpers: dict[str, dict] | None = None) -> WriteResult:
    """Write an annotation's concepts (ps) and/or lessons (oe) and the solution, all or nothing.

    `helpers` (concept name -> verified helper record) go in with their concepts (the seed's
    program, calling them, passed its task in the sandbox). Raises AnnotationError (nothing
    written) if a concept is a bare name for a concept the store does not have, or a helper
    cannot be stored (ConceptDataError's reason). Custom types past the write's cap are not
    created: listed in the result's `types_dropped`.
    """
    task_id = task_id or annotation.task_id
    result = WriteResult(task_id=task_id)
    log = dict(actor=HUMAN, run_id=run_id, task_id=task_id, source=HUMAN, model=None)
    with memory.transaction() as write:
        if "ps" in formats and annotation.concepts:
            known = memory.custom_types()          # first definition wins, as for inline types
            for name, definition in annotation.custom_types.items():
                if name not in known:
                    memory.add_custom_type(name, definition, actor=HUMAN, run_id=run_id, task_id=task_id)
            for concept in _callees_first(annotation.concepts, helpers or {}):
                if concept["kind"] is None and memory.get(concept["name"], format="ps") is None:
                    raise AnnotationError(
                        f"{annotation.path}: concept {concept['name']!r} has no kind and no concept of "
                        "that name exists yet (define it here, or in a seed that sorts earlier)"
                    )
                if concept["name"] in (helpers or {}):
                    concept = {**concept, "helper": helpers[concept["name"]]}
                try:
                    merged = memory.merge(concept, **log)
                except ConceptDataError as exc:
                    raise AnnotationError(f"{annotation.path}: concept {concept['name']!r}: {exc}") from None
                _count(result, concept["name"], merged)
        if "oe" in formats:
            for lesson in annotation.lessons:
                merged = memory.merge(lesson, **log)
                _count(result, merged.concept.name, merged)
        memory.add_solution(task_id, code, pseudocode=annotation.pseudocode, summary=annotation.summary,
                            origin=HUMAN, verified=True, actor=HUMAN, run_id=run_id)
    result.types_dropped = list(write.dropped)
    return result


def _callees_first(concepts: list[dict], helpers: dict[str, dict]) -> list[dict]:
    """The concepts in file order, except that a concept whose helper calls the helper of another
    of them comes after that one (a helper enters memory after the helpers it calls)."""
    owner = {h["name"]: concept for concept, h in helpers.items()}
    ordered: list[dict] = []
    placed: set[str] = set()

    def place(concept: dict, seen: frozenset = frozenset()) -> None:
        if concept["name"] in placed or concept["name"] in seen:
            return
        for callee in (helpers.get(concept["name"]) or {}).get("depends", []):
            if callee in owner:
                place(next(c for c in concepts if c["name"] == owner[callee]), seen | {concept["name"]})
        placed.add(concept["name"])
        ordered.append(concept)

    for concept in concepts:
        place(concept)
    return ordered


def _count(result: WriteResult, name: str, merged) -> None:
    {"added": result.added, "extended": result.extended}.get(merged.action, result.unchanged).append(name)
