"""Parsing an expert agent's JSON answer strictly.

The answer must be one JSON object (bare, or in a ```json block) whose "program" is a
string defining transform(grid). Literal line breaks inside JSON strings are tolerated
(json strict=False), since models often write the program that way; anything else that
is not valid JSON is a ParseError whose message is shown back to the model.
"""

from __future__ import annotations

import json
import re

from arcmemo.solverkit import ParseError, fenced_blocks

FIELDS = ("reflection", "pixel_changes", "object_changes", "helper_functions",
          "overall_pattern", "program_instructions", "program")
REASONING_FIELDS = FIELDS[:-1]

_TRANSFORM = re.compile(r"^[ \t]*def[ \t]+transform[ \t]*\(", re.MULTILINE)
_CODE_FENCE = re.compile(r"^\s*```[ \t]*(?:(?:python|py)[ \t]*)?\n(.*?)\n?```\s*$", re.DOTALL)


def _candidates(text: str) -> list[str]:
    found = [body for lang, body in reversed(fenced_blocks(text)) if lang in ("json", "")]
    stripped = (text or "").strip()
    if stripped:
        found.append(stripped)
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        found.append(stripped[start:end + 1])
    return found


def parse_answer(text: str) -> dict:
    """The answer's JSON object with a usable "program" (fences around it removed)."""
    candidates = _candidates(text)
    if not candidates:
        raise ParseError("the answer is empty; expected one JSON object")
    first_error: json.JSONDecodeError | None = None
    data = None
    for candidate in candidates:
        try:
            data = json.loads(candidate, strict=False)
            break
        except json.JSONDecodeError as exc:
            first_error = first_error or exc
        except RecursionError:
            raise ParseError("the answer's JSON is nested too deeply") from None
    if data is None:
        if "{" not in text:
            raise ParseError("the answer contains no JSON object")
        raise ParseError(f"the answer is not valid JSON ({first_error.msg} at line "
                         f"{first_error.lineno}, column {first_error.colno})")
    if not isinstance(data, dict):
        raise ParseError(f"the answer must be a JSON object with the keys {', '.join(FIELDS)}, "
                         f"not a JSON {type(data).__name__}")
    program = data.get("program")
    if not isinstance(program, str) or not program.strip():
        raise ParseError('the JSON object has no "program" string with the Python program')
    fence = _CODE_FENCE.match(program)
    if fence:
        program = fence.group(1)
    if not _TRANSFORM.search(program):
        raise ParseError('the "program" does not define transform(grid)')
    data = dict(data)
    data["program"] = program.strip("\n") + "\n"
    return data


def reasoning_text(data: dict) -> str:
    """The answer's reasoning fields as labelled paragraphs (for the trace and abstraction)."""
    parts = []
    for key in REASONING_FIELDS:
        value = data.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            value = json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}: {value.strip()}")
    return "\n".join(parts)
