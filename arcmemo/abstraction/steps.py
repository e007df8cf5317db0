"""One model step of a write pipeline: ask, parse strictly, send a malformed answer back once.

A model answer is hostile input, read through core.answers (cleaned, size-bounded, any
parse failure a ParseError). If it does not parse, the parse error goes back to the
model in the same conversation and it gets one more try; if that fails too (or the call
itself fails) the step raises StepFailed carrying the raw answers, which the pipeline
records as a WriteFailure. Nothing is written before every step succeeded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.answers import ask_parsed
from arcmemo.llm.client import Usage


class StepFailed(Exception):
    """A step gave no usable answer; `raw` holds the model's answer(s), `usage` what it cost."""

    def __init__(self, step: str, error: str, raw: str | None, usage: Usage):
        super().__init__(f"{step}: {error}")
        self.step = step
        self.error = error
        self.raw = raw
        self.usage = usage


@dataclass
class StepAnswer:
    value: Any
    text: str
    usage: Usage = field(default_factory=Usage)


def ask(llm, prompt: str, parse: Callable[[str], Any], *, step: str, task_id: str | None,
        role: str = "aux", sample: int = 0) -> StepAnswer:
    """Ask `prompt`, parse the answer with `parse` (raises ParseError); one retry with the error."""
    def call(conversation: list[dict]):
        return llm.chat(conversation, role=role, step=step, task_id=task_id, sample=sample)

    asked = ask_parsed(call, [{"role": "user", "content": prompt}], parse)
    usage = sum((c.usage for c in asked.completions), Usage())
    if asked.ok:
        return StepAnswer(asked.value, asked.raw or "", usage)
    kind = "model call failed" if asked.call_failed else "malformed answer after one retry"
    error = f"{kind}: {asked.error}"
    raise StepFailed(step, error, _joined(asked.answers), usage)


def _joined(answers: list[str]) -> str | None:
    """The raw answers kept for the failure record (both, when the retry also failed)."""
    if not answers:
        return None
    if len(answers) == 1:
        return answers[0]
    return "\n".join(f"----- answer {i} -----\n{a}" for i, a in enumerate(answers, 1))
