"""Which helpers behave the same: consolidation's evidence from running them, in the sandbox
(consolidation/plan.py asks, as it asks the aux model about words).

A PS concept's helper is called the way the probe calls helpers (memory/helpers/probing.py: the grid
first, each small-valued typed parameter with each of its values; colours 0, 1 and 2 here),
whatever it returns, on the *probe inputs*: a fixed set of small grids and the train inputs
(never a test pair) of the tasks the concepts were used in. Inside the sandbox each result,
with the grid as the call left it if it changed it, is reduced to plain data (arrays as lists, sets sorted,
numbers as numbers) and hashed into a small grid, the only thing a run can hand back; the
parent compares those digests and never runs helper code itself.

Two helpers behave the same when the same calls (the same argument values, in the same
positions) give the same digests on every probe input, failures in the same places, with at
least MIN_RESULTS results that differ between inputs: a helper that fails everywhere, or
gives one answer whatever the input, shows nothing. A helper that cannot be called so (it
takes objects, a function, a mask) is compared by its code alone: the same code but for the
function's name and docstring is the same function; anything else cannot be told apart by
running (a Verdict of None), and the plan lets the model's judgement decide.

Finding groups costs one sandbox run per call on the fixed grids for every helper; only
helpers that agree there are run on the train inputs of their tasks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from arcmemo.core.helpermodule import MODULE
from arcmemo.core.tasks import Grid, Task
from arcmemo.memory.helpers.modules import module_of
from arcmemo.memory.helpers.probing import candidate_calls
from arcmemo.memory.helpers.source import same_code_key
from arcmemo.memory.schema.concept import Concept
from arcmemo.run.stages.inferred import TaskFacts

PROBE_COLORS = (0, 1, 2)
PROBE_FACTS = TaskFacts(colors=PROBE_COLORS)   # no train pairs: nothing inferred (a colour table, a size) is tried
MIN_RESULTS = 3
TIMEOUT_RETRIES = 2      # times a grid that timed out is run again before its timeout counts
PROBE_GRIDS: tuple[Grid, ...] = (
    ((1, 2, 3), (4, 5, 6), (7, 8, 9)),
    ((0, 0, 0, 0, 0), (0, 3, 3, 0, 0), (0, 3, 0, 0, 0), (0, 0, 0, 0, 6), (0, 0, 0, 6, 6)),
    ((2, 0, 0, 0), (0, 2, 0, 0), (0, 0, 2, 0), (0, 0, 0, 2), (1, 1, 1, 1), (0, 0, 0, 0)),
    ((5,),),
    ((0, 1, 0, 1, 0, 1), (1, 0, 1, 0, 1, 0), (0, 1, 0, 1, 0, 1)),
    ((4, 4, 0, 0, 0, 0, 7), (4, 4, 0, 0, 0, 0, 7), (0, 0, 0, 8, 0, 0, 7), (0, 0, 0, 0, 0, 0, 0)),
)

_PROGRAM = '''import hashlib

import numpy as np

from {module} import {helper}


def _plain(value, depth=0):
    """The value as plain data, whatever container or number type holds it."""
    if depth > 40:
        raise TypeError("nested too deeply to compare")
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v, depth + 1) for v in value), key=repr)
    if isinstance(value, dict):
        return sorted(([_plain(k, depth + 1), _plain(v, depth + 1)] for k, v in value.items()), key=repr)
    raise TypeError("cannot compare a " + type(value).__name__)


def transform(grid):
    before = _plain(grid)
    result = {call}
    after = _plain(grid)
    digest = hashlib.sha256(repr([_plain(result), after if after != before else None]).encode()).digest()
    return [[b % 10 for b in digest[row * 8:(row + 1) * 8]] for row in range(4)]
'''

Result = tuple[tuple[int, ...], ...] | None     # a call's digest on one input; None: the call failed


@dataclass(frozen=True)
class Probed:
    """A concept whose helper consolidation can call: the calls it makes (`rotate_grid(grid, 1)`)."""

    concept: Concept
    calls: tuple[str, ...]

    @property
    def shape(self) -> tuple[str, ...]:
        """The calls without the helper's name: two helpers are compared call by call when equal."""
        name = self.concept.helper.name
        return tuple(call[len(name):] for call in self.calls)


def probed(concept: Concept) -> Probed | None:
    """The calls consolidation makes of a concept's helper; None when it cannot be called on a grid
    with parameter values it can choose (probing.py's candidate calls, whatever the helper returns)."""
    if not concept.helper:
        return None
    calls = candidate_calls(dataclasses.replace(concept, output_typing="grid"), PROBE_FACTS)
    return Probed(concept, tuple(calls)) if calls else None


@dataclass(frozen=True)
class Verdict:
    """Whether two helpers behave the same on the probe inputs: True, False, or None (cannot tell)."""

    same: bool | None
    detail: str


class TrainInputs:
    """The train input grids (never a test pair) of the tasks concepts were used in, found among
    the tasks given (a run's), in the bundled ARC datasets, or in the task source a concept's
    helper was verified on. A task found nowhere is left out and listed in `missing`."""

    def __init__(self, tasks: Iterable[Task] = ()):
        self._found: dict[str, list[Grid]] = {t.id: [p.input for p in t.train] for t in tasks}
        self.missing: set[str] = set()

    def of(self, concepts: Sequence[Concept]) -> list[Grid]:
        ids = list(dict.fromkeys(task_id for c in concepts for task_id in c.used_in))
        self._find([i for i in ids if i not in self._found and i not in self.missing], concepts)
        return [grid for task_id in ids for grid in self._found.get(task_id, [])]

    def _find(self, ids: list[str], concepts: Sequence[Concept]) -> None:
        from arcmemo.core.datasets import splits_holding
        from arcmemo.core.tasks import TaskError, load_tasks

        if not ids:
            return
        for source, held in splits_holding(set(ids)).items():
            for task in load_tasks(source, ids=sorted(held)):
                self._found.setdefault(task.id, [p.input for p in task.train])
        for c in concepts:
            verified = c.helper.verified if c.helper else None
            if verified is not None and verified.task_id in ids and verified.task_id not in self._found:
                try:
                    task = load_tasks(verified.tasks, ids=[verified.task_id]).by_id(verified.task_id)
                except (TaskError, KeyError, LookupError, OSError, ValueError):
                    continue
                self._found[task.id] = [p.input for p in task.train]
        self.missing.update(i for i in ids if i not in self._found)


class Behaviour:
    """Runs helpers on probe inputs in the sandbox, once per call and input. `concepts`: every PS
    concept (the helpers a helper calls come from them)."""

    def __init__(self, sandbox, concepts: Sequence[Concept], inputs: TrainInputs | None = None, *, workers: int = 2):
        self.sandbox = sandbox
        self.concepts = [c for c in concepts if c.helper]
        self.sources = {c.helper.name: c.helper for c in self.concepts}
        self.inputs = inputs or TrainInputs()
        self.workers = max(1, workers)
        self.runs = 0                    # sandbox runs made
        self.faults: list[str] = []      # sandbox faults (a call that could not run is a failed call)
        self._seen: dict[tuple[int, str], dict[Grid, Result]] = {}

    def grids(self, concepts: Sequence[Concept]) -> list[Grid]:
        """The probe inputs for these concepts: the fixed grids, then their tasks' train inputs."""
        return list(dict.fromkeys([*PROBE_GRIDS, *self.inputs.of(concepts)]))

    def results(self, probes: Sequence[Probed], grids: Sequence[Grid]) -> dict[int, tuple[Result, ...]]:
        """Per concept id, each call's digest on each grid (call by call), running what is not known yet."""
        todo = []
        for p in probes:
            for call in p.calls:
                seen = self._seen.setdefault((p.concept.id, call), {})
                missing = [g for g in grids if g not in seen]
                if missing:
                    todo.append((p, call, missing))
        if todo:
            self.runs += len(todo)
            with ThreadPoolExecutor(max_workers=self.workers) as pool:
                for (p, call, missing), outcomes in zip(todo, pool.map(lambda job: self._run(*job), todo)):
                    self._seen[(p.concept.id, call)].update(zip(missing, outcomes))
        return {p.concept.id: tuple(self._seen[(p.concept.id, call)][g] for call in p.calls for g in grids)
                for p in probes}

    def _run(self, p: Probed, call: str, grids: list[Grid]) -> list[Result]:
        helper = p.concept.helper.name
        program = _PROGRAM.format(module=MODULE, helper=helper, call=call)
        modules = {MODULE: module_of(self.sources, [helper])}
        results: list[Result] = [None] * len(grids)
        todo = list(range(len(grids)))
        for _ in range(1 + TIMEOUT_RETRIES):
            try:
                outcomes = self.sandbox.run(program, [grids[i] for i in todo], modules=modules)
            except Exception as exc:  # the sandbox could not run it: a failed call, reported
                self.faults.append(f"{call}: {type(exc).__name__}: {str(exc)[:200]}")
                return [None] * len(grids)
            for i, o in zip(todo, outcomes):
                results[i] = tuple(map(tuple, o.output)) if o.ok else None
            # a timeout on a busy machine says nothing of the helper: run those grids again before
            # it counts as a failure (one that loops for ever times out every time)
            todo = [i for i, o in zip(todo, outcomes) if o.error == "timeout"]
            if not todo:
                break
        return results

    def groups(self, concepts: Sequence[Concept]) -> list[tuple[list[Concept], str]]:
        """The groups of concepts whose helpers behave the same, each with what showed it: the same
        results on the probe inputs, or, for helpers that cannot be probed, the same code."""
        probes = [p for c in concepts if (p := probed(c)) is not None]
        by_code: dict[str, list[Concept]] = {}
        probed_ids = {p.concept.id for p in probes}
        for c in concepts:
            if c.helper and c.id not in probed_ids and (key := same_code_key(c.helper)) is not None:
                by_code.setdefault(key, []).append(c)
        found = [(same, SAME_CODE) for same in by_code.values() if len(same) > 1]
        fixed = self.results(probes, PROBE_GRIDS)
        first: dict[tuple, list[Probed]] = {}
        for p in probes:
            first.setdefault((p.shape, fixed[p.concept.id]), []).append(p)
        for members in (m for m in first.values() if len(m) > 1):
            grids = self.grids([p.concept for p in members])
            full = self.results(members, grids)
            alike: dict[tuple, list[Probed]] = {}
            for p in members:
                alike.setdefault(full[p.concept.id], []).append(p)
            for results, same in alike.items():
                if len(same) > 1 and _telling(results):
                    found.append(([p.concept for p in same], _evidence(same[0], grids, results)))
        return found

    def compare(self, a: Concept, b: Concept) -> Verdict:
        """Whether the helpers of `a` and `b` behave the same on the probe inputs of both (or, when
        they cannot be probed, are the same code)."""
        pa, pb = probed(a), probed(b)
        if (pa is None or pb is None) and same_code_key(a.helper) == same_code_key(b.helper) is not None:
            return Verdict(True, SAME_CODE)
        for concept, p in ((a, pa), (b, pb)):
            if p is None:
                return Verdict(None, f"the helper of {concept.name!r} cannot be called on a grid with values "
                                     "consolidation chooses")
        if pa.shape != pb.shape:
            return Verdict(None, f"their helpers take different arguments ({pa.calls[0]} and {pb.calls[0]})")
        grids = self.grids([a, b])
        results = self.results([pa, pb], grids)
        ra, rb = results[a.id], results[b.id]
        differ = [i for i, (x, y) in enumerate(zip(ra, rb)) if x != y]
        if differ:
            call, grid = divmod(differ[0], len(grids))
            return Verdict(False, f"their helpers give different results ({len(differ)} of {len(ra)} differ; the "
                                  f"first: {pa.calls[call]} and {pb.calls[call]} on probe input {grid + 1}, "
                                  f"{_size(grids[grid])})")
        if not _telling(ra):
            return Verdict(None, "their helpers fail, or give one answer, on every probe input")
        return Verdict(True, _evidence(pa, grids, ra))


SAME_CODE = "the same helper code but for its name and docstring"


def _telling(results: Sequence[Result]) -> bool:
    """Results that can show two helpers alike: enough of them, and not all one answer."""
    given = [r for r in results if r is not None]
    return len(given) >= MIN_RESULTS and len(set(given)) > 1


def _evidence(p: Probed, grids: Sequence[Grid], results: Sequence[Result]) -> str:
    given = sum(r is not None for r in results)
    calls = f"{len(p.calls)} calls" if len(p.calls) > 1 else "one call"
    return (f"same helper results on {len(grids)} probe inputs ({len(PROBE_GRIDS)} fixed grids, "
            f"{len(grids) - len(PROBE_GRIDS)} train inputs; {calls} each, {given} results)")


def _size(grid: Grid) -> str:
    return f"{len(grid)}x{len(grid[0]) if grid else 0}"


__all__ = ["Behaviour", "Probed", "TrainInputs", "Verdict", "probed", "PROBE_GRIDS", "PROBE_COLORS",
           "MIN_RESULTS", "SAME_CODE"]
