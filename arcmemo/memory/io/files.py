"""Reading a YAML or JSON file nobody vouches for (an import, a hand annotation), so that no
file can crash the reader: every problem is a `MemoryFileError` naming the file, and the
line and field when known.

The file is parsed once (`core/safeyaml.py` for YAML: libyaml, no timestamps, no huge
integers, no aliases; `json` for `.json`); only an error about a value composes the
text again, to find the line the value came from.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from arcmemo.core import safeyaml
from arcmemo.memory.errors import StoreError
from arcmemo.memory.store.gcpause import gc_paused

_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
         (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


class MemoryFileError(StoreError, ValueError):
    """A file could not be used; `path`, `line` (1-based, when known) and `field` say where."""

    def __init__(self, path: str | Path, message: str, *, line: int | None = None, field: str | None = None):
        self.path, self.line, self.field = str(path), line, field
        where = self.path + (f":{line}" if line else "")
        super().__init__(f"{where}: {field + ': ' if field else ''}{message}")


def path_parts(field_path: str | None) -> list[str | int]:
    """'parameters[0].name' -> ['parameters', 0, 'name']."""
    parts: list[str | int] = []
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", field_path or ""):
        parts.append(int(index) if index else name)
    return parts


def field_label(parts: list[str | int]) -> str:
    """['concepts', 0, 'name'] -> 'concepts[0].name'."""
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(parts))


def line_of(node: yaml.Node | None, parts: list[str | int]) -> int | None:
    """1-based line of the deepest node on `parts` that exists in a composed YAML tree."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in parts:
        nxt = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    line, nxt = key.start_mark.line + 1, value
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            nxt = node.value[part]
            line = nxt.start_mark.line + 1
        if nxt is None:
            break
        node = nxt
    return line


class Document:
    """A loaded file: its data, and `error()` to report a problem at a field path (with its line)."""

    def __init__(self, path: Path, text: str, data: Any):
        self.path, self.text, self.data = path, text, data
        self._node: yaml.Node | None = None
        self._composed = False

    def line(self, parts: list[str | int]) -> int | None:
        """The line of the value at `parts` (the text composed once, on first need)."""
        if not parts:
            return None
        if not self._composed:
            self._composed = True
            try:  # JSON is (nearly always) YAML too
                self._node = safeyaml.compose(self.text)
            except (yaml.YAMLError, RecursionError):
                pass
        return line_of(self._node, parts)

    def place(self, parts: list[str | int]) -> str:
        """Where a value is, for a message: 'line 12 (concepts[2])'."""
        line = self.line(parts)
        return f"line {line} ({field_label(parts)})" if line else field_label(parts)

    def error(self, message: str, parts: list[str | int]) -> MemoryFileError:
        return MemoryFileError(self.path, message, line=self.line(parts), field=field_label(parts) or None)


def read_text(path: str | Path) -> str:
    """A file's text; MemoryFileError if it is missing, a directory, unreadable, not UTF-8 or empty."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MemoryFileError(path, "no such file") from None
    except IsADirectoryError:
        raise MemoryFileError(path, "is a directory, not a file") from None
    except OSError as exc:
        raise MemoryFileError(path, f"cannot read: {exc.strerror or exc}") from None
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            raise MemoryFileError(path, f"is {encoding} text; save it as UTF-8")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise MemoryFileError(path, f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                              line=line) from None
    if not text.strip():
        raise MemoryFileError(path, "the file is empty")
    return text


class _RepeatedKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when a key repeats (json keeps the last and says nothing: in
    ArcMemo's PS file the key is the concept's name)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        raise _RepeatedKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return obj


def _repeated_key(path: Path, text: str, key: str) -> MemoryFileError:
    """The error for a key given twice in one JSON object, at the line of its second appearance."""
    found = [m.start() for m in re.finditer(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:", text)]
    line = text.count("\n", 0, found[1]) + 1 if len(found) > 1 else None
    return MemoryFileError(path, f"invalid JSON: the key {key!r} appears twice in one object (give it once)", line=line)


def read_document(path: str | Path) -> Document:
    """Load a `.json` file as JSON, anything else as YAML; MemoryFileError for any problem."""
    path = Path(path)
    text = read_text(path)
    try:
        with gc_paused():
            if path.suffix.lower() == ".json":
                data = json.loads(text, object_pairs_hook=_unique_keys)
            else:
                data = safeyaml.load(text)
    except _RepeatedKey as exc:
        raise _repeated_key(path, text, exc.key) from None
    except json.JSONDecodeError as exc:
        raise MemoryFileError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise MemoryFileError(path, f"invalid YAML: {problem}", line=mark.line + 1 if mark else None) from None
    except RecursionError:
        raise MemoryFileError(path, "nested too deeply to read") from None
    except ValueError as exc:  # JSON: an integer of more than 4,300 digits
        raise MemoryFileError(path, f"invalid JSON: {str(exc).splitlines()[0]}") from None
    return Document(path, text, data)


__all__ = ["MemoryFileError", "Document", "read_document", "read_text", "line_of", "path_parts", "field_label",
           "gc_paused"]
