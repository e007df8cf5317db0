"""Text from outside (model answers, imported files, task names) made safe to store, log
and put into the next prompt.

- Lone surrogates (`\\ud800`, which a JSON answer can carry) cannot be encoded as UTF-8:
  they become U+FFFD, so logging or storing the text never raises.
- Control characters other than newline and tab, and the bidirectional overrides and
  isolates that make text display differently from what it is (U+202A-202E,
  U+2066-2069), are removed.
- Length is capped where the text goes somewhere bounded (`cap`).
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufeff]")
_ANY = re.compile(_SURROGATE.pattern[:-1] + _UNSAFE.pattern[1:])   # one class: either kind
_ASCII_UNSAFE = {c: None for c in range(0x80) if _UNSAFE.match(chr(c))}
_SPACE = re.compile(r"\s+")
TRUNCATED = "\n[... {n} more characters cut]"


def clean_text(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD and unsafe control/bidi characters removed."""
    if text.isascii():             # the usual case, and much faster than a regex
        return text.translate(_ASCII_UNSAFE)
    if not _ANY.search(text):
        return text
    return _UNSAFE.sub("", _SURROGATE.sub("\ufffd", text))


def cap(text: str, limit: int) -> str:
    """`text`, or its first part with a note of how much was cut, within `limit` characters."""
    if len(text) <= limit:
        return text
    note = TRUNCATED.format(n=len(text))    # at least as long as the note finally written
    keep = max(0, limit - len(note))
    return text[:keep] + TRUNCATED.format(n=len(text) - keep)


def clean_line(text: str) -> str:
    """A one-line form (names, labels): cleaned, whitespace runs collapsed to one space, stripped."""
    return _SPACE.sub(" ", clean_text(text)).strip()


def utf8_safe(text: str) -> str:
    """`text` with only the lone surrogates replaced: for logs that must keep everything else."""
    if text.isascii():             # no surrogate possible, and much faster than a regex
        return text
    return _SURROGATE.sub("\ufffd", text)


__all__ = ["clean_text", "clean_line", "cap", "utf8_safe"]
