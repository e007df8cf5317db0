"""Consolidation in the run layer: `plan_for` (the plan, with helpers run in the sandbox) for
`arcmemo concepts consolidate`, and `solve --continual --consolidate-every N`, which
consolidates the memory after every N blocks' writes.

After block b of pass p has been written back (b counted from 1 within the pass), when b is
a multiple of N, the run's method's own items (of the format it writes back, --memory-format,
for ArcMemo's methods; of its formats for the others) are consolidated as `arcmemo concepts
consolidate --method` does it (the run's aux model judges the pairs
found by words; the run's tasks lend their train inputs as probe inputs), the merges are
revisions of the run (its run id, actor `consolidate`), and one event records what was
merged, refused and asked:

    {"type": "consolidate", "pass_index": p, "block": b, "merged": [...], "refused": [...],
     "unjudged": [...], "judged": n, "sandbox_runs": n, "usage": {...}, "revision": r}

Resumable: a block whose event is in the run's log is not consolidated again. A run killed
during a consolidation redoes it on resume; what was merged then is gone from memory, so
nothing is merged twice. An endpoint that refuses (bad key, unknown model) stops the run
before anything is merged, as it stops a write. The model calls' usage is in the event and
counts in the run's cost (its summary, its budget).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from arcmemo.consolidation import ACTOR
from arcmemo.core.table import counted
from arcmemo.run.records.events import Consolidation
from arcmemo.run.stages.metered import MeteredLLM

if TYPE_CHECKING:
    from arcmemo.consolidation.plan import Plan
    from arcmemo.core.tasks import Task

EVENT = "consolidate"


def plan_for(memory, sandbox, llm=None, *, tasks: Sequence[Task] = (), formats: Iterable[str] | None = None,
             **options: Any) -> Plan:
    """A consolidation plan for `memory` (consolidation/plan.py), its helpers run in `sandbox` on
    probe inputs that include the train inputs of `tasks` (a run's own) besides the bundled
    datasets'; `options`: plan_consolidation's (min_overlap, max_judged). Its libraries (numpy,
    scipy) load here, when a consolidation runs, not with every solve."""
    from arcmemo.consolidation.plan import plan_consolidation
    from arcmemo.run.helpers.behaviour import Behaviour, TrainInputs

    behaviour = Behaviour(sandbox, memory.list("ps"), TrainInputs(tasks))
    return plan_consolidation(memory, behaviour, llm, formats=formats, **options)


def consolidate_after_block(runner: Any, pass_index: int, block: int) -> dict[str, Any] | None:
    """Consolidate after block `block` of pass `pass_index` when the run asks for it and it was
    not done before; the event recorded, or None."""
    every = runner.config.consolidate_every
    if not every or block % every or _done(runner, pass_index, block):
        return None
    from arcmemo.consolidation.plan import apply_plan

    formats = consolidated_formats(runner.method, runner.config.memory_format)
    if not formats:
        return None
    runner.progress.step(f"consolidating memory after block {block}")
    meter = MeteredLLM(runner.llm)
    plan = plan_for(runner.items, runner.sandbox, meter, tasks=runner.tasks, formats=formats)
    if meter.fatal is not None:
        raise meter.fatal          # a bad key or unknown model stops the run; nothing was merged
    done = apply_plan(runner.items, plan, actor=ACTOR, run_id=runner.rundir.run_id)
    event = {"type": EVENT, "pass_index": pass_index, "block": block,
             "merged": [m.to_json() for m, after, _ in done if after is not None],
             "refused": plan.refused + [error for _, _, error in done if error],
             "unjudged": plan.unjudged, "judged": len(plan.judged), "sandbox_runs": plan.stats["sandbox_runs"],
             "usage": meter.usage.to_dict(), "revision": runner.memory.revision()}
    runner.rundir.append(event)
    runner.consolidations.append(Consolidation.from_event(event))
    merged = sum(len(m["merged"]) for m in event["merged"])
    runner.progress.note(f"consolidated after block {block}: {counted(merged, 'concept')} merged into others"
                         + (f", {len(event['refused'])} refused" if event["refused"] else ""))
    return event


def consolidated_formats(method: Any, memory_format: str | None) -> list[str]:
    """The formats of a method's items a consolidation merges within: the one ArcMemo's methods
    write (--memory-format), else every format the method keeps."""
    return [memory_format] if memory_format in method.formats else list(method.formats)


def _done(runner: Any, pass_index: int, block: int) -> bool:
    """Whether the run consolidated after this block already (its log, read on resume, or this session)."""
    return any(c.pass_index == pass_index and c.block == block for c in runner.consolidations)


__all__ = ["consolidate_after_block", "consolidated_formats", "plan_for", "EVENT"]
