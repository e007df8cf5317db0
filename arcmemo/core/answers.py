"""A model answer is hostile input: read it safely, and ask once more when it is unusable.

Every step that parses model output goes through here, so one place decides what a bad
answer can cost:

- `read_answer(parse, text)`: the answer is cleaned first (`clean_text`: no lone
  surrogates, no invisible or direction-changing characters), one longer than MAX_ANSWER_CHARS is refused
  unread, and any failure of `parse` (not only ParseError; never an interrupt) comes out
  as a ParseError whose message is at most MAX_LINE_CHARS long.
- `ask_parsed(call, messages, parse)`: ask, read; on a ParseError answer in the same
  conversation with the error (the bad answer quoted within MAX_CARRIED_CHARS) and read
  the next answer; a failed call ends it. Never raises except for interrupts: the result
  holds the value, or the error and every answer (cleaned and capped) for the record.

The limits bound the work and the size of whatever a bad answer can push into the store,
a record or a later prompt.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.parsing import ParseError
from arcmemo.core.text import cap, clean_text

MAX_ANSWER_CHARS = 200_000    # an answer longer than this is refused unread (about 50k tokens)
MAX_CARRIED_CHARS = 16_000    # model text a later prompt carries: pseudocode, caption, a quoted answer
MAX_LINE_CHARS = 1_000        # one line of model text (a summary) or an error message
MAX_NAME_CHARS = 200          # a concept or type name written by a model
MAX_NAMES = 200               # names read from one selection answer; the rest are counted, not matched

# What stops a run on purpose; everything else a model answer causes is caught and recorded.
# (A call cancelled under a closing client surfaces as concurrent.futures.CancelledError.)
INTERRUPTS = (KeyboardInterrupt, SystemExit, asyncio.CancelledError, concurrent.futures.CancelledError)

RETRY_MESSAGE = (
    "Your answer could not be used: {error}.\n"
    "Please answer again in full, following the required format exactly."
)


def quoted(text: str | None, limit: int = MAX_CARRIED_CHARS) -> str:
    """Model text made safe to store, log or put into a prompt: cleaned, within `limit` characters.
    (Capped first, so only what is kept is cleaned; cleaning never lengthens text.)"""
    return clean_text(cap(text or "", limit))


def describe(exc: BaseException) -> str:
    """An exception as a bounded message: a ParseError's own words, else its type and message."""
    text = str(exc) if isinstance(exc, ParseError) else f"{type(exc).__name__}: {exc}"
    return cap(clean_text(text), MAX_LINE_CHARS)


def read_answer(parse: Callable[[str], Any], text: str | None) -> Any:
    """`parse` applied to a cleaned model answer; every failure is a ParseError (see module docstring)."""
    text = text or ""
    if len(text) > MAX_ANSWER_CHARS:    # refused before any work on it
        raise ParseError(f"the answer is {len(text):,} characters long; at most {MAX_ANSWER_CHARS:,} are read")
    try:
        return parse(clean_text(text))
    except INTERRUPTS:
        raise
    except Exception as exc:
        raise ParseError(describe(exc)) from None


@dataclass
class Asked:
    """What asking gave: the parsed value, or why not, with every answer for the record."""

    value: Any = None
    error: str | None = None        # the last parse error, or why the call failed
    call_failed: bool = False       # the error is the model call's, not an answer's
    answers: list[str] = field(default_factory=list)     # each answer read, cleaned and capped
    completions: list = field(default_factory=list)      # what `call` returned, in order
    messages: list[dict] = field(default_factory=list)   # the conversation as sent last

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def raw(self) -> str | None:
        """The last answer (cleaned and capped), or None when there was none."""
        return self.answers[-1] if self.answers else None


def ask_parsed(call: Callable[[list[dict]], Any], messages: list[dict], parse: Callable[[str], Any], *,
               retries: int = 1, retry_message: str = RETRY_MESSAGE) -> Asked:
    """Ask with `call(messages)` (a completion with `.text`), read it with `parse`, and on a
    ParseError ask again (up to `retries` times) in the same conversation, showing the error."""
    out = Asked(messages=list(messages))
    conversation = list(messages)
    for _ in range(retries + 1):
        out.messages = list(conversation)
        try:
            completion = call(conversation)
        except INTERRUPTS:
            raise
        except Exception as exc:
            out.error, out.call_failed = describe(exc), True
            return out
        out.completions.append(completion)
        out.answers.append(quoted(completion.text, MAX_ANSWER_CHARS))
        try:
            out.value, out.error = read_answer(parse, completion.text), None
            return out
        except ParseError as exc:
            out.error = str(exc)
        conversation = conversation + [
            {"role": "assistant", "content": quoted(completion.text)},
            {"role": "user", "content": retry_message.format(error=out.error)},
        ]
    return out


__all__ = ["read_answer", "ask_parsed", "Asked", "quoted", "describe", "INTERRUPTS", "RETRY_MESSAGE",
           "MAX_ANSWER_CHARS", "MAX_CARRIED_CHARS", "MAX_LINE_CHARS", "MAX_NAME_CHARS", "MAX_NAMES"]
