"""Text from outside (model answers, imported files, task names) made safe to store, log
and put into the next prompt.

- Lone surrogates (`\\ud800`, which a JSON answer can carry) cannot be encoded as UTF-8:
  they become U+FFFD, so logging or storing the text never raises.
- Invisible and direction-changing characters are removed (`invisible`), by Unicode's own
  classes: every control character but newline and tab (Cc: CR, the ESC of ANSI escapes),
  every format character (Cf: zero-width spaces and joiners, direction marks, embeddings,
  overrides and isolates, the tag characters that spell hidden ASCII, invisible operators,
  interlinear annotation, byte order marks, soft hyphens), the line and paragraph separators
  (Zl, Zp), and the rest of Unicode's Default_Ignorable_Code_Point: variation selectors (which
  can smuggle bytes behind an emoji), the combining grapheme joiner, Hangul fillers, Mongolian
  and Khmer invisibles, and the unassigned code points reserved to be ignorable. What shows
  stays: letters and marks of every script, symbols, emoji, private-use and not yet assigned
  characters (a glyph or a box). An emoji sequence joined by U+200D (ZWJ) or given its colour form
  by U+FE0F comes apart into its visible parts (woman + ZWJ + laptop shows as the two): told
  from a joiner carrying hidden bits only by its neighbours, and kept, they would be a channel
  for hidden text.
- Length is capped where the text goes somewhere bounded (`cap`).

The sandbox, which imports nothing of arcmemo, has its own copy of the rule
(arcmemo/sandbox/results.py); a test holds the two to the same answer for every code point,
and both to the Unicode database of the running Python.
"""

from __future__ import annotations

import re

# Cc but tab and newline; Cf; Zl, Zp; Default_Ignorable_Code_Point (Unicode's
# DerivedCoreProperties.txt). Written out, as scanning unicodedata costs 0.2 s at import; the
# test that checks them against unicodedata for every code point says what a newer Unicode adds.
INVISIBLE_CLASS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSAFE = re.compile(f"[{INVISIBLE_CLASS}]")
_ANY = re.compile(f"[\ud800-\udfff{INVISIBLE_CLASS}]")   # one class: either kind
_ASCII_UNSAFE = {c: None for c in range(0x80) if _UNSAFE.match(chr(c))}
_SPACE = re.compile(r"\s+")
TRUNCATED = "\n[... {n} more characters cut]"


def invisible(char: str) -> bool:
    """Whether `char` (one character) is one that clean_text removes."""
    return _UNSAFE.fullmatch(char) is not None


def clean_text(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD and invisible characters removed (see above)."""
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


__all__ = ["clean_text", "clean_line", "cap", "invisible", "utf8_safe"]
