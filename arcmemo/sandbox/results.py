"""The parent's reading of a run's results: the result lines a run wrote (which a hostile program
may have forged) parsed strictly, their text sanitised before anything else reads it, and an
outcome for each grid the run did not answer, from how its stream and process ended."""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Callable
from typing import Any

from arcmemo.sandbox.common import (
    DEFAULT_MAX_STDOUT,
    ERROR_KINDS,
    MAX_MESSAGE_CHARS,
    MAX_SIDE,
    not_run_message,
    outcome_dict,
    timeout_message,
)
from arcmemo.sandbox.tracing import MAX_NAMES, is_name_list

# what a run's text loses: the rule of arcmemo.core.text (which see), copied as the sandbox imports
# nothing of arcmemo; a test holds the two to the same answer for every code point. Control
# characters but newline and tab (Cc), format characters (Cf: zero-width, direction marks and
# overrides, tags), line and paragraph separators (Zl, Zp), and the rest of Unicode's
# Default_Ignorable_Code_Point (variation selectors, Hangul fillers, ...)
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]")
_ASCII_INVISIBLE = dict.fromkeys(c for c in range(0x80) if _INVISIBLE.match(chr(c)))
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitised(text: str) -> str:
    """A run's text fit for a prompt, a log or a page: lone surrogates (which cannot be encoded
    as UTF-8) become U+FFFD, invisible characters (_INVISIBLE) are dropped."""
    if text.isascii():  # the usual case, and much faster than a regex
        return text.translate(_ASCII_INVISIBLE)
    return _LONE_SURROGATE.sub("\ufffd", _INVISIBLE.sub("", text))


def line_bytes(max_stdout: int) -> int:
    """The most one grid's result line can take on the pipe: its stdout and message JSON-escaped
    (12 bytes for a character outside the BMP), two lists of helper names, a grid. A run that
    writes more than this per grid is stopped."""
    return 12 * (max_stdout + 200 + MAX_MESSAGE_CHARS) + 2 * MAX_NAMES * 210 + 8 * MAX_SIDE * MAX_SIDE + 1024


def outcomes(stream: bytes, end: str, status: Callable[[], int | None], n: int, timeout: float,
             max_stdout: int = DEFAULT_MAX_STDOUT) -> list[dict]:
    """One outcome per grid from the run's result lines; grids without one are said to have
    failed the way the run ended (`end`: eof, timeout, overflow or server_died; `status()`: its
    wait status, asked for only then)."""
    results, malformed = _results(stream, n, max_stdout)
    if len(results) == n:
        return [results[i] for i in range(n)]
    kind, message = _ended("garbage" if malformed else end, status, timeout)
    out, first = [], None
    for i in range(n):
        if i in results:
            out.append(results[i])
        elif first is None:
            first = i
            out.append(outcome_dict(False, error=kind, message=message))
        else:
            out.append(outcome_dict(False, error=kind, message=not_run_message(first, kind)))
    return out


def _results(stream: bytes, n: int, max_stdout: int) -> tuple[dict[int, dict], bool]:
    """The first result of each grid, up to the first malformed line; and whether there was one
    (a last line without its newline is one the run did not finish writing: ignored)."""
    results: dict[int, dict] = {}
    for line in stream.split(b"\n")[:-1]:
        parsed = _parse_line(line, n, max_stdout)
        if parsed is None:
            return results, True
        results.setdefault(*parsed)
    return results, False


def _parse_line(line: bytes, n: int, max_stdout: int) -> tuple[int, dict] | None:
    """Strictly validate one result line (it may have been forged); None if malformed."""
    try:
        obj = json.loads(line.decode("utf-8"))
        idx, ok = obj["i"], obj["ok"]
        if type(idx) is not int or not 0 <= idx < n or type(ok) is not bool:
            return None
        msg, out_text = obj.get("message", ""), obj.get("stdout", "")
        if not isinstance(msg, str) or not isinstance(out_text, str):
            return None
        helpers = {key: obj[key] for key in ("called", "rebound") if key in obj}
        if not all(is_name_list(names) for names in helpers.values()):
            return None
        stdout = sanitised(out_text[:max_stdout + 200])
        if ok:
            if not _is_grid(obj["output"]):
                return None
            return idx, {**outcome_dict(True, output=obj["output"], stdout=stdout), **helpers}
        if obj["error"] not in ERROR_KINDS:
            return None
        return idx, {**outcome_dict(False, error=obj["error"], message=sanitised(msg[:MAX_MESSAGE_CHARS]),
                                    stdout=stdout), **helpers}
    except Exception:
        return None


def _is_grid(grid: Any) -> bool:
    if type(grid) is not list or not 1 <= len(grid) <= MAX_SIDE:
        return False
    width = None
    for row in grid:
        if type(row) is not list or not 1 <= len(row) <= MAX_SIDE:
            return False
        if width is None:
            width = len(row)
        elif len(row) != width:
            return False
        for c in row:
            if type(c) is not int or not 0 <= c <= 9:
                return False
    return True


def _ended(end: str, wait_status: Callable[[], int | None], timeout: float) -> tuple[str, str]:
    if end == "timeout":
        return "timeout", timeout_message(timeout)
    if end == "garbage":
        return "crash", "the program's process wrote malformed results to the result channel"
    if end == "overflow":
        return "crash", "the program's process wrote more to the result channel than its results can take"
    if end == "server_died":
        return "crash", "the sandbox's scipy fork server died during the run; it will be restarted"
    status = wait_status()
    if status is None:
        return "crash", "the program's process ended before returning a result"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU:
            return "timeout", "CPU time limit exceeded; the process was killed"
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return "crash", f"the program's process was killed by {name}"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return "crash", f"the program's process exited with status {code} before returning a result"
