"""The threads, a task's solving stage: N independent threads (the paper's runs), each the solver
called once with its read's hint, memory's fits and helpers, on samples of its own, with its
retries (the solver's own loop, execution feedback from the train pairs).

Threads share nothing but the task, so they run at once. A thread's hint is what the method's
read showed it, with the calls memory's probe found named first and their helpers offered
(stages/offer.py). In pass order a thread goes on from its conversations as the last pass left
them. A solver that raises broke its contract: the thread has no answer, and the fault is kept
with its traceback; one task never ends the run.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.answers import INTERRUPTS
from arcmemo.run.stages.context import TaskContext
from arcmemo.run.stages.offer import helpers_for
from arcmemo.run.stages.probe import Probed
from arcmemo.run.stages.read import reselector
from arcmemo.selection import Selection
from arcmemo.solverkit import Hint, SolveContext, SolveResult, Trace


@dataclass
class ThreadRun:
    """One thread of a task: what the read offered it and what the solver returned."""

    thread: int
    selection: Selection
    result: SolveResult
    error: str | None = None          # the solver broke its contract (raised)
    reselections: list[dict[str, Any]] = field(default_factory=list)   # --reselect-on-retry: before which retry, what
    helpers: Any = None               # the helpers offered with its hint (solverkit MemoryHelpers), if any
    trace: str | None = None          # the traceback of the solver's exception, when it raised


def solve_threads(ctx: TaskContext, selections: Sequence[Selection], probed: Probed,
                  wants_retry: Callable[[Any], bool] | None) -> list[ThreadRun] | None:
    """Every thread of the task (at once when there are several); None when the endpoint failed
    under one. `wants_retry`: the run's retry decision (the protocol's retry_when=test-fails),
    None for the solver's own train-pair rule."""
    def one(t: int) -> ThreadRun | None:
        return _thread(ctx, t, selections[t], probed, wants_retry)

    if ctx.config.threads == 1:
        runs = [one(0)]
    else:
        with ThreadPoolExecutor(ctx.config.threads, thread_name_prefix=f"{ctx.task.id}-thread") as pool:
            runs = list(pool.map(one, range(ctx.config.threads)))
    return None if any(run is None for run in runs) else runs


def _thread(ctx: TaskContext, t: int, selection: Selection, probed: Probed,
            wants_retry: Callable[[Any], bool] | None) -> ThreadRun | None:
    fits = list(probed.fits)
    helpers = helpers_for(ctx, selection, fits)
    hint = Hint(text=selection.hint, concept_ids=list(selection.concept_ids), mode=selection.mode, helpers=helpers)
    if ctx.continuing:
        record = ctx.earlier.threads[t]
        reselections = list(record.get("reselections", []))
        resume = list(record.get("conversations") or [])
    else:
        reselections, resume = [], None
    solve_ctx = SolveContext(
        llm=ctx.llm, sandbox=ctx.sandbox, settings=ctx.config.solver_settings(ctx.pass_index, t), run_id=ctx.run_id,
        progress=lambda text: ctx.step(text, thread=t),
        reselect=reselector(ctx, t, reselections, lambda again: helpers_for(ctx, again, fits)),
        wants_retry=wants_retry, resume=resume)
    try:
        result, error, trace = ctx.solver.solve(ctx.task, hint, solve_ctx), None, None
    except INTERRUPTS:
        raise
    except Exception as exc:  # a plugin broke its contract; one task must not end the run
        result = SolveResult(attempts=[], predictions=[[] for _ in ctx.task.test_inputs],
                             trace=Trace(reasoning="", final_code=None, passing_attempt=None, transcript=[]),
                             usage=None)
        error, trace = f"solver raised {type(exc).__name__}: {exc}", traceback.format_exc(limit=30)
    if ctx.llm.fault is not None:
        return None
    return ThreadRun(thread=t, selection=selection, result=result, error=error, reselections=reselections,
                     helpers=helpers, trace=trace)


__all__ = ["ThreadRun", "solve_threads"]
