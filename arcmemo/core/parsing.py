"""Strict parsing of model answers: tagged sections, fenced blocks, YAML.

Every failure raises ParseError with a message meant to be shown back to the model
("your answer had no ```yaml block"), so callers can retry once with it.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from typing import Any

from arcmemo.core import pyast
from arcmemo.core.text import clean_text

# (one run of blanks when there is no language name: two adjacent `[ \t]*` backtrack quadratically)
_FENCE = re.compile(r"```[ \t]*(?:([\w+-]+)[ \t]*)?\n(.*?)```", re.DOTALL)


class ParseError(ValueError):
    """A model answer did not have the expected shape; the message says what was wrong."""


def _last_match(pattern: str, text: str) -> re.Match | None:
    found = deque(re.finditer(pattern, text, re.IGNORECASE), maxlen=1)
    return found[0] if found else None


def extract_tag(text: str, tag: str) -> str:
    """The content of the last <tag>...</tag> section (stripped): from the last closing tag
    back to the nearest opening tag before it, found in one pass however many tags there are."""
    text = text or ""
    close = _last_match(rf"</{re.escape(tag)}>", text)
    start = _last_match(rf"<{re.escape(tag)}>", text[:close.start()]) if close else None
    if close is None or start is None:
        raise ParseError(f"the answer has no <{tag}>...</{tag}> section")
    content = text[start.end():close.start()].strip()
    if not content:
        raise ParseError(f"the <{tag}> section is empty")
    return content


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """All fenced blocks as (language, body)."""
    return [(lang.lower(), body) for lang, body in _FENCE.findall(text or "")]


def extract_fenced(text: str, lang: str | None = None) -> str:
    """The last fenced block (of language `lang` if given; untagged blocks also count)."""
    blocks = fenced_blocks(text)
    if lang is not None:
        blocks = [b for b in blocks if b[0] in (lang.lower(), "")]
    if not blocks:
        want = f"```{lang}" if lang else "```"
        raise ParseError(f"the answer has no fenced {want} ... ``` block")
    return blocks[-1][1]


def parse_yaml_block(text: str, lang: str = "yaml") -> Any:
    """Parse the last fenced YAML block with the safe loader (core.safeyaml: no dates, huge
    integers or aliases); errors carry the YAML line number."""
    from arcmemo.core import safeyaml  # PyYAML: a solve's start-up parses no answer yet

    body = extract_fenced(text, lang)
    try:
        return clean_strings(safeyaml.load(body))
    except safeyaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ParseError(f"the ```{lang} block is not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise ParseError(f"the ```{lang} block is nested too deeply") from None


def clean_strings(value: Any) -> Any:
    """`value` (parsed YAML or JSON) with every string in it cleaned (core.text.clean_text):
    escapes such as "\\ud800" or "\\0" make characters that were not in the answer's text."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_strings(item) for item in value]
    if isinstance(value, dict):
        return {clean_strings(key): clean_strings(item) for key, item in value.items()}
    return value


def extract_code(text: str) -> str:
    """The last ```python block (or untagged block) that defines a function."""
    blocks = [body for lang, body in fenced_blocks(text) if lang in ("python", "py", "")]
    blocks = [b for b in blocks if "def " in b]
    if not blocks:
        raise ParseError("the answer has no ```python ... ``` block defining a function")
    return blocks[-1].strip() + "\n"


_OPENING = re.compile(r"```[ \t]*(?:([\w+-]+)[ \t]*)?\n")    # a fence's opening line, as _FENCE reads it
CUT_TRIES = 8      # statements dropped from the end of a cut block, at most, to find what parses


def close_cut_block(text: str, function: str = "transform") -> str | None:
    """An answer cut at the token limit inside its last ```python (or ```py, or untagged) block,
    with that block closed after the last top-level statement the cut did not reach, when what
    is kept parses as Python and defines `function`; None when the last block is closed, or
    the cut left no complete `function` in it.

    The statement being written when the cut came is always dropped, even when what is left of
    it parses (a function cut after a line of its body parses, and is not the whole function): a
    statement is complete once the next top-level line has begun. So the usual cut answer, a
    whole `transform` and then test prints cut mid-line, keeps the function and what came
    before it, and the block's test code is then cut as any block's is (`definitions_only`)."""
    text = text or ""
    closed = deque(_FENCE.finditer(text), maxlen=1)         # the last block that has its closing fence
    opening = _OPENING.search(text, closed[0].end() if closed else 0)
    if opening is None or (opening.group(1) or "").lower() not in ("python", "py", ""):
        return None
    program = _complete_statements(text[opening.end():], function)
    return None if program is None else text[:opening.end()] + program + "```\n"


def _complete_statements(body: str, function: str) -> str | None:
    """The longest run of `body`'s top-level statements, less its last, that parses and defines `function`."""
    chunks = _statements(body)
    for keep in range(len(chunks) - 1, max(0, len(chunks) - 1 - CUT_TRIES), -1):
        lines = [line for chunk in chunks[:keep] for line in chunk]
        while lines and lines[-1][:1] in ("", "#"):       # the comment that opens the cut statement goes too
            lines.pop()
        code = "\n".join(lines) + "\n"
        try:
            tree = pyast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        defined = any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function
                      for node in tree.body)
        return code if defined else None      # fewer statements cannot define it either
    return None


def first_code_block(text: str) -> str:
    """The code the ArcMemo authors' released code reads from an answer (its solve drivers, through
    `score_tree.parse_code_solution`): the first block opened by exactly ```python and a line
    break, else the first opened by ``` and a line break, up to the next line break followed by
    ```, stripped. So ```Python, ```py, ```python3 or blanks after the fence open no block (the
    closing fence of one may open the next), and a block need not define anything.

    Found by plain search: the first opening of either kind is the only one that can match (a
    later one starts later, so has no closing fence after it if the first has none), where a
    backtracking pattern would scan to the end from every opening of a hostile answer.
    """
    text = text or ""
    for opening in ("```python\n", "```\n"):
        at = text.find(opening)
        if at != -1:
            end = text.find("\n```", at + len(opening))
            if end != -1:
                return text[at + len(opening):end].strip()
    raise ParseError("the answer has no ```python or ``` block (read as the released code reads one: the first "
                     "fence opened by exactly ```python or ``` and a line break, closed by a line starting ```)")


_DEFINITION = re.compile(r"(import |from |def |async def |class |@)")
_ASSIGNMENT = re.compile(r"([A-Za-z_]\w*(\s*,\s*[A-Za-z_]\w*)*)\s*(:[^=]*)?=[^=]")
_HARNESS_NAME = re.compile(r"(test|expected|example|sample|result|output|input|grid|answer)", re.IGNORECASE)
_CONTINUATION = re.compile(r"([)\]}]|else\b|elif\b|except\b|finally\b)")


def _statements(code: str) -> list[list[str]]:
    """Top-level statements, each with its indented and continuation lines (comments and
    blank lines stay with the statement before them)."""
    chunks: list[list[str]] = [[]]
    for line in code.splitlines():
        if line[:1] not in ("", " ", "\t", "#") and not _CONTINUATION.match(line):
            chunks.append([])
        chunks[-1].append(line)
    return [c for c in chunks if c]


def _is_harness_assignment(first_line: str, text: str) -> bool:
    """Not an assignment at all, or one that sets up an example (`test_input = ...`) or calls
    the program (`result = transform(...)`)."""
    assignment = _ASSIGNMENT.match(first_line)
    return not assignment or bool(_HARNESS_NAME.match(assignment.group(1))) or "transform(" in text


def _keep(chunk: list[str]) -> bool:
    first = chunk[0]
    if first[:1] in ("", " ", "\t", "#") or _DEFINITION.match(first):
        return True
    text = "\n".join(chunk)
    if _is_harness_assignment(first, text):
        return False
    try:
        compile(text, "<statement>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def _kept_by_ast(code: str, tree: ast.Module) -> str:
    """Keep imports, definitions, `try` blocks (guarded imports), a module docstring and
    constant assignments, cut along the syntax tree."""
    lines = code.splitlines()
    kinds = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try)
    kept = []
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        text = "\n".join(lines[start:node.end_lineno])
        docstring = node is tree.body[0] and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        constant = isinstance(node, (ast.Assign, ast.AnnAssign)) and not _is_harness_assignment(lines[start], text)
        if isinstance(node, kinds) or docstring or constant:
            kept.append(text)
    if len(kept) == len(tree.body):
        return code  # nothing to drop: the program as written
    return "\n\n".join(kept).strip() + "\n"


def definitions_only(code: str) -> str:
    """A program without the top-level test code models often append to it (example calls,
    prints, asserts, loops, `if __name__ == "__main__":` blocks, `test_input = ...`).

    That code runs on every import in the sandbox, and a wrong guess in it (or a literal
    like `0400`) would sink a correct `transform`. Imports, definitions and constant
    assignments stay. Code that parses is cut along its syntax tree; code that does not
    (often because of the appended test code) is cut line by line, and if even that does
    not compile, it is returned unchanged so the program's own error is what gets reported.
    """
    try:
        return _kept_by_ast(code, pyast.parse(code))
    except SyntaxError:
        pass
    kept = "\n".join(line for chunk in _statements(code) if _keep(chunk) for line in chunk).strip() + "\n"
    try:
        compile(kept, "<program>", "exec")
    except (SyntaxError, ValueError):
        return code
    return kept


def expect_list_of_mappings(value: Any, what: str, required: tuple[str, ...] = ()) -> list[dict]:
    """Check a parsed YAML value is a list of mappings with the required string fields."""
    if not isinstance(value, list):
        raise ParseError(f"{what}: expected a YAML list, got {type(value).__name__}")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise ParseError(f"{what}[{i}]: expected a mapping, got {type(item).__name__}")
        for field in required:
            if not isinstance(item.get(field), str) or not item[field].strip():
                raise ParseError(f"{what}[{i}]: missing or non-text field '{field}'")
    return value
