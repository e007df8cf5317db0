"""YAML out, without PyYAML: JSON-like data (dicts, lists, text, numbers, booleans, None) as
block YAML, byte for byte what libyaml's emitter writes for PyYAML's `CSafeDumper` with
`width=100`, `allow_unicode=True`, block style, keys in their order and multi-line text as
`|` blocks. An export, `concepts show` and the web's concept page print this.

Why our own: importing PyYAML compiles a pattern over all of Unicode (`yaml.reader`), about
15 ms, half a bare Python start, and a command that only prints YAML needs none of it.
The rules follow libyaml 0.2.5's emitter.c: which styles a scalar allows (`_analysis`), the
style chosen (`_Emitter.scalar`), folding at the width, escapes in double quotes, block
scalar hints. tests/test_blockyaml.py compares the two on generated data.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, NoReturn

WIDTH = 100         # a plain or quoted line folds at the first single space past this column
INDENT = 2

_BREAKS = "\n\r\x85\u2028\u2029"
_BREAK = f"[{_BREAKS}]"
# what libyaml may not write unescaped: outside #x0A, #x20-#x7E, #xA0-#xD7FF, #xE000-#xFFFD, or #xFEFF
_NOT_PRINTABLE_ASCII = re.compile("[\x00-\x09\x0b-\x1f\x7f]")
_NOT_PRINTABLE = "[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe\uffff\U00010000-\U0010ffff]"
_ESCAPED = "[\x00-\x1f\"\\\\\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff\U00010000-\U0010ffff]"
_NAMED_ESCAPES = {"\0": "0", "\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r",
                  "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L", "\u2029": "P"}
_FOLDABLE_SPACE = re.compile("(?<=[^ ]) (?=[^ ])")    # a single space between two words
_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")

# Text a YAML 1.1 reader (PyYAML's resolver) takes for something other than a string when plain.
_NOT_TEXT_WORDS = frozenset("yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF "
                            "~ null Null NULL << =".split()) | {""}
_NUMBER = (r"(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?"          # float
           r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
           r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
           r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
           r"|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)"       # int
           r"|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
           r"|[0-9]{4}-[0-9]{2}-[0-9]{2}"                                   # timestamp
           r"|[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
           r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9]{2})?))?)$")


def dump(data: Any) -> str:
    """`data` as a YAML document (dicts and lists in block style, empty ones as `{}` and `[]`)."""
    emitter = _Emitter()
    emitter.node(data)
    emitter.line_start()                        # the document's end
    if emitter.open_ended:                      # a `|+` block was written: mark where the document ends
        emitter.indicator("...", True)
        emitter.line_start()
    return "".join(emitter.out)


def _reads_as_text(text: str) -> bool:
    """Whether `text`, written plain, reads back as this string and not a bool, null, number or date."""
    if text in _NOT_TEXT_WORDS:
        return False
    return text[0] not in "-+.0123456789" or re.match(_NUMBER, text) is None


def _scalar_text(value: Any) -> str:
    """How PyYAML's safe representer writes a number, boolean or None."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if type(value) is int:
        return str(value)
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    return text.replace("e", ".0e", 1) if "." not in text and "e" in text else text


def _simple_key(key: Any) -> str | None:
    """`key:` as written before its value, or None when it must be written `? key` (more than
    one line or more than 128 bytes)."""
    if type(key) is str:
        return _simple_text_key(key)
    if key is None or type(key) in (bool, int, float):
        return _written_key(key, _scalar_text(key))
    _refuse(key)


@lru_cache(maxsize=4096)                # the same few keys in every concept
def _simple_text_key(key: str) -> str | None:
    return _written_key(key, key)


def _written_key(key: Any, text: str) -> str | None:
    if (len(text) > 32 and len(text.encode("utf-8", "surrogatepass")) > 128) or _analysis(text)[0]:
        return None
    emitter = _Emitter()
    emitter.node(key, mapping=True, simple_key=True)
    return "".join(emitter.out) + ":"


def _refuse(value: Any) -> NoReturn:
    raise TypeError(f"cannot write a {type(value).__name__} as YAML (only dicts, lists, text, numbers, "
                    "booleans and None)")


def _analysis(text: str) -> tuple[bool, bool, bool, bool]:
    """(multiline, plain allowed, single quotes allowed, `|` block allowed) in block context."""
    if not text:
        return False, True, True, False
    if text.isascii():
        special = _NOT_PRINTABLE_ASCII.search(text) is not None
        multiline = "\n" in text or "\r" in text
    else:
        special = re.search(_NOT_PRINTABLE, text) is not None
        multiline = re.search(_BREAK, text) is not None
    if special:
        return multiline, False, False, False
    trailing_space = text[-1] == " "
    if multiline:
        space_break = re.search(" " + _BREAK, text) is not None
        break_space = re.search(_BREAK + " ", text) is not None
        return True, False, not (space_break or break_space), not (space_break or trailing_space)
    plain = not (text[0] == " " or trailing_space or _block_indicator(text))
    return False, plain, True, not trailing_space


def _block_indicator(text: str) -> bool:
    """Whether a one-line text without special characters begins or holds YAML syntax."""
    first = text[0]
    return (first in _FIRST_INDICATORS or text.startswith(("---", "..."))
            or (first in "?:-" and text[1:2] in ("", " ")) or ": " in text or text[-1] == ":" or " #" in text)


def _escape(text: str) -> str:
    """A run of double-quoted text with libyaml's escapes."""
    return re.sub(_ESCAPED, _escape_char, text)


def _escape_char(match: re.Match) -> str:
    char = match.group()
    named = _NAMED_ESCAPES.get(char)
    if named:
        return "\\" + named
    code = ord(char)
    return f"\\x{code:02X}" if code <= 0xFF else f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


class _Emitter:
    """libyaml's block-context emitter state: the text so far, its column, whether the last
    thing written was whitespace / indentation, and the current indent (-1: none yet)."""

    __slots__ = ("out", "column", "whitespace", "indention", "indent", "open_ended")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.column = 0
        self.whitespace = self.indention = True
        self.indent = -1
        self.open_ended = False

    def write(self, text: str) -> None:
        self.out.append(text)
        self.column += len(text)

    def line_start(self) -> None:
        """libyaml's write_indent: a new line unless already at the indent, then pad to it."""
        indent = max(self.indent, 0)
        if not self.indention or self.column > indent or (self.column == indent and not self.whitespace):
            self.out.append("\n")
            self.column = 0
        if self.column < indent:
            self.write(" " * (indent - self.column))
        self.whitespace = self.indention = True

    def indicator(self, text: str, need_space: bool, *, whitespace: bool = False, indention: bool = False) -> None:
        if need_space and not self.whitespace:
            self.write(" ")
        self.write(text)
        self.whitespace = whitespace
        self.indention = self.indention and indention

    def node(self, value: Any, *, mapping: bool = False, simple_key: bool = False) -> None:
        kind = type(value)
        if kind is dict or kind is list:
            if not value:
                self.indicator("{" if kind is dict else "[", True, whitespace=True)
                self.indicator("}" if kind is dict else "]", False)
            elif kind is dict:
                self.mapping(value)
            else:
                self.sequence(value, indentless=mapping and not self.indention)
        elif kind is str:
            self.scalar(value, "|" if "\n" in value else "", _reads_as_text, simple_key)
        elif value is None or kind in (bool, int, float):
            self.scalar(_scalar_text(value), "", None, simple_key)
        else:
            _refuse(value)

    def mapping(self, mapping: dict) -> None:
        outer = self.indent
        self.indent = 0 if outer < 0 else outer + INDENT
        for key, value in mapping.items():
            self.line_start()
            written = _simple_key(key)
            if written is None:
                self.indicator("?", True, indention=True)
                self.node(key, mapping=True)
                self.line_start()
                self.indicator(":", True, indention=True)
            else:
                self.out.append(written)
                self.column += len(written)
                self.whitespace = self.indention = False
            self.node(value, mapping=True)
        self.indent = outer

    def sequence(self, items: list, *, indentless: bool) -> None:
        outer = self.indent
        self.indent = 0 if outer < 0 else outer if indentless else outer + INDENT
        for item in items:
            self.line_start()
            self.indicator("-", True, indention=True)
            self.node(item)
        self.indent = outer

    def scalar(self, text: str, requested: str, reads_as_text, simple_key: bool) -> None:
        """Write a scalar in the style libyaml would choose ('' plain, quotes, or '|')."""
        multiline, plain, single, block = _analysis(text)
        style = '"' if simple_key and multiline else requested
        if style == "" and (not plain or (simple_key and not text) or (reads_as_text and not reads_as_text(text))):
            style = "'"
        if (style == "'" and not single) or (style == "|" and (not block or simple_key)):
            style = '"'
        outer = self.indent
        self.indent = INDENT if outer < 0 else outer + INDENT
        if style == "":
            if not self.whitespace:
                self.out.append(" ")
                self.column += 1
            self.words(text, not simple_key)
            self.whitespace = self.indention = False
        elif style == "'":
            self.single_quoted(text, fold=not simple_key)
        elif style == '"':
            self.double_quoted(text, fold=not simple_key)
        else:
            self.literal(text)
        self.indent = outer

    def single_quoted(self, text: str, *, fold: bool) -> None:
        self.indicator("'", True)
        if re.search(_BREAK, text):
            self.single_quoted_lines(text, fold)
        else:
            self.words(text.replace("'", "''"), fold)
        self.indicator("'", False)
        self.whitespace = self.indention = False

    def words(self, text: str, fold: bool) -> None:
        """One line of text; when folding, a single space between two words becomes a new line
        at the indent once the line is past the width."""
        if not fold or self.column + len(text) <= WIDTH:
            self.out.append(text)
            self.column += len(text)
            return
        out, column, start = self.out, self.column, 0
        while space := _FOLDABLE_SPACE.search(text, max(start + WIDTH + 1 - column, start)):
            out += [text[start:space.start()], "\n", " " * self.indent]
            column, start = self.indent, space.end()
        out.append(text[start:])
        self.column = column + len(text) - start

    def single_quoted_lines(self, text: str, fold: bool) -> None:
        """Single-quoted text holding line or paragraph separators (U+2028, U+2029), character by
        character. No other break reaches single quotes: text with a newline is a `|` block or
        double-quoted, and a carriage return or NEL is not printable, so double-quoted."""
        spaces = breaks = False
        for at, char in enumerate(text):
            if char == " ":
                if fold and not spaces and self.column > WIDTH and 0 < at < len(text) - 1 and text[at + 1] != " ":
                    self.line_start()
                else:
                    self.write(char)
                spaces = True
            elif char in _BREAKS:
                self.out.append(char)
                self.column, self.indention, breaks = 0, True, True
            else:
                if breaks:
                    self.line_start()
                self.write("''" if char == "'" else char)
                self.indention = spaces = breaks = False
        if breaks:
            self.line_start()

    def double_quoted(self, text: str, *, fold: bool) -> None:
        self.indicator('"', True)
        last = len(text) - 1
        for run in re.finditer(" +|[^ ]+", text):
            chunk = run.group()
            if chunk[0] != " ":
                self.write(_escape(chunk))
                continue
            if fold and self.column > WIDTH and 0 < run.start() < last:
                self.line_start()
                chunk = "\\" + chunk[1:] if len(chunk) > 1 else ""
            self.write(chunk)
        self.indicator('"', False)
        self.whitespace = self.indention = False

    def literal(self, text: str) -> None:
        self.indicator("|", True)
        if text[0] == " " or text[0] in _BREAKS:
            self.indicator(str(INDENT), False)
        self.open_ended = False
        if text[-1] not in _BREAKS:
            self.indicator("-", False)
        elif len(text) == 1 or text[-2] in _BREAKS:
            self.indicator("+", False)
            self.open_ended = True
        pad = " " * self.indent
        parts = re.split(f"({_BREAK})", text)   # lines, and the breaks between them
        lines = [part if at % 2 or not part else pad + part for at, part in enumerate(parts)]
        self.out += ["\n", *lines]
        self.column = len(lines[-1])
        self.whitespace = True
        self.indention = not parts[-1]


__all__ = ["dump", "WIDTH"]
