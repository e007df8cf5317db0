"""One model step of a write pipeline: ask, parse strictly, send a malformed answer back once.

A model answer is hostile input. If it does not parse, the parse error goes back to the
model in the same conversation and it gets one more try; if that fails too (or the call
itself fails with LLMError) the step raises StepFailed carrying the raw answers, which
the pipeline records as a WriteFailure. Nothing is written before every step succeeded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.parsing import ParseError
from arcmemo.llm.backend import LLMError
from arcmemo.llm.client import Usage

RETRY_MESSAGE = (
    "Your answer could not be used: {error}.\n"
    "Please answer again in full, following the required format exactly."
)


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
    messages: list[dict[str, str]] = [{"role": "user", "content": prompt}]
    usage = Usage()
    answers: list[str] = []
    error = ""
    for attempt in range(2):
        try:
            completion = llm.chat(messages, role=role, step=step, task_id=task_id, sample=sample)
        except LLMError as exc:
            raise StepFailed(step, f"model call failed: {exc}", _joined(answers), usage) from None
        usage = usage + completion.usage
        answers.append(completion.text or "")
        try:
            return StepAnswer(parse(completion.text or ""), completion.text or "", usage)
        except ParseError as exc:
            error = str(exc)
            if attempt == 0:
                messages = messages + [
                    {"role": "assistant", "content": completion.text or ""},
                    {"role": "user", "content": RETRY_MESSAGE.format(error=error)},
                ]
    raise StepFailed(step, f"malformed answer after one retry: {error}", _joined(answers), usage)


def _joined(answers: list[str]) -> str | None:
    """The raw answers kept for the failure record (both, when the retry also failed)."""
    if not answers:
        return None
    if len(answers) == 1:
        return answers[0]
    return "\n".join(f"----- answer {i} -----\n{a}" for i, a in enumerate(answers, 1))
