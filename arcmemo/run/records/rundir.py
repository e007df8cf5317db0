"""The run directory: where everything a run records about itself lives (not in the memory).

Layout of `runs/<run_id>/`, the same for every kind of run (solve, seed, select):
    config.json        what the run was asked to do: kind, settings, models, templates, memory revision
    status.json        running | finished | stopped | failed | interrupted, with the pid and the error
    run.lock           held (flock) by the process running it, so a killed run is told from a live one
    events.jsonl       one JSON object per line, appended and fsynced as things finish
    selections.jsonl   what memory selection offered each task, and why
    submissions/       `<task_id>.json` in the ARC Prize benchmarking shape (solve runs)
    summary.json       written at the end (and rewritten by `--resume`)
    tasks.json         the puzzles a solve ran, with the test outputs it was scored against (puzzles.py)

The event log is the source of truth for `--resume`: a line is either whole or (after a
kill mid-write) a torn last line, which is ignored.

Every file is read as arcmemo wrote it, a regular file (core/files.py): a FIFO, device, socket
or symbolic link in its place is refused with a RunDirError naming it, and so is a file over
its limit: the JSON files RUN_JSON_MAX, a line of the event or selection log LINE_MAX and the
whole log LOG_MAX (read a line at a time, so a long log costs no more memory than its lines).

A memory file is only written by runs that write memory (seeding, `solve --continual`); a
read-only solve leaves it untouched.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arcmemo.core.errors import ArcmemoError
from arcmemo.core.files import (
    FileRefused,
    JSONFileError,
    MiB,
    ReadTimedOut,
    atomic_write,
    json_lines,
    open_regular,
    read_json,
)

if TYPE_CHECKING:
    from arcmemo.run.records.taskrecords import TaskRecords

try:
    import fcntl
except ImportError:  # not POSIX: a killed run then shows as interrupted only once its status says so
    fcntl = None

DEFAULT_RUNS_DIR = "runs"
RUNNING, FINISHED, STOPPED, FAILED, INTERRUPTED = "running", "finished", "stopped", "failed", "interrupted"
RUN_JSON_MAX = 64 * MiB     # config.json, status.json, summary.json
LINE_MAX = 16 * MiB         # one line of events.jsonl or selections.jsonl (a task event is some KiB, rarely 1 MiB)
LOG_MAX = 2048 * MiB        # the whole of events.jsonl or selections.jsonl


class RunDirError(ArcmemoError):
    """A run directory is missing, unreadable, or in use by another process."""


def new_run_id() -> str:
    """Every kind of run gets the same kind of id: its start time, then 6 random hex digits."""
    # imported here, as the other modules only writing a run needs: reading runs (`runs list`) starts faster
    import secrets

    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class RunDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = None

    @classmethod
    def create(cls, root: str | Path, run_id: str | None = None) -> RunDir:
        path = Path(root) / (run_id or new_run_id())
        try:
            path.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            raise RunDirError(f"run directory {path} already exists") from None
        except OSError as exc:
            raise RunDirError(f"cannot make a run directory under {root}: {exc.strerror}") from None
        (path / "submissions").mkdir()
        return cls(path)

    @classmethod
    def find(cls, ref: str | Path, root: str | Path = DEFAULT_RUNS_DIR) -> RunDir:
        """A run by path or by id under `root`."""
        for candidate in (Path(ref), Path(root) / str(ref)):
            config = candidate / "config.json"
            if config.is_file() and not config.is_symlink():
                return cls(candidate)
            if os.path.lexists(config):
                read_object(config)          # refused, naming what it is (a FIFO, a symbolic link...)
        raise RunDirError(f"no run {str(ref)!r} (looked for {ref}/config.json and {Path(root) / str(ref)}/config.json)")

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def submissions(self) -> Path:
        return self.path / "submissions"

    # config ------------------------------------------------------------------
    def write_config(self, config: dict[str, Any]) -> None:
        _atomic_write(self.path / "config.json", json.dumps(config, indent=2, sort_keys=True))

    def config(self) -> dict[str, Any]:
        return read_object(self.path / "config.json")

    @property
    def kind(self) -> str:
        return self.config().get("kind", "solve")

    # events and selections ----------------------------------------------------
    def append(self, event: dict[str, Any]) -> None:
        """Append one event durably: a kill after this returns never loses it."""
        _append_line(self.path / "events.jsonl", {"time": round(time.time(), 3), **event})

    def events(self) -> Iterator[dict[str, Any]]:
        """The event log's records, streamed (RunDirError: not a regular file, or over its limits)."""
        return _read_lines(self.path / "events.jsonl")

    def append_selection(self, record: dict[str, Any]) -> None:
        _append_line(self.path / "selections.jsonl", {"time": round(time.time(), 3), **record})

    def add_submission(self, name: str, text: str) -> None:
        """A submission file (scoring.submission_file), written whole or not at all."""
        _atomic_write(self.submissions / name, text, newline=False)

    def commit(self, records: TaskRecords) -> None:
        """Write what one task recorded on its own (taskrecords.py): its selection records (by
        thread: a task's threads run at once and record as they finish), then its submission
        files, then its events (the event log is what `--resume` trusts, so it is written last)."""
        for record in sorted(records.selections, key=lambda r: r.get("thread") or 0):
            _append_line(self.path / "selections.jsonl", record)
        for name, text in records.files.items():
            self.add_submission(name, text)
        for event in records.events:
            _append_line(self.path / "events.jsonl", event)

    def selections(self) -> list[dict[str, Any]]:
        """The selection records, the latest per (pass, task, thread, retry) (a task re-solved
        after a kill was selected for again), in the order they were first made."""
        latest: dict[tuple, dict] = {}
        for record in _read_lines(self.path / "selections.jsonl"):
            key = (record.get("pass_index"), record.get("task_id"), record.get("thread", 0), record.get("retry", 0))
            latest[key] = record
        return list(latest.values())

    # summary -----------------------------------------------------------------
    def write_summary(self, summary: dict[str, Any]) -> None:
        _atomic_write(self.path / "summary.json", json.dumps(summary, indent=2, sort_keys=True))

    def summary(self) -> dict[str, Any] | None:
        path = self.path / "summary.json"
        return read_object(path) if path.exists() else None

    # status ------------------------------------------------------------------
    def set_status(self, status: str, **fields: Any) -> None:
        record = {"status": status, "pid": os.getpid(), "updated_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                  **fields}
        _atomic_write(self.path / "status.json", json.dumps(record, indent=2, sort_keys=True))

    def status(self) -> dict[str, Any]:
        """The run's state as it is now: a run whose status says running but whose lock nobody
        holds was killed, so it is `interrupted`. Runs from before status records: finished if
        they have a summary, else interrupted."""
        path = self.path / "status.json"
        if not path.exists():
            return {"status": FINISHED if (self.path / "summary.json").exists() else INTERRUPTED}
        record = read_object(path)
        if record.get("status") == RUNNING and not self._locked_by_another():
            record = {**record, "status": INTERRUPTED, "killed": True}
        return record

    @contextlib.contextmanager
    def hold(self) -> Iterator[RunDir]:
        """Run it: the lock taken (RunDirError if another process holds it), status running; on
        leaving, status finished, interrupted (Ctrl-C) or failed (with the error)."""
        self._acquire()
        self.set_status(RUNNING)
        try:
            yield self
        except KeyboardInterrupt:
            self.set_status(INTERRUPTED)
            raise
        except BaseException as exc:
            self.set_status(FAILED, error=f"{type(exc).__name__}: {exc}"[:2000])
            raise
        else:
            stopped = (self.summary() or {}).get("stopped")
            self.set_status(STOPPED if stopped else FINISHED, **({"reason": stopped} if stopped else {}))
        finally:
            self._release()

    def _acquire(self) -> None:
        if fcntl is None:
            return
        handle = open(self.path / "run.lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            pid = (self.status().get("pid") if (self.path / "status.json").exists() else None) or "?"
            raise RunDirError(f"run {self.run_id} is running in another process (pid {pid})") from None
        self._lock = handle

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()          # closing drops the flock
            self._lock = None

    def _locked_by_another(self) -> bool:
        if fcntl is None or self._lock is not None:
            return self._lock is not None
        try:       # opened as it is (nothing created: a reader changes nothing), a regular file only
            handle = open_regular(self.path / "run.lock", max_bytes=None, follow_symlinks=False)
        except OSError:
            return False            # no lock file (nobody took it), or not one a run made
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return True
        return False

    def delete(self) -> None:
        """Remove the whole directory; RunDirError while a process is running it."""
        if self._locked_by_another():
            raise RunDirError(f"run {self.run_id} is running (pid {self.status().get('pid', '?')}); "
                              "stop it before deleting it")
        import shutil

        shutil.rmtree(self.path)


def list_runs(root: str | Path = DEFAULT_RUNS_DIR) -> list[RunDir]:
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted((RunDir(p) for p in root.iterdir() if (p / "config.json").is_file()), key=lambda r: r.run_id)


def _append_line(path: Path, record: dict[str, Any]) -> None:
    from arcmemo.core.text import utf8_safe

    line = utf8_safe(json.dumps(record, separators=(",", ":"), ensure_ascii=False, default=str)) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def _read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a JSON-lines file of the run (a torn final line from a kill mid-append is
    passed over); RunDirError when it cannot be read."""
    try:
        yield from json_lines(path, max_line=LINE_MAX, max_total=LOG_MAX)
    except ReadTimedOut:
        raise                       # a page's deadline (a TimeoutError, so an OSError): not the run's fault
    except OSError as exc:          # FileRefused too: not a regular file, or over a limit
        raise RunDirError(str(exc) if isinstance(exc, FileRefused) else f"{path}: cannot read ({exc})") from None


def _atomic_write(path: Path, text: str, *, newline: bool = True) -> None:
    atomic_write(path, text + "\n" if newline else text)


def read_object(path: Path) -> dict[str, Any]:
    """A JSON object file of a run (RUN_JSON_MAX, regular file only); RunDirError naming what is wrong."""
    try:
        data = read_json(path, RUN_JSON_MAX, follow_symlinks=False)
    except JSONFileError as exc:
        raise RunDirError(str(exc)) from None
    if not isinstance(data, dict):
        raise RunDirError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data
