"""`arcmemo runs report`: one self-contained HTML file for one or more runs.

Inline CSS and inline SVG only: no script, no font, no image is fetched, so the file opens
offline and can be mailed or archived as it is. It holds the summary tables, the charts,
and every task of every run (the puzzle, what memory offered and why, each program and its
predictions against the truth, the memory written from it). The truth appears only here,
for the reader; nothing in a report is ever sent to a model.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from arcmemo import __version__
from arcmemo.core.files import atomic_write
from arcmemo.run.records.reader import RunRecord
from arcmemo.web.render import MemoryFacts, concept_name, environment, runs_overview, task_section


def build_report(views: list[RunRecord], facts: MemoryFacts, overview: dict | None = None, *,
                 memory: Any = None) -> str:
    """The report's HTML (`overview`: the runs' tables and charts when already made; `memory`:
    the memory the runs read, for selection records kept there by older runs)."""
    if not views:
        raise ValueError("a report needs at least one run")
    sections = [(view, [task_section(view, record, facts) for record in view.tasks(memory)]) for view in views]
    return environment().get_template("report.html").render(
        overview=overview or runs_overview(views, facts), sections=sections, version=__version__,
        generated=time.strftime("%Y-%m-%d %H:%M"), app=False, concept_link=concept_name)


def write_report(path: str | Path, html: str) -> Path:
    """Write atomically, so a failed report never leaves half a file where a good one was."""
    atomic_write(path, html)
    return Path(path)
