"""A model's concepts and lessons checked against the one concept schema (`memory/schema/rules.py`),
with errors as ParseError, whose message is shown back to the model as is
("concepts[2] ('sort objects').parameters[0].typing: missing text field 'typing'").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arcmemo.core.parsing import ParseError
from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.schema.rules import concept_answers, lesson_answers, name_key, split_custom_types


def validate_concepts(value: Any, *, exists: Callable[[str], bool], what: str = "concepts") -> list[dict]:
    """PS concepts (see schema.concept_answers); ParseError if malformed."""
    try:
        return concept_answers(value, exists=exists, what=what)
    except ConceptDataError as exc:
        raise ParseError(str(exc)) from None


def validate_lessons(value: Any, what: str = "lessons") -> list[dict]:
    """OE lessons (see schema.lesson_answers); ParseError if malformed."""
    try:
        return lesson_answers(value, what=what)
    except ConceptDataError as exc:
        raise ParseError(str(exc)) from None


__all__ = ["validate_concepts", "validate_lessons", "split_custom_types", "name_key"]
