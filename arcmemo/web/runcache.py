"""The runs folder as the page reads it: every run through the one reader (run/records/reader.py),
read again only when one of its files changes.

- `record(name)`: one run, found by name directly under the runs folder (lookup.find_run), kept
  while its files are unchanged (the KEEP_RUNS runs used last, within KEEP_BYTES of event logs);
  while one thread reads a run, the others asking for it wait for that reading instead of
  making their own.
- `listing()`: what the runs list and the concept pages show of every run (`Listed`), each run's
  kept while its files are unchanged, its state (status and lock) looked at again each time the
  list is made. A list older than LISTING_S is still answered while a thread makes it again
  (so no request waits for a folder of a thousand runs to be looked at); when a run is added
  or removed, the list is made before it is answered. A run that cannot be read (a FIFO for
  its event log, a file over its limit) is listed with its error; the others are not affected.
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
from arcmemo.run.records.concept_use import TaskUse, task_uses
from arcmemo.run.records.reader import RunRecord, live, read_run, run_state
from arcmemo.run.records.rundir import RunDir, RunDirError
from arcmemo.web.lookup import find_run, run_dirs

KEEP_RUNS = 16              # runs kept read (their event logs parsed)...
KEEP_BYTES = 128 * MiB      # ...within this many bytes of event log (a run over it is kept alone)
LISTING_S = 1.0             # a runs list this old is made again (in the background: module docstring)
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
    cannot be read), its tasks' concept use (what it offered to which task)."""

    run_id: str
    recorded: dict[str, Any] = field(default_factory=dict)
    brief: str = "-"
    progress: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    uses: tuple[TaskUse, ...] = ()        # its tasks' concept use (run/records/concept_use.py)
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


@dataclass(frozen=True)
class Listing:
    """Every run of the folder (newest first), when it was made, and the runs list page drawn from it."""

    runs: list[Listed]
    made: float
    root: tuple
    page: str = ""


class SharedPages:
    """Pages made once for the requests that want them at the same time, and answered again for
    LISTING_S (a page of a run reflects its files, which the key holds, and the time, which
    moves on): twenty requests for a run's page make it once."""

    def __init__(self, keep: int = 256):
        self.keep = keep
        self._pages: OrderedDict[tuple, tuple[float, Any]] = OrderedDict()
        self._locks: dict[tuple, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, key: tuple, make: Callable[[], Any]) -> Any:
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._guard:
                kept = self._pages.get(key)
            if kept is not None and time.monotonic() - kept[0] < LISTING_S:
                return kept[1]
            made = make()
            with self._guard:
                self._pages[key] = (time.monotonic(), made)
                self._pages.move_to_end(key)
                while len(self._pages) > self.keep:
                    oldest, _ = self._pages.popitem(last=False)
                    self._locks.pop(oldest, None)
            return made


class RunShelf:
    """The runs under one folder as the page reads them (module docstring)."""

    def __init__(self, root: str | Path, draw: Callable[[list[Listed]], str] = lambda runs: ""):
        """`draw`: the runs list page of the listed runs (drawn with each list, in its thread)."""
        self.root = Path(root)
        self.draw = draw
        self._records: OrderedDict[str, tuple[tuple, RunRecord, int]] = OrderedDict()
        self._listed: dict[str, tuple[tuple, Listed]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._listing: Listing | None = None
        self._listing_lock = threading.Lock()
        self._refreshing = threading.Lock()        # held while a thread makes the list again

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
                while len(self._records) > 1 and (total > KEEP_BYTES or len(self._records) > KEEP_RUNS):
                    _, (_, _, size) = self._records.popitem(last=False)
                    total -= size
            return record

    # -- every run ---------------------------------------------------------------------------
    def _root(self) -> tuple:
        try:
            return (os.stat(self.root).st_mtime_ns,)
        except OSError:
            return (None,)

    def fresh(self) -> Listing | None:
        """The list made last, unless a run was added or removed since (nothing is read: the
        page's fast path); one older than LISTING_S is made again meanwhile."""
        current = self._listing
        if current is None or current.root != self._root():
            return None
        if time.monotonic() - current.made >= LISTING_S and self._refreshing.acquire(blocking=False):
            threading.Thread(target=self._refresh, name="arcmemo runs list", daemon=True).start()
        return current

    def listing(self) -> Listing:
        """Every run under the folder, newest first (module docstring)."""
        current = self.fresh()
        if current is not None:
            return current
        with self._listing_lock:
            root, current = self._root(), self._listing
            if current is not None and current.root == root:
                return current                  # made by another thread meanwhile
            return self._make(root)

    def _refresh(self) -> None:
        try:
            with self._listing_lock:
                self._make(self._root())
        except Exception:
            self._listing = None        # the next request makes the list itself, and says what fails
        finally:
            self._refreshing.release()

    def _make(self, root: tuple) -> Listing:
        now = time.time()
        runs = [self._listed_now(rundir, now) for rundir in reversed(run_dirs(self.root))]
        self._listing = Listing(runs, time.monotonic(), root, self.draw(runs))
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
            return Listed(rundir.run_id, record.recorded, record.brief(), record.progress(),
                          uses=task_uses(record.log.done.values()),
                          last_time=record.log.last_time, lost=record.lost_count())
        except RunDirError as exc:         # this run cannot be read: the list says so, the others are shown
            return Listed(rundir.run_id, error=str(exc))


__all__ = ["KEEP_BYTES", "KEEP_RUNS", "LISTING_S", "Listed", "Listing", "RunShelf", "SharedPages", "signature"]
