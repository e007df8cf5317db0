"""`arcmemo serve`: a local web app over runs, tasks and memory (Starlette + Jinja2, on uvicorn).

Pages: runs (list, one run with live progress while it runs, compare, the report file),
one task of a run, tasks of a dataset and one puzzle, memory (search and filters, one
concept with its history as diffs, graph neighbours, where it came from and which runs
offered it, and an edit form).

A request names things, it never gives a path: a run is looked up among the directories
directly under the runs folder, a dataset among the bundled splits and the folders named with
`serve --tasks-from`, a concept by its id (lookup.py). Whatever is not found answers 404.

Every run is read through the one reader of run directories (run/records/reader.py), kept
while its files are unchanged (runcache.py); a run that cannot be read (a FIFO or an oversized
file in it) shows its error, the other runs are shown as usual. Every page is made within a time
limit in a thread of its own (limits.py), so no run can hold the server.

An edit goes through `Memory.edit` with the same actor as `arcmemo concepts edit` and the
reason typed in the form, so it is one revision like any other; a bad edit changes nothing
and shows the error in the form. Pages never show an API key (secret-looking settings are
masked) nor anything of the call log. Everything model-written is escaped by the templates;
a Content-Security-Policy allows scripts only from this server (one small file for live
progress), and every form post carries a per-server token against cross-site requests.
"""

from __future__ import annotations

import difflib
import re
import secrets
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from arcmemo.memory.io.imports import read_edit
from arcmemo.memory.schema.concept import FORMATS, KINDS, SOURCES
from arcmemo.memory.store import Memory
from arcmemo.memory.views.library import library
from arcmemo.pictures import thumbnail_png
from arcmemo.pictures.png import data_url
from arcmemo.run.config import memory_url_for_record
from arcmemo.run.records.concept_use import RunUse, concept_use, offered_by
from arcmemo.run.records.reader import RunRecord
from arcmemo.run.records.rundir import RunDirError
from arcmemo.web.concept_page import concept_yaml, helper_view, shown_fields
from arcmemo.web.limits import HEAVY_THREADS, LIGHT_THREADS, Pool, time_limited
from arcmemo.web.lookup import TaskSources, find_run, shown
from arcmemo.web.render import (
    MemoryFacts,
    concept_link,
    environment,
    overview_charts,
    puzzle_picture,
    runs_overview,
    task_section,
)
from arcmemo.web.report import build_report
from arcmemo.web.runcache import RunShelf, SharedPages, signature

EDIT_REASON = "edited from the web page"
CHART_CACHE = 32
PAGE_SIZE = 60
THUMBNAIL = (160, 64)   # px (width, height) of a task's first example in the tasks list
MAX_ID = 2**63 - 1   # the largest id a database row can have: a bigger one names no concept
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; "
                               "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class Site:
    """The app's state and pages (one instance per server)."""

    def __init__(self, memory: Memory, runs_root: str | Path, *, actor: str, sources: TaskSources,
                 dataset: str = "training"):
        self.memory, self.runs_root, self.actor = memory, Path(runs_root), actor
        self.sources, self.dataset = sources, dataset
        self.token = secrets.token_urlsafe(24)
        self.memory_url = memory_url_for_record(str(memory.url))
        self.shelf = RunShelf(self.runs_root, draw=lambda runs: self.render("runs.html", runs=runs,
                                                                            runs_root=str(self.runs_root)))
        self.pages = SharedPages()
        self._charts: dict[tuple, tuple] = {}
        self._drawing: dict[tuple, threading.Lock] = {}    # one lock per chart key: drawn once
        self._charts_lock = threading.Lock()

    # -- plumbing ------------------------------------------------------------------------

    def render(self, template: str, **context: Any) -> str:
        return environment().get_template(template).render(app=True, concept_link=concept_link, **context)

    def page(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(self.render(template, **context), status_code=status, headers=HEADERS)

    def not_found(self, message: str) -> HTMLResponse:
        return self.page("error.html", 404, message=message)

    def unreadable(self, message: str) -> HTMLResponse:
        """A run that cannot be read (a FIFO or an oversized file in it): its page says why."""
        return self.page("error.html", 500, message=message, heading="This run cannot be read")

    def too_slow(self, request: Request) -> HTMLResponse:
        return self.page("error.html", 503, heading="Too slow", message="this page took longer to make than a "
                         "page may take; the runs it reads may be very large (or still being written): try again")

    def facts(self) -> MemoryFacts:
        return MemoryFacts(self.memory)

    def overview(self, views: list[RunRecord]) -> dict[str, Any]:
        """Summary tables and charts; the charts (slow to draw) are kept until a run or the memory
        changes, and drawn once for requests that want them at the same time."""
        key = (tuple((v.run_id, signature(v.rundir.path)) for v in views), self.memory.revision())
        with self._charts_lock:
            drawing = self._drawing.setdefault(key, threading.Lock())
        with drawing:
            charts = self._charts.get(key)
            if charts is None:
                charts = overview_charts(views, self.facts())
                with self._charts_lock:
                    self._charts[key] = charts
                    while len(self._charts) > CHART_CACHE:
                        oldest = next(iter(self._charts))
                        self._charts.pop(oldest)
                        self._drawing.pop(oldest, None)
        return runs_overview(views, self.facts(), charts)

    def _has_run(self, run_id: str | None) -> bool:
        try:
            return run_id is not None and find_run(self.runs_root, run_id) is not None
        except LookupError:
            return False

    def runs_reading(self) -> list[RunUse]:
        """The runs that read this memory (concept ids mean the same there) with their tasks' concept
        use, from the runs list (each run read once while it is unchanged)."""
        return [(run.run_id, run.uses) for run in self.shelf.listing().runs
                if run.error is None and run.recorded.get("memory_url") == self.memory_url]

    def offered(self, concept_id: int) -> list[tuple[str, list[tuple[str, str]]]]:
        """(run id, tasks) of the runs that offered the concept, counted as its "offered" is."""
        return offered_by(self.runs_reading(), concept_id, self.memory.merged_into())

    def with_runs(self, request: Request, names: list[str], make: Callable[..., Response]) -> Response:
        """make(*records) for the runs `names` (404: one is not in the runs folder; a run that
        cannot be read: its error), made once for the requests asking for it at the same time
        (SharedPages: keyed by the request and the runs' files)."""
        try:
            records = [self.shelf.record(name) for name in names]
            key = (str(request.url.path), str(request.url.query), self.memory.revision(),
                   *(signature(r.rundir.path) for r in records))
            return self.pages.get(key, lambda: make(*records))
        except LookupError as exc:
            return self.not_found(str(exc))
        except RunDirError as exc:
            return self.unreadable(str(exc))

    # -- runs --------------------------------------------------------------------------

    def runs(self, request: Request) -> Response:
        return HTMLResponse(self.shelf.listing().page, headers=HEADERS)

    def runs_at_hand(self, request: Request) -> Response | None:
        """The runs list when it is at hand (runcache.RunShelf.fresh: no thread needed), else None."""
        listing = self.shelf.fresh()
        return HTMLResponse(listing.page, headers=HEADERS) if listing is not None else None

    def run(self, request: Request) -> Response:
        return self.with_runs(request, [request.path_params["run_id"]], lambda view: self.page(
            "run.html", view=view, progress=view.progress(), overview=self.overview([view])))

    def progress(self, request: Request) -> Response:
        return self.with_runs(request, [request.path_params["run_id"]], lambda view: self.page(
            "_progress.html", view=view, progress=view.progress()))

    def compare(self, request: Request) -> Response:
        refs = request.query_params.getlist("run")
        if not refs:
            return RedirectResponse("/runs", status_code=303)
        return self.with_runs(request, refs, lambda *views: self.page(
            "compare.html", views=list(views), overview=self.overview(list(views))))

    def run_task(self, request: Request) -> Response:
        def make(view: RunRecord) -> Response:
            record = view.task(request.path_params["task_id"], self.memory)
            return self.page("run_task.html", view=view, t=task_section(view, record, self.facts()),
                             run_id=view.run_id, dataset=self.sources.name_of(view.settings.get("source")))

        return self.with_runs(request, [request.path_params["run_id"]], make)

    def report(self, request: Request) -> Response:
        def make(view: RunRecord) -> Response:
            html = build_report([view], self.facts(), self.overview([view]), memory=self.memory)
            filename = re.sub(r"[^A-Za-z0-9._-]", "_", view.run_id)
            return HTMLResponse(html, headers={**HEADERS,
                                               "Content-Disposition": f'attachment; filename="{filename}.html"'})

        return self.with_runs(request, [request.path_params["run_id"]], make)

    # -- tasks -------------------------------------------------------------------------

    def _dataset(self, request: Request) -> str:
        return request.query_params.get("dataset") or self.dataset

    def tasks(self, request: Request) -> Response:
        dataset = self._dataset(request)
        try:
            taskset = self.sources.get(dataset)
        except LookupError as exc:
            return self.not_found(str(exc))
        query = request.query_params.get("q", "").strip().lower()
        ids = [t.id for t in taskset.tasks if query in t.id.lower()]
        page = max(1, _int(request.query_params.get("page"), 1))
        shown = [taskset.by_id(i) for i in ids[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]]
        thumbnails = [data_url(thumbnail_png(t, *THUMBNAIL)) for t in shown]
        return self.page("tasks.html", dataset=dataset, datasets=self.sources.names, query=query,
                         tasks=list(zip(shown, thumbnails)),
                         total=len(ids), page=page, pages=max(1, -(-len(ids) // PAGE_SIZE)))

    def task(self, request: Request) -> Response:
        dataset = self._dataset(request)
        task_id = request.path_params["task_id"]
        try:
            taskset = self.sources.get(dataset)
            task = taskset.by_id(task_id)
        except LookupError as exc:       # KeyError too: no such task in the dataset
            return self.not_found(str(exc) if not isinstance(exc, KeyError) else f"no task {shown(task_id)} in {dataset}")
        show_answers = request.query_params.get("answers") == "1"
        truth = taskset.answers[task_id].test_outputs if show_answers else None
        return self.page("task.html", task=task, dataset=dataset, show_answers=show_answers,
                         puzzle=puzzle_picture(task, truth))

    # -- memory ------------------------------------------------------------------------

    def concepts(self, request: Request) -> Response:
        q = request.query_params
        filters = {name: q.get(name) or None for name in ("format", "kind", "source", "model")}
        if filters["format"] not in (None, *FORMATS):
            return self.page("error.html", 400, message=f"format must be one of {', '.join(FORMATS)}")
        query = q.get("q", "").strip()
        found = self.memory.search(query, filters["format"], limit=1000) if query else self.memory.list(filters["format"])
        models = sorted({c.created_by_model for c in found if c.created_by_model})
        found = [c for c in found if (not filters["kind"] or c.kind == filters["kind"])
                 and (not filters["source"] or c.source == filters["source"])
                 and (not filters["model"] or c.created_by_model == filters["model"])]
        return self.page("concepts.html", concepts=found[:500], total=len(found), query=query, filters=filters,
                         formats=FORMATS, kinds=KINDS, sources=SOURCES, models=models)

    def concept(self, request: Request, *, text: str | None = None, reason: str = EDIT_REASON,
                error: str | None = None, status: int = 200) -> Response:
        concept_id = _concept_id(request)
        concept = self.memory.get(concept_id) if concept_id is not None else None
        if concept is None:
            return self.not_found(f"no concept with id {shown(request.path_params['concept_id'])}")
        history = self.memory.history(concept.id)
        revisions, before = [], ""
        for rev in history:
            after = "" if rev.op in ("delete", "merged") else concept_yaml(rev.snapshot)   # merged: gone into another
            revisions.append((rev, _diff(before, after)))
            before = after
        graph_edges, ids, helper = [], {}, None
        if concept.format == "ps":
            lib = library(self.memory, "ps")                 # kept per memory revision
            if concept.name in lib.links:
                graph_edges = lib.links.neighbours(concept.name)
                ids = {e["name"]: lib.links.concept(e["name"]).id for e in graph_edges}
            helper = helper_view(concept, {c.helper.name: c for c in lib.concepts if c.helper},
                                 concept_use(self.memory, self.runs_reading(), [concept.id]).get(concept.id),
                                 self.sources.name_of)
        came_from = sorted({(r.run_id or "", r.task_id) for r in history if r.task_id}
                           | {("", t) for t in concept.used_in or []})
        return self.page("concept.html", status, concept=concept, fields=shown_fields(concept), helper=helper,
                         helper_run=helper is not None and self._has_run(helper.run_id),
                         revisions=list(reversed(revisions)), edges=graph_edges, ids=ids, came_from=came_from,
                         offered=self.offered(concept.id),
                         text=text if text is not None else concept_yaml(concept.to_data()), reason=reason,
                         error=error, token=self.token, edited=_edited(request.query_params.get("edited")))

    async def edit(self, request: Request) -> Response:
        if _concept_id(request) is None:
            return self.not_found(f"no concept with id {shown(request.path_params['concept_id'])}")
        form = await request.form()
        if not secrets.compare_digest(str(form.get("token", "")), self.token):
            return self.page("error.html", 403, message="the form is stale or came from another site: reload the page")
        text, reason = str(form.get("text", "")), str(form.get("reason", "")).strip() or EDIT_REASON
        return await run_in_threadpool(self._apply_edit, request, text, reason)

    def _apply_edit(self, request: Request, text: str, reason: str) -> Response:
        concept_id = _concept_id(request)
        try:
            changes = read_edit(text)
            before = self.memory.revision()
            self.memory.edit(concept_id, changes, actor=self.actor, reason=reason)
        except (ValueError, LookupError) as exc:
            return self.concept(request, text=text, reason=reason, error=str(exc), status=400)
        after = self.memory.revision()
        target = f"/concepts/{concept_id}?edited={after if after != before else 'none'}"
        return RedirectResponse(target, status_code=303)


def _concept_id(request: Request) -> int | None:
    """The concept id a URL names, when it is one a database row can have (1 to 2**63 - 1)."""
    text = request.path_params["concept_id"]
    if not re.fullmatch(r"[0-9]{1,19}", text) or not 0 < int(text) <= MAX_ID:
        return None
    return int(text)


def _edited(value: str | None) -> str | None:
    """The revision an edit made ("none": it changed nothing), as the redirect after it says."""
    return value if value == "none" or (value or "").isdigit() else None


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _diff(before: str, after: str) -> list[tuple[str, str]]:
    """(css class, line) of a unified diff between two concept texts."""
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=2)
    kinds = {"+": "add", "-": "del", "@": "hunk"}
    return [(kinds.get(line[:1], ""), line) for line in list(lines)[2:]]


def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name != "live.js":
        return Response("not found", status_code=404)
    body = resources.files("arcmemo.web").joinpath("static").joinpath(name).read_text(encoding="utf-8")
    return Response(body, media_type="text/javascript", headers=HEADERS)


def create_app(memory: Memory, runs_root: str | Path, *, actor: str, allowed_hosts: list[str],
               sources: TaskSources | None = None, dataset: str = "training") -> Starlette:
    """The app. `allowed_hosts`: the Host header values served (others get 400, which stops DNS
    rebinding); `sources`: the datasets it shows (the bundled splits when not given), `dataset`
    the one the tasks page opens with."""
    sources = sources or TaskSources()
    if dataset not in sources.names:
        raise ValueError(f"no dataset {shown(dataset)}: the datasets are {', '.join(sources.names)}")
    site = Site(memory, runs_root, actor=actor, sources=sources, dataset=dataset)
    heavy, light = Pool(HEAVY_THREADS), Pool(LIGHT_THREADS)    # charts and reports apart (limits.py)
    routes = [
        Route("/", lambda request: RedirectResponse("/runs", status_code=303)),
        Route("/runs", time_limited(site.runs, site.too_slow, light, ready=site.runs_at_hand)),
        *(Route(path, time_limited(handler, site.too_slow, pool)) for path, handler, pool in (
            ("/runs/compare", site.compare, heavy),
            ("/runs/{run_id}", site.run, heavy),
            ("/runs/{run_id}/progress", site.progress, light),
            ("/runs/{run_id}/report.html", site.report, heavy),
            ("/runs/{run_id}/tasks/{task_id}", site.run_task, light),
            ("/tasks", site.tasks, light),
            ("/tasks/{task_id}", site.task, light),
            ("/concepts", site.concepts, light),
            ("/concepts/{concept_id}", site.concept, light))),
        Route("/concepts/{concept_id}/edit", site.edit, methods=["POST"]),
        Route("/static/{name}", static),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)])
    app.state.site = site
    return app
