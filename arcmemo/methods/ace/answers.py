"""Reading the reflector's and the curator's YAML answers, leniently where it is safe.

Both are asked for one fenced YAML block. Small models often drop the fence (or never close
it), and write a lesson or a bullet's content holding `: ` or `{...}` without quotes, which
is not valid YAML though what was meant is plain (`- Map colours: 1 to 5`). When the answer does not
parse as YAML, it is read line by line in the shape asked for, each value taken literally:
the reflector's top-level keys with their text, `id: verdict` lines and `- lesson` lines;
the curator's `- op: ...` items with their `key: value` lines. Anything else raises the
YAML error, which the retry shows the model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from arcmemo.core import safeyaml
from arcmemo.core.parsing import ParseError, clean_strings, extract_fenced

_EMPTY = {"{}": {}, "[]": [], "": None}
_BLOCK = ("|", "|-", ">", ">-")              # a block scalar's indicator: its text follows on the next lines
_UNCLOSED = re.compile(r"```(?:yaml|yml)?[ \t]*\n(?![\s\S]*```)", re.IGNORECASE)   # the last fence, opened only


def _body(text: str) -> str:
    """The last fenced YAML block's text; the text after a last fence opened and never closed (the
    model stopped without closing it); the whole answer when it has no fence at all."""
    text = text or ""
    try:
        return extract_fenced(text, "yaml")
    except ParseError:
        unclosed = _UNCLOSED.search(text)
        if unclosed is not None:
            return text[unclosed.end():]
        if "```" in text:
            raise
        return text


def _literal(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def yaml_answer(text: str, read_lines) -> Any:
    """The answer's YAML, or `read_lines(body)` when it is not valid YAML (ParseError naming the
    YAML problem when that cannot read it either)."""
    body = _body(text)
    try:
        return clean_strings(safeyaml.load(body))
    except (safeyaml.YAMLError, RecursionError) as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = f"invalid YAML{f' at line {mark.line + 1}' if mark is not None else ''}: " \
                  f"{getattr(exc, 'problem', None) or exc}"
    try:
        return clean_strings(read_lines(body))
    except ParseError:
        raise ParseError(problem) from None


def mapping_lines(keys: Sequence[str]):
    """A line reader for a mapping of `keys` (text, `key: value` lines, or `- item` lines under each)."""
    top = re.compile(rf"^({'|'.join(map(re.escape, keys))})\s*:\s*(.*)$")

    def read(body: str) -> dict:
        out: dict[str, Any] = {}
        key = None
        for line in body.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            found = top.match(line)
            if found:
                key, rest = found.group(1), found.group(2).strip()
                if key in out:
                    raise ParseError(f"{key} given twice")
                out[key] = "" if rest in _BLOCK else _EMPTY[rest] if rest in _EMPTY else _literal(rest)
                continue
            if key is None:
                raise ParseError(f"a line before any of {', '.join(keys)}")
            item = re.match(r"^\s*-\s+(.*)$", line)
            pair = re.match(r"^\s+([^:]+?)\s*:\s*(\S.*)$", line)
            value = out[key]
            if item and (value is None or isinstance(value, list)):
                out[key] = [*(value or []), _literal(item.group(1))]
            elif pair and (value is None or isinstance(value, dict)):
                out[key] = {**(value or {}), _literal(pair.group(1)): _literal(pair.group(2))}
            elif isinstance(value, str) and line[:1].isspace():
                out[key] = f"{value} {line.strip()}".strip()  # a text value continued on the next line
            elif isinstance(value, list) and value and line[:1].isspace():
                value[-1] = f"{value[-1]} {line.strip()}"      # a list item continued
            else:
                raise ParseError(f"cannot read the line {line.strip()!r}")
        return out

    return read


def item_lines(keys: Sequence[str]):
    """A line reader for a list of mappings with `keys` (`- key: value` starts an item)."""
    field = rf"({'|'.join(map(re.escape, keys))})\s*:\s*(.*)$"
    first, more = re.compile(rf"^\s*-\s+{field}"), re.compile(rf"^\s+{field}")

    def read(body: str) -> list:
        items: list[dict] = []
        last, indent = None, None
        for line in body.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.strip() == "[]" and not items:
                return []
            found = first.match(line)
            if found:
                items.append({})
            else:
                found = more.match(line)
            if found:
                if not items or found.group(1) in items[-1]:
                    raise ParseError(f"cannot read the line {line.strip()!r}")
                last, indent = found.group(1), None
                rest = found.group(2).strip()
                items[-1][last] = "" if rest in _BLOCK else _literal(rest)
            elif items and last is not None and line[:1].isspace():
                # a value continued: its lines kept, indented as they are under its first one (code)
                indent = len(line) - len(line.lstrip()) if indent is None else indent
                kept = line[indent:] if line[:indent].isspace() else line.strip()
                items[-1][last] = f"{items[-1][last]}\n{kept}" if items[-1][last] else kept
            else:
                raise ParseError(f"cannot read the line {line.strip()!r}")
        if not items:
            raise ParseError("no operations")
        return items

    return read


__all__ = ["yaml_answer", "mapping_lines", "item_lines"]
