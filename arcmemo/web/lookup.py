"""What a request may name, looked up among arcmemo's own data: never a path to open.

The page has no login, so anything a request carries is a name to find in a table made
when the server started, or among the run directories directly under `--runs`:

- a dataset is one of the bundled splits (`training`, `arc-agi-2/evaluation`, `all`, ...)
  or a folder the user named with `serve --tasks-from`, by its name;
- a run is a directory directly under the runs folder, by its exact name, and only when
  neither it nor any file in it leads out of that folder through a symlink.

A name not found is a LookupError (the page answers 404) whose message quotes it briefly.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

from arcmemo.core.datasets import DATASETS, SPLITS, source_name
from arcmemo.core.tasks import TaskSet, load_tasks
from arcmemo.core.text import invisible
from arcmemo.run.records.rundir import RunDir

SHOWN_CHARS = 60  # of a requested name quoted in an error


def shown(name: str) -> str:
    """A requested name quoted for an error message: short, and only printable characters."""
    text = "".join(ch if ch.isprintable() and not invisible(ch) else "?" for ch in name[:SHOWN_CHARS])
    return repr(text + ("…" if len(name) > SHOWN_CHARS else ""))


def bundled_names() -> tuple[str, ...]:
    """The bundled task sources a page may show: every split of every dataset, and `all` of each."""
    names = []
    for dataset in DATASETS:
        names += [source_name(dataset, split) for split in (*SPLITS[dataset], "all")]
    return tuple(names)


class TaskSources:
    """The datasets of this server: the bundled ones and the user's `--tasks-from` paths, by name.

    A user's path is named after its folder (or file stem), with `-2`, `-3`... when that name
    is taken; each is loaded once, at start (so a bad path is refused before the server listens)."""

    def __init__(self, tasks_from: Iterable[str | Path] = ()):
        self.bundled = bundled_names()
        self.paths: dict[str, Path] = {}
        self._loaded: dict[str, TaskSet] = {}
        self._lock = threading.Lock()
        for path in tasks_from:
            path = Path(path).expanduser().resolve()
            base = path.stem if path.is_file() else path.name
            name, n = base or "tasks", 1
            while name in self.bundled or name in self.paths:
                n += 1
                name = f"{base}-{n}"
            self._loaded[name] = load_tasks(path)       # TaskError (a ValueError) naming the file
            self.paths[name] = path

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.paths, *self.bundled)

    def get(self, name: str) -> TaskSet:
        """The tasks of the dataset called `name`; LookupError when there is none."""
        if name not in self.paths and name not in self.bundled:
            raise LookupError(f"no dataset {shown(name)}: the datasets here are {', '.join(self.names)}")
        with self._lock:
            if name not in self._loaded:
                self._loaded[name] = load_tasks(name)   # a split's name: never read as a path
            return self._loaded[name]

    def name_of(self, source: str | None) -> str | None:
        """The name under which a run's task source can be shown here, if it can."""
        if source is None:
            return None
        if source in self.bundled:
            return source
        try:
            resolved = Path(source).expanduser().resolve()
        except (OSError, ValueError):
            return None
        return next((name for name, path in self.paths.items() if path == resolved), None)


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):                # a symlink loop
        return False


def contained(run: Path, root: Path) -> bool:
    """Whether the run directory and every entry in it stay inside `root` (resolved). Only
    symbolic links are resolved (a plain entry of a plain directory under `root` is inside it):
    a folder of a thousand runs is looked through in milliseconds."""
    if run.is_symlink() and not _inside(run, root):
        return False
    try:
        with os.scandir(run) as entries:
            return all(_inside(Path(entry.path), root) for entry in entries if entry.is_symlink())
    except OSError:
        return False


def run_dirs(root: str | Path) -> list[RunDir]:
    """The run directories directly under `root` that stay inside it, in name order."""
    root = Path(root)
    try:
        real = root.resolve()
        entries = sorted(os.listdir(root))
    except OSError:
        return []
    return [RunDir(root / name) for name in entries
            if (root / name / "config.json").is_file() and contained(root / name, real)]


def find_run(root: str | Path, name: str) -> RunDir:
    """The run directory called `name` directly under `root`; LookupError unless it is one."""
    root = Path(root)
    missing = LookupError(f"no run {shown(name)} in the runs folder")
    plain = name not in ("", ".", "..") and not any(ch in name for ch in "/\\\0")
    try:
        listed = plain and name in os.listdir(root)
    except OSError:
        listed = False
    if not listed or not (root / name / "config.json").is_file() or not contained(root / name, root.resolve()):
        raise missing
    return RunDir(root / name)
