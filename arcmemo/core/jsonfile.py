"""Reading a JSON file someone else wrote, with one clear error naming the file.

JSON's own encodings are accepted (UTF-8 with or without a byte-order mark, UTF-16 and
UTF-32, as the `json` module detects them from the first bytes). Everything that can go
wrong — a missing file, undecodable bytes, a syntax error, an integer longer than Python
converts, nesting deeper than the parser's recursion limit, a file over `max_bytes` —
becomes a `JSONFileError` (a ValueError) whose message starts with the path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arcmemo.core.errors import ArcmemoError

MAX_BYTES = 512 * 1024 * 1024   # far above any ARC file (ARC-AGI-2's whole training set is ~40 MB)


class JSONFileError(ArcmemoError, ValueError):
    """A JSON file could not be read; the message names the file and what was wrong."""


def read_json(path: str | Path, max_bytes: int = MAX_BYTES) -> Any:
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise JSONFileError(f"{path}: {size} bytes, more than the {max_bytes} a JSON file may have here")
        raw = path.read_bytes()
    except OSError as exc:
        raise JSONFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise JSONFileError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise JSONFileError(f"{path}: not text in a JSON encoding (UTF-8, UTF-16 or UTF-32): "
                            f"byte {exc.start} cannot be decoded as {exc.encoding}") from None
    except RecursionError:
        raise JSONFileError(f"{path}: JSON nested too deeply to read") from None
    except ValueError as exc:   # e.g. an integer of more digits than int() converts
        raise JSONFileError(f"{path}: cannot read a value: {str(exc).split(':')[0]}") from None
