"""The live terminal display of a run (rich): see reporter.py for what it shows."""

from __future__ import annotations

import threading
import time
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
    TransferSpeedColumn,
)
from rich.text import Text

from arcmemo.run.progress.reporter import Reporter, clock


class ItemClock(ProgressColumn):
    """How long an item has been worked on (ticks with the display)."""

    def render(self, task) -> Text:
        since = task.fields.get("since")
        return Text(clock(time.monotonic() - since) if since else "", style="progress.elapsed")


class MainRowOnly(ProgressColumn):
    """A column shown on the sequence's row (the bar, the count), blank on an item's row."""

    def __init__(self, column: ProgressColumn):
        super().__init__()
        self.column = column

    def render(self, task) -> Any:
        return Text("") if task.fields.get("row") == "item" else self.column.render(task)


class LiveReporter(Reporter):
    """A live display on a terminal: the sequence's row (label, bar, count, running totals) and
    below it a row per item in flight (its name, its step, its time); finished items and notes
    print above."""

    shows_totals = True

    def __init__(self, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self.lock = threading.RLock()
        self.progress: Progress | None = None
        self.task: Any = None
        self.rows: dict[str, tuple[Any, float]] = {}     # item in flight -> (its row, its start)
        self.byte_bars: dict[str, tuple[Progress, Any]] = {}

    def started(self, run_id, path, *, kind, resumed=False):
        self.console.print(f"{'resuming' if resumed else 'started'} {kind} run [bold]{escape(run_id)}[/] "
                           f"in {escape(str(path))}", highlight=False)

    def note(self, text):
        with self.lock:
            (self.progress.console if self.progress else self.console).print(escape(text), highlight=False)

    def bytes(self, label, done, total):
        with self.lock:
            entry = self.byte_bars.get(label)
            if entry is None:
                bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                               console=self.console, transient=True)
                bar.start()
                entry = self.byte_bars[label] = (bar, bar.add_task(label, total=total))
            bar, task = entry
            bar.update(task, completed=done)
            if done >= total:
                bar.stop()
                del self.byte_bars[label]

    def begin(self, total, label):
        with self.lock:
            if self.progress is None:
                self.progress = Progress(
                    SpinnerColumn(), TextColumn("{task.description}", style="bold"),
                    MainRowOnly(BarColumn(bar_width=16)), MainRowOnly(MofNCompleteColumn()),
                    TextColumn("{task.fields[step]}", style="cyan"), ItemClock(), TextColumn("{task.fields[totals]}"),
                    console=self.console)
                self.progress.start()
            for row in [self.task, *(row for row, _ in self.rows.values())]:
                if row is not None:
                    self.progress.remove_task(row)
            self.rows.clear()
            self.task = self.progress.add_task(label, total=total, step="", since=None, totals="", row="main")

    def _name(self, item: str | None) -> str | None:
        return item if item is not None else next(reversed(self.rows), None)

    def item(self, name):
        with self.lock:
            if self.progress is not None:
                if name in self.rows:
                    self.progress.remove_task(self.rows.pop(name)[0])
                since = time.monotonic()
                self.rows[name] = (self.progress.add_task(name, total=None, step="", since=since, totals="",
                                                          row="item"), since)

    def step(self, text, item=None):
        with self.lock:
            entry = self.rows.get(self._name(item))
            if self.progress is not None and entry is not None:
                self.progress.update(entry[0], step=text, refresh=True)

    def item_done(self, line, item=None, elapsed=None):
        with self.lock:
            if self.progress is None or self.task is None:
                return
            name = self._name(item)
            entry = self.rows.pop(name, None) if name is not None else None
            if entry is not None:
                row, since = entry
                if line:
                    took = clock(time.monotonic() - since if elapsed is None else elapsed)
                    self.progress.console.print(f"{escape(str(name))} {escape(line)} ({took})", highlight=False)
                self.progress.remove_task(row)
            self.progress.update(self.task, advance=1, refresh=True)

    def totals(self, text):
        with self.lock:
            if self.progress is not None and self.task is not None:
                self.progress.update(self.task, totals=text, refresh=True)

    def close(self):
        with self.lock:
            for bar, _ in self.byte_bars.values():
                bar.stop()
            self.byte_bars.clear()
            if self.progress is not None:
                for row, _ in self.rows.values():          # the last line keeps the bar and totals, no stale step
                    self.progress.remove_task(row)
                self.rows.clear()
                self.progress.refresh()
                self.progress.stop()
                self.progress = None
                self.task = None
