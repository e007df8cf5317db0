"""`arcmemo runs report`: one self-contained HTML file for one or more runs.

Inline CSS and inline SVG only: no script, no font, no image is fetched, so the file opens
offline and can be mailed or archived as it is. It holds the summary tables, the charts,
and every task of every run (the puzzle, what memory offered and why, each program and its
predictions against the truth, the memory written from it). The truth appears only here,
for the reader; nothing in a report is ever sent to a model.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from arcmemo import __version__
from arcmemo.core.errors import unwritable
from arcmemo.web.render import MemoryFacts, concept_name, environment, runs_overview, task_section
from arcmemo.web.rundata import RunView


def build_report(views: list[RunView], facts: MemoryFacts, overview: dict | None = None) -> str:
    """The report's HTML (`overview`: the runs' tables and charts when already made)."""
    if not views:
        raise ValueError("a report needs at least one run")
    sections = [(view, [task_section(view, record, facts) for record in view.tasks()]) for view in views]
    return environment().get_template("report.html").render(
        overview=overview or runs_overview(views, facts), sections=sections, version=__version__,
        generated=time.strftime("%Y-%m-%d %H:%M"), app=False, concept_link=concept_name)


def write_report(path: str | Path, html: str) -> Path:
    """Write atomically, so a failed report never leaves half a file where a good one was (an
    error names the report, not the temporary file: core/errors.py unwritable)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(html, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise unwritable(path, exc) from None
    return path
