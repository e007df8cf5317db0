"""One model question with strict parsing and a single retry that shows the parse error.

Model output is hostile: a reply that does not parse is answered, in the same
conversation, with what was wrong; a second bad reply (or an LLMError) ends the attempt
with an error string instead of an exception, so a selection never crashes a run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from arcmemo.core.parsing import ParseError, extract_fenced, parse_yaml_block


@dataclass
class Outcome:
    value: Any = None
    error: str | None = None
    raw: str | None = None              # the last reply text
    reasoning: str | None = None        # the last reply's reasoning (reasoning models)
    completions: list = field(default_factory=list)
    messages: list = field(default_factory=list)   # the conversation as sent last

    @property
    def ok(self) -> bool:
        return self.error is None


def _dash_lines(body: str) -> list[str] | None:
    """`- item` lines taken literally (blank and `#` lines skipped); None unless every line is one."""
    lines = [line.strip() for line in body.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    if not lines or not all(line.startswith("- ") for line in lines):
        return None
    return [line[2:].strip() for line in lines]


def yaml_list_answer(text: str):
    """A list answer: the fenced YAML block, or, with no fence, the whole answer when it is
    nothing but a list (small models often drop the fence). A list that is not valid YAML
    only because an item holds `: ` or brackets (a copied signature such as
    `- name(a: grid) -> grid`) is read line by line. Anything else raises ParseError."""
    try:
        body = extract_fenced(text, "yaml")
    except ParseError as fenced_error:
        if "```" in (text or ""):
            raise
        try:
            value = yaml.safe_load(text or "")
        except yaml.YAMLError:
            value = None
        if isinstance(value, list):
            return value
        items = _dash_lines(text or "")
        if items is None:
            raise fenced_error from None
        return items
    try:
        return parse_yaml_block(text)
    except ParseError:
        items = _dash_lines(body)
        if items is None:
            raise
        return items


RETRY_MESSAGE = (
    "I could not use your answer: {error}.\n"
    "Please answer again, keeping to the requested format exactly."
)


def ask(llm, messages: list[dict], *, role: str, step: str, parse: Callable[[str], Any],
        task_id: str | None = None, params: dict | None = None, retries: int = 1,
        sample: int = 0) -> Outcome:
    """Ask, parse; on ParseError retry (once by default) with the error; never raises for model faults.

    `sample` goes to the client's cache key: callers pass the pass index, so a later pass
    gets a fresh answer instead of a replay of a cached (possibly bad) one.
    """
    from arcmemo.llm.client import LLMError

    out = Outcome(messages=list(messages))
    conversation = list(messages)
    for attempt in range(retries + 1):
        try:
            completion = llm.chat(conversation, role=role, step=step, sample=sample, task_id=task_id,
                                  **(params or {}))
        except LLMError as exc:
            out.error = f"{step}: model call failed: {exc}"
            return out
        out.completions.append(completion)
        out.raw, out.reasoning = completion.text, completion.reasoning
        out.messages = list(conversation)
        try:
            out.value = parse(completion.text or "")
            out.error = None
            return out
        except ParseError as exc:
            out.error = f"{step}: unreadable answer after {attempt + 1} attempt(s): {exc}"
            conversation = conversation + [
                {"role": "assistant", "content": completion.text or ""},
                {"role": "user", "content": RETRY_MESSAGE.format(error=exc)},
            ]
    return out


def sum_usage(completions: list):
    """A Usage totalling the given completions (None when there were none)."""
    from arcmemo.llm.client import Usage

    if not completions:
        return None
    return sum((Usage.of(c) for c in completions), Usage())
