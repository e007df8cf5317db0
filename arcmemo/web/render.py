"""What the report and the pages show, gathered once for both, and the Jinja2 templates.

Templates autoescape everything; the only markup passed through as it is are the SVG
pictures and charts this package draws itself (drawsvg and matplotlib escape the text they
hold). Concept names, reasoning, programs and errors are model-written and always escaped.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache, cached_property
from typing import Any

import jinja2
from markupsafe import Markup

from arcmemo.core.table import counted, yes_no
from arcmemo.memory.store import Memory
from arcmemo.pictures import attempt_rows, fitted_svg, task_rows
from arcmemo.run.records.answered import attempt_sources, task_answers
from arcmemo.run.records.reader import RunRecord, RunTask
from arcmemo.run.records.report import COMPARE_HEADER, ORACLE1_NOTE, alone_texts, compare_rows, fmt, footnote
from arcmemo.scoring.runscore import FOOTNOTE
from arcmemo.web.charts import run_charts
from arcmemo.web.highlight import code_css, python_html

SECRET_WORDS = ("key", "secret", "password", "passwd", "authorization", "credential")
PICTURE_WIDTH = 1100   # px: a page's content column (base.html's main, less a task section's padding)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("arcmemo.web", "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = lambda value: "unknown" if value is None else fmt(value)
    env.filters["cell"] = fmt           # as the command line's tables show a value ("-": none)
    env.filters["yes_no"] = yes_no
    env.filters["counted"] = counted      # "1 task", "2 tasks"
    env.filters["python"] = python_html
    env.filters["answered"] = task_answers        # a task's answers in words, the one wording (records/answered.py)
    env.globals["code_css"] = code_css()
    env.globals["test_informed_footnote"] = FOOTNOTE
    env.globals["oracle1_note"] = ORACLE1_NOTE
    return env


def picture(rows) -> Markup:
    """Rows of panels as inline SVG as wide as a page's content, cells as large as fit (drawn here,
    so safe to pass through unescaped)."""
    return Markup(fitted_svg(rows, PICTURE_WIDTH))


def puzzle_picture(task, answers=None) -> Markup:
    """A puzzle: each pair's input above its output, the test inputs (and answers) last."""
    return Markup(fitted_svg(task_rows(task, answers), PICTURE_WIDTH, columns=True, together=2))


def concept_name(concept_id: int, name: str) -> Markup:
    """A concept's name where it cannot be a link (the report file)."""
    return Markup('<span class="concept" title="concept {}">{}</span>').format(concept_id, name)


def concept_link(concept_id: int, name: str) -> Markup:
    """A concept's name linking to its page (the web app)."""
    return Markup('<a class="concept" href="/concepts/{}">{}</a>').format(concept_id, name)


def redacted(config: Any) -> Any:
    """The run config with every value under a key that names a secret replaced by ***."""
    if isinstance(config, dict):
        return {k: "***" if any(w in str(k).lower() for w in SECRET_WORDS) else redacted(v)
                for k, v in config.items()}
    if isinstance(config, list):
        return [redacted(v) for v in config]
    return config


class MemoryFacts:
    """What pages show from a memory (through Memory's methods): concept names, what a run wrote,
    how big the memory was at a revision. Without a memory, names are ids and the rest is empty."""

    def __init__(self, memory: Memory | None):
        self.memory = memory

    @cached_property
    def _history(self) -> list:
        return self.memory.history() if self.memory is not None else []

    @cached_property
    def names(self) -> dict[int, str]:
        """Concept id -> its latest name, deleted concepts included."""
        names = {r.concept_id: r.name for r in self._history if r.concept_id is not None}
        return names

    def name(self, concept_id: int) -> str:
        return self.names.get(concept_id, f"#{concept_id}")

    @cached_property
    def _written(self) -> dict[tuple[str, str], list]:
        found = defaultdict(list)
        for rev in self._history:
            if rev.run_id and rev.task_id:
                found[(rev.run_id, rev.task_id)].append(rev)
        return found

    def written(self, run_id: str, task_id: str) -> list:
        """The revisions a run made while writing memory from one task (custom types included)."""
        return self._written.get((run_id, task_id), [])

    def size_at(self, revision: int | None, fmt: str) -> int | None:
        if self.memory is None or revision is None:
            return None
        return len(self.memory.list(fmt, as_of=revision))


def task_section(view: RunRecord, record: RunTask, facts: MemoryFacts) -> dict[str, Any]:
    """One task of a run: the puzzle (as the run kept it), what memory offered and why, each
    pass's program and predictions against the truth, and the memory written from it."""
    puzzles = view.puzzles()
    task = puzzles.tasks.get(record.task_id)
    truth = puzzles.answers[record.task_id].test_outputs if record.task_id in puzzles.answers else None
    passes = [{"outcome": o, "answered": task_answers(o),
               "attempts": picture(attempt_rows(task.test_inputs, o.predictions, truth, attempt_sources(o)))
               if task else None,
               "offered": [(cid, facts.name(cid)) for cid in o.selected]}
              for o in record.passes]
    return {
        "id": record.task_id, "outcome": record.outcome, "answered": task_answers(record.outcome), "passes": passes,
        "scores": view.task_scores(record.outcome),
        "puzzle": puzzle_picture(task) if task else None,
        "puzzle_missing": puzzles.missing or f"the run's puzzles do not hold {record.task_id}",
        "selections": [dict(s, names=[facts.name(c) for c in s.get("concept_ids", [])]) for s in record.selections],
        "writes": record.writes, "written": facts.written(view.run_id, record.task_id),
    }


def overview_charts(views: list[RunRecord], facts: MemoryFacts) -> tuple[list, str | None]:
    """The charts of these runs (and a note when they cannot be drawn)."""
    start_sizes = {v.run_id: facts.size_at(v.recorded.get("memory_revision_start"),
                                           v.settings.get("memory_format", "ps"))
                   for v in views if v.settings.get("continual")}
    return run_charts(views, names=facts.names, start_sizes=start_sizes)


def runs_overview(views: list[RunRecord], facts: MemoryFacts, charts: tuple[list, str | None] | None = None
                  ) -> dict[str, Any]:
    """Summary tables and charts of one or more runs (`charts`: already drawn ones). Each run is
    shown by what its kind holds (arcmemo.run.records.reader); solve runs are also compared."""
    finished = [v for v in views if v.written_summary is not None and v.kind == "solve"]
    charts, chart_note = charts if charts is not None else overview_charts(views, facts)
    entries = [(v.recorded, v.summary) for v in finished]
    scores = [s for v in views if (s := v.score) is not None]
    return {
        "runs": [{"view": v, "config": redacted(v.recorded), "progress": v.progress(), "kind": v.kind,
                  "summary": v.rows() if v.written_summary is not None or v.kind != "solve" else None}
                 for v in views],
        "compare_header": COMPARE_HEADER, "compare": compare_rows(entries) if len(entries) > 1 else [],
        "solved_alone": alone_texts(entries) if len(entries) > 1 else [],
        "charts": charts, "chart_note": chart_note, "footnote": footnote(scores),
    }
