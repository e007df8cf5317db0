"""Whether a typing is a type expression: what may define a custom type (`name := definition`).

A PS concept's typings are free text, kept as written. Only a typing that parses as
`NAME := TYPE` defines a custom type, so a model that writes prose with a `:=` in it
(`mask := the grid whose non-zero cells mark the objects`) leaves that prose as the typing's
text and creates no type.

TYPE is a Python-like type expression, the form ArcMemo's own typings take:

    type  := term ('|' term)*
    term  := NAME ['[' [items] ']']  |  '[' [items] ']'  |  STRING  |  '...'
    items := type (',' type)* [',']

A NAME is one to MAX_WORDS words of letters, digits, `_`, `.` and `-`, one space apart
(`grid`, `list`, `color mapping`, `np.ndarray`, `4`); a STRING is quoted with `"` or `'`
(`Literal["up", "down"]`). So `Callable[[object], bool]`, `dict[color, color]`,
`str | Callable[[grid], list[grid]]` and `tuple[int, int]` parse; a sentence, parentheses,
a colon or a trailing comma outside brackets do not. The defined NAME follows the same rule
(rules.py's custom type names: `color-map`, `2d grid`, `selection criteria`).
"""

from __future__ import annotations

import re

MAX_WORDS = 4          # a type's name: `object splitting scheme` is ArcMemo's longest (3)
MAX_DEPTH = 20         # brackets nested deeper than this are not a typing anyone writes

_WORD = r"-?\w[\w.\-]*"
_TOKEN = re.compile(rf"""\s*(?:(?P<name>{_WORD}(?:[ \t]+{_WORD})*)|(?P<string>"[^"\\]*"|'[^'\\]*')|(?P<ellipsis>\.\.\.)
                         |(?P<punct>[\[\],|]))""", re.X)
_DEFINITION = re.compile(r"^\s*(\w[\w -]*?)\s*:=\s*(\S.*?)\s*$", re.S)


def _tokens(text: str) -> list[str] | None:
    """The expression's tokens (a name's words joined by one space), or None when something in it is no token."""
    out, pos, end = [], 0, len(text.rstrip())
    while pos < end:
        match = _TOKEN.match(text, pos)
        if match is None:
            return None
        name = match.group("name")
        if name is not None:
            name = " ".join(name.split())
            if name.count(" ") >= MAX_WORDS:
                return None
        out.append(name or match.group("string") or match.group("ellipsis") or match.group("punct"))
        pos = match.end()
    return out


class _Parser:
    """Recursive descent over the tokens, depth-bounded; `ok()` says whether they are one type."""

    def __init__(self, tokens: list[str]):
        self.tokens, self.at = tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, token: str) -> bool:
        if self.peek() == token:
            self.at += 1
            return True
        return False

    def ok(self) -> bool:
        return bool(self.tokens) and self.type(0) and self.at == len(self.tokens)

    def type(self, depth: int) -> bool:
        if not self.term(depth):
            return False
        while self.take("|"):
            if not self.term(depth):
                return False
        return True

    def term(self, depth: int) -> bool:
        token = self.peek()
        if token is None or token in ("]", ",", "|") or depth > MAX_DEPTH:
            return False
        self.at += 1
        if token == "[":
            return self.items(depth + 1)
        if token[0] in "\"'" or token == "...":
            return True
        return self.items(depth + 1) if self.take("[") else True   # a name, perhaps subscripted

    def items(self, depth: int) -> bool:
        """After an opening bracket: types separated by commas, then the closing one."""
        if self.take("]"):
            return True
        while True:
            if not self.type(depth):
                return False
            if self.take("]"):
                return True
            if not self.take(","):
                return False
            if self.take("]"):
                return True


def is_type(text: str | None) -> bool:
    """Whether `text` is a type expression (module docstring)."""
    tokens = _tokens(text or "")
    return tokens is not None and _Parser(tokens).ok()


def split_definition(typing: str | None) -> tuple[str, str] | None:
    """(name, definition) when `typing` defines a custom type `NAME := TYPE`; None for any other
    text, a typing that does not parse included (it stays text and defines nothing)."""
    match = _DEFINITION.match(typing or "")
    if match is None:
        return None
    name, definition = match.group(1), match.group(2)
    if len(name.split()) > MAX_WORDS or not is_type(definition):
        return None
    return name, definition


__all__ = ["is_type", "split_definition", "MAX_WORDS"]
