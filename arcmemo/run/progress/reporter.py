"""What a run says while it works: the run id first, model start-up, then a line per item.

The run layer is the only place that prints progress; the steps (selection, solver,
abstraction) report what they are doing through the `step` callback they are handed.
Three reporters share one interface:

- `Reporter`: says nothing (tests, library use);
- `LiveReporter` (live.py): on a terminal, a live bottom line (rich): pass, a bar, the
  item, its step (selecting / attempt i of n, retry j / scoring / writing memory), the
  item's elapsed time and the running totals (score, tokens, cost); finished items and
  notes print above it; byte progress (the embedded model's one-time assembly) as its
  own bar;
- `PlainReporter`: the same as plain lines, for logs and pipes (no cursor movement).

Several items may be in flight at once (a run's tasks, `--tasks-in-flight`): each says
which item a step is about, and a sequential caller (seeding) may leave it out.
Everything goes to stderr, so stdout keeps only a command's result (summary, --json).
Calls may come from any thread (a solver's model calls run on the client's event loop).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any


def clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else \
        f"{seconds // 60}:{seconds % 60:02d}"


class Reporter:
    """The silent reporter, and the interface the others implement."""

    shows_totals = False    # whether `totals` shows anything: a runner sums them only for one that does

    def started(self, run_id: str, path: Any, *, kind: str, resumed: bool = False) -> None:
        """The run exists: its id and directory (printed first, so Ctrl-C can be followed by a resume)."""

    def note(self, text: str) -> None:
        """A line of its own: a problem, a remark, model start-up."""

    def bytes(self, label: str, done: int, total: int) -> None:
        """Progress of a long byte copy (done == total ends it)."""

    def begin(self, total: int, label: str) -> None:
        """A sequence of `total` items starts (tasks of a pass, seed files)."""

    def item(self, name: str) -> None:
        """Work on an item starts (several may be in flight at once: a run's tasks)."""

    def step(self, text: str, item: str | None = None) -> None:
        """What is being done for `item` now (None: the item started last)."""

    def item_done(self, line: str | None, item: str | None = None, elapsed: float | None = None) -> None:
        """`item` (None: the item started last) is finished; `line` says how (None: it was done
        before, no line); `elapsed` is its time at work when it finished earlier than now."""

    def totals(self, text: str) -> None:
        """The running totals shown beside the items (score, tokens, cost)."""

    def close(self) -> None:
        """Stop any live display."""


class PlainReporter(Reporter):
    """Plain lines on stderr; each line about an item names it and its place in the sequence."""

    shows_totals = True

    def __init__(self, stream=None):
        self.stream = stream
        self.lock = threading.Lock()
        self.total, self.count, self.label = 0, 0, ""
        self.items: dict[str, tuple[int, float]] = {}     # in flight: name -> (its number, start time)
        self.summary = ""
        self.shown: dict[str, int] = {}

    def _print(self, text: str) -> None:
        with self.lock:
            print(text, file=self.stream or sys.stderr, flush=True)

    def _where(self, name: str | None, number: int | None = None) -> str:
        label = f"{self.label} " if self.label else ""
        return f"[{label}{number or self.count}/{self.total}]" + (f" {name}" if name else "")

    def _current(self, item: str | None) -> str | None:
        return item if item is not None else next(reversed(self.items), None)

    def started(self, run_id, path, *, kind, resumed=False):
        self._print(f"{'resuming' if resumed else 'started'} {kind} run {run_id} in {path}")

    def note(self, text):
        self._print(text)

    def bytes(self, label, done, total):
        tenth = 10 * done // max(total, 1)
        if self.shown.get(label) != tenth:
            self.shown[label] = tenth
            self._print(f"{label}: {done / 2**20:,.0f} of {total / 2**20:,.0f} MiB")

    def begin(self, total, label):
        self.total, self.count, self.label = total, 0, label
        self.items.clear()

    def item(self, name):
        with self.lock:
            self.count += 1
            self.items[name] = (self.count, time.monotonic())

    def step(self, text, item=None):
        name = self._current(item)
        number, _ = self.items.get(name, (None, 0.0))
        self._print(f"{self._where(name, number)}: {text}")

    def item_done(self, line, item=None, elapsed=None):
        name = self._current(item)
        with self.lock:
            started = self.items.pop(name, None) if name is not None else None
            if started is None:                      # done before: it only counts
                self.count += 1
                return
        number, since = started
        if line:
            took = clock(time.monotonic() - since if elapsed is None else elapsed)
            self._print(f"{self._where(name, number)} {line} ({took})" + (f" | {self.summary}" if self.summary else ""))

    def totals(self, text):
        self.summary = text


class TaskProgress(Reporter):
    """What one task of several in flight reports through: its steps are its own item's; notes
    and everything else go to the run's reporter as they are."""

    def __init__(self, reporter: Reporter, task_id: str):
        self.reporter, self.task_id = reporter, task_id

    def step(self, text, item=None):
        self.reporter.step(text, item=item or self.task_id)

    def note(self, text):
        self.reporter.note(text)


def make_reporter(*, quiet: bool = False) -> Reporter:
    """A live display on a terminal, plain lines otherwise, nothing but notes with `quiet`."""
    if quiet:
        return QuietReporter()
    if sys.stderr.isatty():
        from arcmemo.run.progress.live import LiveReporter

        return LiveReporter()
    return PlainReporter()


class QuietReporter(Reporter):
    """--quiet: only notes (problems) are printed."""

    def note(self, text):
        print(text, file=sys.stderr, flush=True)


__all__ = ["Reporter", "PlainReporter", "QuietReporter", "TaskProgress", "make_reporter", "clock"]
