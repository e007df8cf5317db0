"""The aux model's judgement of a candidate pair found by words and types: the same concept or not.

The model sees both entries as YAML (what they say and take; a helper by its signature and the
first line of its docstring, not its code or where it was used) and answers `same: yes|no` with
a one-sentence reason in a fenced YAML block. An answer that does not read so is answered once
with what was wrong (core/answers.py, as selection and abstraction ask); a second bad answer,
or a failed call, is a judgement with an error, reported, never taken for a yes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arcmemo.core.answers import ask_parsed
from arcmemo.core.parsing import ParseError, parse_yaml_block
from arcmemo.core.table import counted
from arcmemo.llm.usage import Usage
from arcmemo.memory.helpers.source import describe
from arcmemo.memory.schema.concept import Concept
from arcmemo.prompts import render_prompt

STEP = "consolidate_same"
SHOWN = ("name", "kind", "routine_subtype", "output_typing", "description", "parameters", "cues", "implementation",
         "situation", "suggestion")
_ANSWERS = {True: True, False: False, "yes": True, "no": False, "true": True, "false": False}


@dataclass(frozen=True)
class Judgement:
    """The model's answer on one pair: `same` True or False, or None with `error` (no usable answer)."""

    same: bool | None
    reason: str
    error: str | None = None
    usage: Any = None        # llm Usage of its calls


def entry(concept: Concept) -> str:
    """A concept as the model is shown it (YAML, empty fields left out)."""
    from arcmemo.core import safeyaml

    data = {field: value for field in SHOWN if (value := getattr(concept, field))}
    if concept.helper:
        info = describe(concept.helper.source)
        data["helper"] = f"{info.signature}: {info.summary}"
    return safeyaml.dump(data).rstrip()


def parse_verdict(text: str) -> tuple[bool, str]:
    """(same, reason) from an answer's fenced YAML block; ParseError saying what is wrong."""
    value = parse_yaml_block(text)
    if not isinstance(value, dict) or "same" not in value:
        raise ParseError("the ```yaml block must be a mapping with `same: yes` or `same: no` and a `reason`")
    same = value["same"]
    same = _ANSWERS.get(same.strip().lower() if isinstance(same, str) else same)
    if same is None:
        raise ParseError(f"`same` must be yes or no, not {value['same']!r}")
    reason = value.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise ParseError("`reason` must be one sentence of text")
    return same, " ".join(reason.split())


def judge(llm, first: Concept, second: Concept) -> Judgement:
    """Ask the aux model whether `first` and `second` are one concept."""
    messages = [{"role": "user", "content": render_prompt(STEP, first=entry(first), second=entry(second))}]
    asked = ask_parsed(lambda conversation: llm.chat(conversation, role="aux", step=STEP), messages, parse_verdict)
    usage = sum((Usage.of(c) for c in asked.completions), Usage())
    if asked.call_failed:
        return Judgement(None, "", f"{STEP}: model call failed: {asked.error}", usage)
    if not asked.ok:
        tried = counted(len(asked.answers), 'attempt')
        return Judgement(None, "", f"{STEP}: unreadable answer after {tried}: {asked.error}", usage)
    same, reason = asked.value
    return Judgement(same, reason, None, usage)


__all__ = ["Judgement", "judge", "entry", "parse_verdict", "STEP"]
