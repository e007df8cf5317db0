"""One prompt template file: its header (the variables it takes) and its text, checked.

A template is a text file whose `$name` (or `${name}`) placeholders arcmemo fills when it
renders the prompt (string.Template: `$$` is a literal dollar sign). A shipped template
starts with a header between two `---` lines saying what it takes:

    ---
    about: the solver's first user message: the puzzle, then what memory offers
    required: puzzle
    optional: hint_section
    ---
    # Puzzle
    $puzzle
    ...

`required`: variables the text must use (a template without them would drop the puzzle,
the memory, ...); `optional`: variables arcmemo also supplies, which the text may use or
leave out. Every template may also use the built-in variables (arcmemo.prompts.BUILTINS),
which need no declaring. The header is not part of the prompt. A user's copy of a
template may keep the header or drop it: what a template takes is always the shipped
file's declaration, which is what arcmemo's code fills.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from string import Template

from arcmemo.core.errors import ArcmemoError

HEADER_KEYS = ("about", "required", "optional")
FENCE = "---"
_NAME = re.compile(r"[_a-z][_a-z0-9]*\Z", re.IGNORECASE)     # string.Template's idpattern


class PromptError(ArcmemoError, ValueError):
    """A template or prompt directory that cannot be used; the message names the file (and the
    variable or line)."""


@dataclass(frozen=True)
class Declared:
    """What a template takes: the variables its text must use, and those it may use."""

    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    about: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.required, *self.optional)


@dataclass(frozen=True)
class TemplateFile:
    """A template file read and parsed (not yet checked against what it must take)."""

    where: str                      # its path, for messages and a run's record of sources
    declared: Declared | None       # its header; None when it has none
    body: str                       # the text after the header: what is rendered
    digest: str                     # sha256 prefix of the body: what is rendered (a file without header: its bytes)

    @property
    def template(self) -> Template:
        return Template(self.body)

    def variables(self) -> set[str]:
        """The variables the text uses."""
        return set(self.template.get_identifiers())


def parse_template(data: bytes, where: str) -> TemplateFile:
    """A template file's bytes -> TemplateFile; PromptError naming the file (and line) when it
    is not UTF-8, its header is malformed, or a `$` is not followed by a variable name."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PromptError(f"{where}: not UTF-8 text") from None
    declared, body, first_line = _split_header(text, where)
    _check_placeholders(body, where, first_line)
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]
    return TemplateFile(where=where, declared=declared, body=body, digest=digest)


def _split_header(text: str, where: str) -> tuple[Declared | None, str, int]:
    """(header, body, the body's first line number)."""
    lines = text.split("\n")
    if lines[0].rstrip() != FENCE:
        return None, text, 1
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == FENCE)
    except StopIteration:
        raise PromptError(f"{where}: the header opened by {FENCE!r} on line 1 is never closed by a "
                          f"{FENCE!r} line") from None
    fields: dict[str, str] = {}
    for number, line in enumerate(lines[1:end], 2):
        if not line.strip():
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if not colon or key not in HEADER_KEYS:
            raise PromptError(f"{where}:{number}: a header line is `key: value` with key one of "
                              f"{', '.join(HEADER_KEYS)}; got {line.strip()!r}")
        if key in fields:
            raise PromptError(f"{where}:{number}: {key!r} is given twice in the header")
        fields[key] = value.strip()
    required = _names(fields.get("required", ""), where, "required")
    optional = _names(fields.get("optional", ""), where, "optional")
    both = sorted(set(required) & set(optional))
    if both:
        raise PromptError(f"{where}: ${both[0]} is declared both required and optional")
    body = "\n".join(lines[end + 1:])
    return Declared(required, optional, fields.get("about", "")), body, end + 2


def _names(value: str, where: str, key: str) -> tuple[str, ...]:
    names = []
    for item in re.split(r"[,\s]+", value.strip()):
        if not item:
            continue
        name = item.removeprefix("$")
        if not _NAME.match(name):
            raise PromptError(f"{where}: {key}: {item!r} is not a variable name")
        names.append(name)
    return tuple(names)


def _check_placeholders(body: str, where: str, first_line: int) -> None:
    for match in Template.pattern.finditer(body):
        if match.group("invalid") is not None:
            line = first_line + body.count("\n", 0, match.start())
            raise PromptError(f"{where}:{line}: a '$' not followed by a variable name (write $$ for a dollar "
                              "sign, ${name} for a variable followed by letters)")


def check_uses(file: TemplateFile, declared: Declared, name: str, builtins: Iterable[str]) -> None:
    """PromptError naming the file and the variable when `file`'s text uses a variable template
    `name` does not take (`declared`, plus the built-ins) or leaves out a required one."""
    used = file.variables()
    takes = set(declared.names) | set(builtins)
    unknown = sorted(used - takes)
    if unknown:
        offered = ", ".join(f"${v}" for v in declared.names) or "none of its own"
        raise PromptError(f"{file.where}: uses ${unknown[0]}, which template {name!r} does not take (it takes "
                          f"{offered}; any template may use {', '.join('$' + b for b in sorted(builtins))})")
    missing = [v for v in declared.required if v not in used]
    if missing:
        raise PromptError(f"{file.where}: leaves out ${missing[0]}, which template {name!r} requires "
                          f"(required: {', '.join('$' + v for v in declared.required)})")


__all__ = ["PromptError", "Declared", "TemplateFile", "parse_template", "check_uses", "HEADER_KEYS"]
