"""The paper's released data (ArcMemo's memories: compressed_v1.json, 270 PS concepts, and
parsed_lessons.json, 364 OE lessons), found from the checkout: in `../shared/reference/arcmemo`
beside it (for a git worktree, beside its main checkout too), or, when $ARCMEMO_SHARED is set,
in `$ARCMEMO_SHARED/reference/arcmemo` alone.

Not shipped with arcmemo (the authors' files): a benchmark that needs one says which is missing
and where it looked (`require`); a test skips with that reason (tests/shared_data.py), so the
test summary (`pytest -ra`) says what did not run and why.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = "ARCMEMO_SHARED"
REFERENCE = Path("reference", "arcmemo")
PS_MEMORY = "compressed_v1.json"
OE_LESSONS = "parsed_lessons.json"


def _main_checkout(root: Path) -> Path | None:
    """The main checkout of a git worktree (its `.git` file points into <main>/.git/worktrees/),
    None for anything else."""
    git = root / ".git"
    try:
        text = git.read_text(encoding="utf-8").strip() if git.is_file() else ""
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    worktrees = Path(text[len("gitdir:"):].strip()).parent
    return worktrees.parent.parent if worktrees.name == "worktrees" and worktrees.parent.name == ".git" else None


def shared_dirs() -> list[Path]:
    """Where the shared folder is looked for, in order."""
    given = os.environ.get(ENV)
    if given:
        return [Path(given).expanduser()]
    found = [ROOT.parent / "shared"]
    main = _main_checkout(ROOT)
    if main is not None and main.parent / "shared" not in found:
        found.append(main.parent / "shared")
    return found


def reference(name: str) -> Path | None:
    """The released file `name` (PS_MEMORY, OE_LESSONS), None when it is in none of `shared_dirs()`."""
    return next((path for path in (d / REFERENCE / name for d in shared_dirs()) if path.is_file()), None)


def missing(name: str) -> str:
    """What is missing and where it was looked for."""
    looked = " or ".join(str(d / REFERENCE / name) for d in shared_dirs())
    return (f"the paper's released {name} is not at {looked} (put the shared data beside the checkout, "
            f"or set {ENV} to the folder holding reference/arcmemo/)")


def require(name: str) -> Path:
    """The released file `name`; a benchmark that cannot run without it stops saying what is missing."""
    path = reference(name)
    if path is None:
        raise SystemExit(missing(name))
    return path


__all__ = ["ENV", "OE_LESSONS", "PS_MEMORY", "missing", "reference", "require", "shared_dirs"]
