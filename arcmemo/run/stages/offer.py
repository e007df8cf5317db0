"""Which helpers a task is offered, and what its programs did with them.

`offer_helpers` turns the concepts memory selection chose into the `MemoryHelpers` a solver
gets in its hint: the verified helpers of those concepts (at most `limit`: a small model
given many helpers rambles and rewrites them), with every helper they call, as one
module. `helper_use` reads the solver's attempts back into the per-concept usage rows
the memory keeps (offered, called, called by a passing program, called in a solved task).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from arcmemo.memory.helpers.source import describe
from arcmemo.memory.store.usage import ConceptUse
from arcmemo.solverkit import MemoryHelpers, OfferedHelper

if TYPE_CHECKING:
    from arcmemo.run.stages.context import TaskContext
    from arcmemo.run.stages.prepared import Prepared
    from arcmemo.run.stages.probe import Fit
    from arcmemo.selection import Selection

SMALL_CONTEXT = 16_000     # a model whose context is at most this many tokens gets few helpers
FEW_HELPERS = 2
MANY_HELPERS = 8


def helper_limit(llm, given: int | None = None) -> int:
    """How many helpers a task is offered: `given`, else few for a small-context solver model."""
    if given is not None:
        return given
    window = llm.context_window("solver") if llm is not None else None
    return FEW_HELPERS if window is not None and window <= SMALL_CONTEXT else MANY_HELPERS


def offer_helpers(memory: Prepared, chosen_ids: Iterable[int], limit: int,
                  usage: Mapping[int, ConceptUse] | None = None) -> MemoryHelpers | None:
    """The helpers of the chosen concepts (ids, most wanted first: the select model's order),
    at most `limit`: those whose helpers passing programs called most often first (the
    memory's own measure), then in the given order. `memory`: the PS memory as prepared for
    its revision (prepared.py: its concepts and the helpers they call)."""
    by_id = memory.by_id
    usage = usage or {}
    chosen = [by_id[i] for i in dict.fromkeys(chosen_ids) if i in by_id and by_id[i].helper]
    chosen = sorted(chosen, key=lambda c: -(usage[c.id].called_passing if c.id in usage else 0))[:max(0, limit)]
    if not chosen:
        return None
    module = memory.module(c.helper.name for c in chosen)
    offered = []
    for c in chosen:
        info = describe(c.helper.source)
        offered.append(OfferedHelper(name=info.name, signature=info.signature, doc=info.doc, concept=c.name))
    return MemoryHelpers(module=module, offered=offered)


def helpers_for(ctx: TaskContext, selection: Selection, fits: Sequence[Fit]) -> MemoryHelpers | None:
    """The helpers offered with a thread's hint (None: --helpers off, or none to offer): when the
    probe found calls that give every train output, only theirs, in the probe's order (any
    other would be a guess, and a small model offered more helpers calls them all); else, for a
    method whose items carry helpers (`offers_helpers`), those of the items its read chose (the
    memory's best used first, then in the read's order)."""
    if not ctx.config.helpers:
        return None
    if fits:
        wanted, usage = [f.concept_id for f in fits], None
    elif ctx.method.offers_helpers:
        wanted = list((selection.stats or {}).get("ranked_ids") or selection.concept_ids)   # ps: the model's order
        usage = ctx.memory.usage(concept_ids=wanted) if wanted else None
    else:
        return None
    if not wanted:
        return None
    helpers = offer_helpers(ctx.prepared, wanted, ctx.config.max_helpers if ctx.config.max_helpers is not None
                            else helper_limit(ctx.llm), usage)
    if helpers is not None:
        offered = set(helpers.names())
        helpers.fits = [f.call for f in fits if f.helper in offered]
    return helpers


def helper_use(attempts: Sequence, offered_ids: Iterable[int], owner: Mapping[str, int], *,
               solved: bool) -> dict[int, ConceptUse]:
    """Per concept id, how this task used it: every concept offered to it, and any other whose
    helper its programs called (a helper the offered ones call, imported by name). `owner`:
    helper name -> its concept's id (Prepared.helper_owner)."""
    called = {owner[n] for a in attempts for n in a.helpers_called if n in owner}
    passing = {owner[n] for a in attempts if a.passed_train for n in a.helpers_called if n in owner}
    offered = set(offered_ids)
    return {cid: ConceptUse(offered=int(cid in offered), called=int(cid in called), called_passing=int(cid in passing),
                       solved=int(cid in called and solved))
            for cid in sorted(offered | called)}


__all__ = ["helper_limit", "helpers_for", "offer_helpers", "helper_use", "FEW_HELPERS", "MANY_HELPERS"]
