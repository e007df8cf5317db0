"""Reading one seed solution file: `seeds/<task_id>.py` in our format or BARC's.

A seed file has a header comment (`# concepts:` tags, `# description:` text) and an
entry function: `transform(grid)` (ours) or `main(input_grid)` (BARC). BARC seeds also
`from common import *` (their helper library, passed as `lib` and handed to the sandbox
as the importable module `common`), index grids `[x, y]` (`transpose=True` wraps the
program so the input goes in transposed and the output comes out transposed back), end
with a `# ===... remove below this point ...` section (dropped) and define a
`generate_input` (dropped too: it is a data generator, not part of the solution).
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from arcmemo.core import pyast
from arcmemo.core.errors import ArcmemoError

ENTRIES = ("transform", "main")
TRANSPOSED_ENTRY = "_arcmemo_transposed_entry"
_MARKER = re.compile(r"^#\s*=+\s*remove below this point.*$", re.IGNORECASE | re.MULTILINE)
_COMMON_IMPORT = re.compile(r"^\s*(from\s+common\s+import|import\s+common\b)", re.MULTILINE)
_TASK_ID = re.compile(r"^[0-9a-f]{8}$")


class SeedError(ArcmemoError, ValueError):
    """A seed file cannot be used as it is; the message names the file and the problem."""


@dataclass(frozen=True)
class SeedFile:
    path: Path
    task_id: str
    code: str                  # the solution as shown to models and stored (marker section and generate_input dropped)
    program: str               # what the sandbox runs (code, plus the transpose wrapper if asked)
    entry: str                 # the function the sandbox calls
    tags: tuple[str, ...] = ()
    description: str = ""
    modules: dict[str, str] = field(default_factory=dict)   # {"common": source} for BARC seeds
    content_hash: str = ""     # sha256 of the file's bytes (plus the lib's, when one is used)

    @property
    def name(self) -> str:
        return str(self.path)


def _drop_function(code: str, name: str, where: str) -> str:
    """Remove a top-level `def name(...)` (with its decorators) from the source."""
    try:
        tree = pyast.parse(code)
    except SyntaxError as exc:
        raise SeedError(f"{where}: not valid Python (line {exc.lineno}: {exc.msg})") from None
    lines = code.splitlines(keepends=True)
    spans = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans.append((start - 1, node.end_lineno))
    for start, end in reversed(spans):
        del lines[start:end]
    return "".join(lines)


def _defined_functions(code: str) -> set[str]:
    tree = pyast.parse(code)
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def parse_header(code: str) -> tuple[tuple[str, ...], str]:
    """The `# concepts:` tags and `# description:` text of a seed's leading comments.

    Both the one-line form (`# concepts: a, b`) and BARC's form (header line, then the
    text on the following comment lines) are read; a section ends at the next header, a
    blank comment line or the first non-comment line.
    """
    sections: dict[str, list[str]] = {}
    current = None
    for line in code.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            current = None
            continue
        text = stripped.lstrip("#").strip()
        match = re.match(r"^(concepts|description)\s*:\s*(.*)$", text, re.IGNORECASE)
        if match:
            current = match.group(1).lower()
            sections.setdefault(current, [])
            if match.group(2):
                sections[current].append(match.group(2))
        elif current and text:
            sections[current].append(text)
        else:
            current = None
    tags = tuple(t.strip() for t in " ".join(sections.get("concepts", [])).split(",") if t.strip())
    return tags, " ".join(sections.get("description", []))


def transposed_program(code: str, entry: str) -> str:
    """Wrap `entry` so it sees the grid as [x, y] and its answer is turned back to [row, col]."""
    return (
        code.rstrip()
        + "\n\n\n"
        + f"def {TRANSPOSED_ENTRY}(grid):\n"
        + "    import numpy as _np\n"
        + f"    _out = {entry}(_np.array(_np.asarray(grid).T))\n"
        + "    return _np.asarray(_out).T.tolist()\n"
    )


def read_seed(path: str | Path, *, lib: str | None = None, transpose: bool = False) -> SeedFile:
    """Read and prepare one seed file; `lib` is the source of BARC's `common` helper module."""
    path = Path(path)
    task_id = path.stem
    if not _TASK_ID.match(task_id):
        raise SeedError(f"{path}: the file name must be an ARC task id (8 hex digits), got {task_id!r}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SeedError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SeedError(f"{path}: not UTF-8 text") from None
    marker = _MARKER.search(text)
    code = text[: marker.start()] if marker else text
    code = _drop_function(code, "generate_input", str(path)).rstrip() + "\n"
    functions = _defined_functions(code)
    entry = next((e for e in ENTRIES if e in functions), None)
    if entry is None:
        raise SeedError(f"{path}: defines neither transform(grid) nor main(input_grid)")
    modules: dict[str, str] = {}
    digest = hashlib.sha256(raw)
    if _COMMON_IMPORT.search(code):
        if lib is None:
            raise SeedError(f"{path}: imports the BARC helper module `common`; pass it with --lib path/to/common.py")
        modules["common"] = lib
        digest.update(b"\0lib\0" + lib.encode())
    if transpose:
        digest.update(b"\0transpose")
    tags, description = parse_header(code)
    program = transposed_program(code, entry) if transpose else code
    return SeedFile(
        path=path,
        task_id=task_id,
        code=code,
        program=program,
        entry=TRANSPOSED_ENTRY if transpose else entry,
        tags=tags,
        description=description,
        modules=modules,
        content_hash=digest.hexdigest(),
    )


def find_seed_files(directory: str | Path) -> list[Path]:
    """The `<task_id>.py` files of a seed directory, sorted (helper modules like common.py skipped)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise SeedError(f"{directory}: not a directory")
    return sorted(p for p in directory.glob("*.py") if _TASK_ID.match(p.stem))
