"""The live terminal display of a run (rich): see progress.py for what it shows."""

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

from arcmemo.run.progress import Reporter, clock


class ItemClock(ProgressColumn):
    """How long the current item has been worked on (ticks with the display)."""

    def render(self, task) -> Text:
        since = task.fields.get("since")
        return Text(clock(time.monotonic() - since) if since else "", style="progress.elapsed")


class LiveReporter(Reporter):
    """A live bottom line on a terminal, finished items and notes printed above it."""

    def __init__(self, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self.lock = threading.RLock()
        self.progress: Progress | None = None
        self.task: Any = None
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
                    SpinnerColumn(), TextColumn("{task.description}"), BarColumn(bar_width=16), MofNCompleteColumn(),
                    TextColumn("{task.fields[item]}", style="bold"), TextColumn("{task.fields[step]}", style="cyan"),
                    ItemClock(), TextColumn("{task.fields[totals]}"), console=self.console)
                self.progress.start()
            if self.task is not None:
                self.progress.remove_task(self.task)
            self.task = self.progress.add_task(label, total=total, item="", step="", since=None, totals="")

    def _update(self, **fields) -> None:
        with self.lock:
            if self.progress is not None and self.task is not None:
                self.progress.update(self.task, refresh=True, **fields)

    def item(self, name):
        self._update(item=name, step="", since=time.monotonic())

    def step(self, text):
        self._update(step=text)

    def item_done(self, line):
        with self.lock:
            if self.progress is None or self.task is None:
                return
            fields = self.progress.tasks[-1].fields
            if line:
                since = fields.get("since")
                took = f" ({clock(time.monotonic() - since)})" if since else ""
                self.progress.console.print(f"{escape(str(fields.get('item', '')))} {escape(line)}{took}",
                                            highlight=False)
            self.progress.update(self.task, advance=1, item="", step="", since=None)

    def totals(self, text):
        self._update(totals=text)

    def close(self):
        with self.lock:
            for bar, _ in self.byte_bars.values():
                bar.stop()
            self.byte_bars.clear()
            if self.progress is not None:
                if self.task is not None:          # the last line keeps the bar and totals, not a stale step
                    self.progress.update(self.task, item="", step="", since=None, refresh=True)
                self.progress.stop()
                self.progress = None
                self.task = None
