"""The run directory: resolved config, an append-only event log, submissions, summary.

Layout of `runs/<run_id>/`:
    config.json        everything needed to re-run or compare (models, templates, memory revision)
    events.jsonl       one JSON object per line, appended and fsynced as things finish
    submissions/       `<task_id>.json` in the ARC Prize benchmarking shape
    summary.json       written at the end (and rewritten by `--resume`)

The event log is the source of truth for `--resume`: a line is either whole or (after
a kill mid-write) a torn last line, which is ignored.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DEFAULT_RUNS_DIR = "runs"


class RunDirError(ValueError):
    """A run directory is missing or unreadable."""


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class RunDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    @classmethod
    def create(cls, root: str | Path, run_id: str) -> RunDir:
        path = Path(root) / run_id
        path.mkdir(parents=True, exist_ok=False)
        (path / "submissions").mkdir()
        return cls(path)

    @classmethod
    def find(cls, ref: str | Path, root: str | Path = DEFAULT_RUNS_DIR) -> RunDir:
        """A run by path or by id under `root`."""
        for candidate in (Path(ref), Path(root) / str(ref)):
            if (candidate / "config.json").is_file():
                return cls(candidate)
        raise RunDirError(f"no run {ref!r} (looked for {ref}/config.json and {Path(root) / str(ref)}/config.json)")

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
        return _read_json(self.path / "config.json")

    # events ------------------------------------------------------------------
    def append(self, event: dict[str, Any]) -> None:
        """Append one event durably: a kill after this returns never loses it."""
        line = json.dumps({"time": round(time.time(), 3), **event}, separators=(",", ":")) + "\n"
        with open(self.path / "events.jsonl", "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def events(self) -> Iterator[dict[str, Any]]:
        path = self.path / "events.jsonl"
        if not path.exists():
            return
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue  # a torn final line from a kill mid-append

    # summary -----------------------------------------------------------------
    def write_summary(self, summary: dict[str, Any]) -> None:
        _atomic_write(self.path / "summary.json", json.dumps(summary, indent=2, sort_keys=True))

    def summary(self) -> dict[str, Any] | None:
        path = self.path / "summary.json"
        return _read_json(path) if path.exists() else None


def list_runs(root: str | Path = DEFAULT_RUNS_DIR) -> list[RunDir]:
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted((RunDir(p) for p in root.iterdir() if (p / "config.json").is_file()), key=lambda r: r.run_id)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RunDirError(f"{path}: cannot read ({exc})") from None
