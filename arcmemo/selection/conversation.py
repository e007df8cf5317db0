"""One model question with strict parsing and a single retry that shows the parse error
(and `with_retry_feedback`, what a re-selection adds to the question).

Model output is hostile: the answer is read through core.answers (cleaned, size-bounded,
any parse failure a ParseError); a reply that does not parse is answered, in the same
conversation, with what was wrong; a second bad reply (or a failed call) ends the
attempt with an error string instead of an exception, so a selection never crashes a run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.answers import MAX_CARRIED_CHARS, ask_parsed, quoted
from arcmemo.core.parsing import ParseError, clean_strings, extract_fenced, parse_yaml_block
from arcmemo.core.table import counted
from arcmemo.prompts import render_prompt


def with_retry_feedback(text: str, feedback: str) -> str:
    """`text` (the puzzle, or its caption) followed, when re-selecting before a retry, by the
    failed try's feedback (--reselect-on-retry)."""
    if not feedback.strip():
        return text
    return text + "\n\n" + render_prompt("reselect_feedback", feedback=feedback.strip())


@dataclass
class Outcome:
    value: Any = None
    error: str | None = None
    raw: str | None = None              # the last reply text (cleaned, capped)
    reasoning: str | None = None        # the last reply's reasoning (reasoning models; cleaned, capped)
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
        from arcmemo.core import safeyaml  # PyYAML: loaded with the first answer, not at start-up

        try:
            value = clean_strings(safeyaml.load(text or ""))
        except (safeyaml.YAMLError, RecursionError):
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
    def call(conversation: list[dict]):
        return llm.chat(conversation, role=role, step=step, sample=sample, task_id=task_id, **(params or {}))

    asked = ask_parsed(call, messages, parse, retries=retries, retry_message=RETRY_MESSAGE)
    reasoning = asked.completions[-1].reasoning if asked.completions else None
    out = Outcome(value=asked.value, raw=asked.raw, reasoning=quoted(reasoning, MAX_CARRIED_CHARS) or None,
                  completions=asked.completions, messages=asked.messages)
    if asked.call_failed:
        out.error = f"{step}: model call failed: {asked.error}"
    elif not asked.ok:
        out.error = f"{step}: unreadable answer after {counted(len(asked.answers), 'attempt')}: {asked.error}"
    return out


def sum_usage(completions: list):
    """A Usage totalling the given completions (None when there were none)."""
    from arcmemo.llm.client import Usage

    if not completions:
        return None
    return sum((Usage.of(c) for c in completions), Usage())
