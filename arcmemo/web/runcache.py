"""The runs folder as the page reads it: every run through the one reader (run/records/reader.py),
read again only when one of its files changes.

- `record(name)`: one run, found by name directly under the runs folder (lookup.find_run), kept
  while its files are unchanged (the runs used last, up to KEEP_BYTES of event logs); while one
  thread reads a run, the others asking for it wait for that reading instead of making their own.
- `listing()`: what the runs list and the concept pages show of every run (`Listed`), each run's
  kept while its files are unchanged; its state (status and lock) looked at again each time the
  list is made, and the list made at most every LISTING_S (sooner when a run is added or
  removed), so a page of the runs list costs a look at the clock while the folder is unchanged.
  A run that cannot be read (a FIFO for its event log, a file over its limit) is listed with its
  error; the other runs are not affected.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arcmemo.core.files import MiB
from arcmemo.run.records.reader import RunRecord, live, read_run, run_state
from arcmemo.run.records.rundir import RunDir, RunDirError
from arcmemo.web.lookup import find_run, run_dirs

KEEP_BYTES = 256 * MiB      # of event logs behind the runs kept read
LISTING_S = 1.0             # the runs list is made again at most this often while no run is added or removed
RUN_FILES = ("config.json", "status.json", "events.jsonl", "summary.json", "selections.jsonl", "tasks.json")


def signature(path: Path) -> tuple:
    """What a run directory's files look like now (inode, size, mtime): changes when the run moves on."""
    found = []
    for name in RUN_FILES:
        try:
            st = os.lstat(path / name)
            found.append((st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            found.append(None)
    return tuple(found)


@dataclass(frozen=True)
class Listed:
    """One run as the runs list shows it: its config, what it holds, its progress (or why it
    cannot be read), the concepts it offered to which tasks."""

    run_id: str
    recorded: dict[str, Any] = field(default_factory=dict)
    brief: str = "-"
    progress: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    offers: dict[int, list[str]] = field(default_factory=dict)
    last_time: float | None = None
    lost: int = 0

    @property
    def kind(self) -> str:
        return str(self.recorded.get("kind", "solve"))

    @property
    def test_informed(self) -> bool:
        return bool(self.progress.get("test_informed"))

    @property
    def settings(self) -> dict[str, Any]:
        settings = self.recorded.get("settings")
        return settings if isinstance(settings, dict) else {}


@dataclass
class Listing:
    """Every run of the folder (newest first), when it was made, and the page once drawn from it."""

    runs: list[Listed]
    made: float
    root: tuple
    _page: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def page(self, draw: Callable[[list[Listed]], str]) -> str:
        """The runs list page, drawn once per listing."""
        with self._lock:
            if self._page is None:
                self._page = draw(self.runs)
            return self._page


class RunShelf:
    """The runs under one folder as the page reads them (module docstring)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._records: OrderedDict[str, tuple[tuple, RunRecord, int]] = OrderedDict()
        self._listed: dict[str, tuple[tuple, Listed]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._listing: Listing | None = None
        self._listing_lock = threading.Lock()

    def _lock_of(self, name: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(name, threading.Lock())

    # -- one run ---------------------------------------------------------------------------
    def record(self, name: str) -> RunRecord:
        """The run called `name` (LookupError: there is none; RunDirError: its config cannot be read)."""
        return self._record(find_run(self.root, name))

    def _record(self, rundir: RunDir) -> RunRecord:
        name, sig = rundir.run_id, signature(rundir.path)
        with self._lock_of(name):
            with self._guard:
                kept = self._records.get(name)
                if kept is not None and kept[0] == sig:
                    self._records.move_to_end(name)
                    return kept[1]
            record = read_run(rundir)
            with self._guard:
                self._records[name] = (sig, record, (sig[2] or (0, 0, 0))[1])
                self._records.move_to_end(name)
                total = sum(size for _, _, size in self._records.values())
                while len(self._records) > 1 and total > KEEP_BYTES:
                    _, (_, _, size) = self._records.popitem(last=False)
                    total -= size
            return record

    # -- every run ---------------------------------------------------------------------------
    def listing(self) -> Listing:
        """Every run under the folder, newest first (module docstring)."""
        try:
            root = (os.stat(self.root).st_mtime_ns,)
        except OSError:
            root = (None,)
        with self._listing_lock:
            current = self._listing
            if current is not None and current.root == root and time.monotonic() - current.made < LISTING_S:
                return current
            now = time.time()
            runs = [self._listed_now(rundir, now) for rundir in reversed(run_dirs(self.root))]
            self._listing = Listing(runs, time.monotonic(), root)
            return self._listing

    def _listed_now(self, rundir: RunDir, now: float) -> Listed:
        """The run as listed, its state as it is now."""
        sig = signature(rundir.path)
        kept = self._listed.get(rundir.run_id)
        listed = kept[1] if kept is not None and kept[0] == sig else None
        if listed is None:
            listed = self._list(rundir)
            self._listed[rundir.run_id] = (sig, listed)
        if listed.error is not None:
            return listed
        try:
            status = rundir.status()
        except RunDirError as exc:
            return replace(listed, error=str(exc))
        idle = None if listed.last_time is None else max(0.0, now - listed.last_time)
        return replace(listed, progress={**listed.progress, "state": run_state(status, idle, listed.lost),
                                         "running": live(status, idle),
                                         "idle_s": None if idle is None else round(idle, 1)})

    def _list(self, rundir: RunDir) -> Listed:
        try:
            record = self._record(rundir)
            offers: dict[int, list[str]] = {}
            for outcome in record.latest.values():
                for concept_id in dict.fromkeys(outcome.selected):
                    offers.setdefault(concept_id, []).append(outcome.task_id)
            return Listed(rundir.run_id, record.recorded, record.brief(), record.progress(), offers=offers,
                          last_time=record.log.last_time, lost=record.lost_count())
        except RunDirError as exc:         # this run cannot be read: the list says so, the others are shown
            return Listed(rundir.run_id, error=str(exc))


__all__ = ["KEEP_BYTES", "LISTING_S", "Listed", "Listing", "RunShelf", "signature"]
