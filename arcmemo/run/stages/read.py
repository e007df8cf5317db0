"""The method's read, a task's first stage: what each of its threads is shown from the method's items.

Each thread reads on its own samples, at once; a method that declares `shares_read` lets the
protocol's select_once make one read serve every thread, and its `prepare_read` make once per
puzzle what the threads' reads share (OE's caption). Every read is recorded in the run's
selections (`selections.jsonl`). In pass order a thread going on keeps the read it opened with.
`reselector` is the read again before a retry (--reselect-on-retry), for methods that declare
`reselects`. A read that raised (a bug in the method, not a model problem) is a fault of the task.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from arcmemo.methods.contract import ReadFailed
from arcmemo.methods.reading import select
from arcmemo.run.records.selections import selection_record
from arcmemo.run.stages.context import TaskContext
from arcmemo.selection import Selection, SelectionSettings
from arcmemo.solverkit import Hint

DEGRADED = {"collapsed": "concepts used in one earlier puzzle listed by name alone",
            "compressed": "names, parameters and typing only",
            "prefiltered": "only the concepts whose words best match the puzzle, compressed"}


def read(ctx: TaskContext) -> list[Selection] | None:
    """One selection per thread (the same one, shared, under select_once); None when the endpoint
    failed under the read."""
    threads = ctx.config.threads
    if ctx.continuing:
        return [_as_opened(ctx, t) for t in range(threads)]
    settings = [ctx.config.selection_settings(ctx.pass_index, t) for t in range(threads)]
    if threads > 1 and ctx.method.shares_read and ctx.config.protocol.select_once:
        ctx.step(f"{_verb(ctx)} (once for every thread)")
        selection = _read_one(ctx, settings[0])
        if ctx.llm.fault is not None:
            return None
        _record(ctx, 0, selection, shared_by=threads)
        return [selection] * threads
    failed = None
    if threads > 1 and ctx.method.shares_read:
        try:
            llm = _Announcing(ctx.llm, lambda: ctx.step("selecting (once for every thread)")) \
                if ctx.method.read_roles else ctx.llm
            shared = ctx.method.prepare_read(ctx.task, ctx.memory, settings[0], llm)
            settings = [dataclasses.replace(shared, pass_index=s.pass_index) for s in settings]
        except ReadFailed as exc:
            failed = str(exc)
        if ctx.llm.fault is not None:
            return None

    def read_thread(t: int) -> Selection:
        if failed is not None:
            selection = Selection(mode=ctx.config.selection, fallback=True, error=failed)
        else:
            ctx.step(_verb(ctx), thread=t)
            selection = _read_one(ctx, settings[t], t)
        if ctx.llm.fault is None:
            _record(ctx, t, selection)
        return selection

    if threads == 1:
        selections = [read_thread(0)]
    else:
        with ThreadPoolExecutor(threads, thread_name_prefix=f"{ctx.task.id}-read") as pool:
            selections = list(pool.map(read_thread, range(threads)))
    return None if ctx.llm.fault is not None else selections


def faults(ctx: TaskContext, selections: list[Selection]) -> list[dict[str, Any]]:
    """The reads that raised (the method's bug, recorded with its traceback), once per distinct read."""
    seen, found = set(), []
    for t, selection in enumerate(selections):
        raised = selection.stats.get("raised")
        if raised and id(selection) not in seen:
            seen.add(id(selection))
            found.append(ctx.fault("read", selection.error or raised["error"], raised.get("traceback"), thread=t))
    return found


def reselector(ctx: TaskContext, t: int, made: list[dict[str, Any]], offer: Callable[[Selection], Any]
               ) -> Callable[[str, int, int], Hint | None] | None:
    """--reselect-on-retry, for a method that declares `reselects`: its read again with a failed
    try's feedback, recorded like the first (selections.jsonl, with its retry) and listed in
    `made`; the solver shows its hint (and offers its helpers: `offer`) with the feedback."""
    if not (ctx.config.reselect_on_retry and ctx.method.reselects):
        return None
    lock = threading.Lock()

    def reselect(feedback: str, retry: int, sample: int) -> Hint | None:
        settings = dataclasses.replace(ctx.config.selection_settings(ctx.pass_index, t), retry_feedback=feedback)
        selection = _read_one(ctx, settings, t)
        helpers = None if selection.fallback else offer(selection)
        with lock:
            ctx.records.append_selection(selection_record(ctx.task.id, ctx.pass_index, selection,
                                                          ctx.prepared.names, thread=t, retry=retry))
            made.append({"retry": retry, "sample": sample, "selected": list(selection.concept_ids),
                         "level": selection_level(selection), "fallback": bool(selection.fallback),
                         "helpers": helpers.names() if helpers is not None else []})
        _say_if_degraded(ctx, selection)
        if selection.fallback:
            return None
        return Hint(text=selection.hint, concept_ids=list(selection.concept_ids), mode=selection.mode,
                    helpers=helpers)

    return reselect


def selection_level(selection: Selection) -> str | None:
    """How the select model saw memory: full, collapsed, compressed or prefiltered (None: no model step)."""
    return selection.stats.get("form")


def _verb(ctx: TaskContext) -> str:
    """What the progress line says when a read starts: memory is read; "selecting" follows when
    the read asks a model (`_Announcing`), and only then."""
    return "reading memory"


class _Announcing:
    """The task's model client as a read sees it: the progress line says "selecting" when the
    read's first model call starts (a read that asks no model, an empty memory's say, never says
    it). Everything else is the task's client's (its counts and faults are the task's)."""

    def __init__(self, llm: Any, say: Callable[[], None]):
        self._llm, self._say, self._said = llm, say, threading.Event()

    async def achat(self, messages, **kwargs):
        if not self._said.is_set():
            self._said.set()
            self._say()
        return await self._llm.achat(messages, **kwargs)

    def chat(self, messages, **kwargs):
        return self._llm.run(self.achat(messages, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)


def _read_one(ctx: TaskContext, settings: SelectionSettings, thread: int | None = None) -> Selection:
    llm = _Announcing(ctx.llm, lambda: ctx.step("selecting", thread=thread)) if ctx.method.read_roles else ctx.llm
    return select(ctx.task, ctx.memory, settings, llm)


def _as_opened(ctx: TaskContext, t: int) -> Selection:
    """Pass order: thread t's read as the last pass recorded it, with the hint it was opened with
    (the released code keeps a thread's first prompt)."""
    record = ctx.earlier.threads[t]
    opened = ctx.opened.threads[t] if ctx.opened is not None else record
    return Selection(mode=ctx.config.selection, concept_ids=list(record["selected"]), hint=opened.get("hint", ""),
                     fallback=bool(record["fallback"]), stats={"form": record["level"]} if record.get("level") else {})


def _record(ctx: TaskContext, t: int, selection: Selection, shared_by: int = 1) -> None:
    record = selection_record(ctx.task.id, ctx.pass_index, selection, ctx.prepared.names, thread=t)
    if shared_by > 1:
        record["shared_by_threads"] = shared_by
    ctx.records.append_selection(record)
    _say_if_nothing_matched(ctx, selection)
    _say_if_degraded(ctx, selection)


def _say_if_degraded(ctx: TaskContext, selection: Selection) -> None:
    """Once per run and level: the select model did not see the whole memory in full."""
    level = selection_level(selection)
    if level in (None, "full", selection.stats.get("view")) or level not in DEGRADED:
        return          # what the protocol asked for is no degradation
    if not ctx.notices.first(f"level:{level}"):
        return
    stats = selection.stats
    ctx.note(f"selection degraded: the memory ({stats.get('memory_size')} concepts) does not fit the select "
             f"prompt's budget of {stats.get('budget')} tokens in full; shown {level} ({DEGRADED[level]}). "
             "Each task's level is in `arcmemo runs selections` and the summary; --token-budget raises the budget")


def _say_if_nothing_matched(ctx: TaskContext, selection: Selection) -> None:
    """A selection that named only things not in memory shows memory doing nothing: say so."""
    again = selection.stats.get("asked_again")
    if again is None:
        return
    named = ", ".join(repr(n) for n in again["unmatched"][:5])
    ctx.note(f"{ctx.task.id}: the select model named nothing in memory ({named}); asked again with the memory's "
             f"names listed: {again['matched']} matched")


__all__ = ["read", "reselector", "faults", "selection_level", "DEGRADED"]
