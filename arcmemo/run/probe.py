"""Probing memory's helpers on a task: which single call of one gives every train output.

An executable concept can be tried, not only read. For each PS concept whose helper takes
the grid first and whose other parameters have a type with few values (an int, a colour
of the task, a bool, literal alternatives such as `horizontal | vertical`), the probe
calls it with each combination on the train inputs, in the sandbox. A call that gives
every train output is a *fit*. With ps selection, fits replace the select model's choice
(no select call is made): the hint shows the fitting concepts and names the calls, and
only their helpers are offered; with `all` the whole memory is shown as usual, with the
fitting helpers only. A small model that would not have picked the concept, or would
have guessed its arguments wrong, is told what running it showed. Test outputs are never
involved (a colour parameter may take a test input's colours). It costs a few hundred
sandbox runs at most (about 16 ms each), next to model calls of seconds to minutes;
`--no-probe-helpers` turns it off.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from arcmemo.core.helpercode import MODULE
from arcmemo.run.offer import helpers_module
from arcmemo.selection.ps import render_hint
from arcmemo.selection.types import Selection
from arcmemo.solverkit.programs import run_on_pairs

PROBED = ("ps", "all")         # the selection modes whose runs probe
INTS = (1, 2, 3, 4)
MAX_CALLS_PER_HELPER = 32
_WORD = re.compile(r"^[a-z][a-z_]*$")
# typing words that name a type, not a literal value (`grid | None` is not a choice of words)
_TYPE_WORDS = frozenset({"grid", "int", "color", "colour", "bool", "object", "objects", "none", "position", "mask",
                         "str", "float", "list", "tuple", "dict", "direction", "shape", "any"})


@dataclass(frozen=True)
class Fit:
    """A call of one concept's helper that gives every train output."""

    concept_id: int
    helper: str           # the helper's name: "rotate_grid"
    call: str             # as a program writes it: "rotate_grid(grid, 2)"


def _values(typing: str | None, colors: Sequence[int]) -> list[Any] | None:
    """The values a parameter of this typing can take, or None when they are too many to try."""
    typing = (typing or "").strip().lower()
    if typing == "int":
        return list(INTS)
    if typing in ("color", "colour"):
        return list(colors)
    if typing == "bool":
        return [True, False]
    words = [w.strip() for w in typing.split("|")]
    if len(words) >= 2 and all(w.isdigit() for w in words):
        return [int(w) for w in words]
    if len(words) >= 2 and all(_WORD.match(w) and w not in _TYPE_WORDS for w in words):
        return words
    return None


def _parameters(source: str, name: str) -> tuple[list[str], int] | None:
    """(parameter names, how many are required) of function `name` in `source`."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            args = node.args
            if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg:
                return None
            names = [a.arg for a in args.args]
            return names, len(names) - len(args.defaults)
    return None


def candidate_calls(concept: Any, colors: Sequence[int]) -> list[str]:
    """The calls to try for one concept: its helper on `grid`, with every combination of its
    required parameters' values (optional ones too, while the combinations stay few)."""
    helper = concept.helper or {}
    if (concept.output_typing or "").strip().lower() != "grid":
        return []                              # what it returns cannot be a task's output
    name, source = helper.get("name"), helper.get("source") or ""
    found = _parameters(source, name) if name else None
    if found is None or not found[0]:
        return []
    names, required = found
    typings = {p.get("name"): p.get("typing") for p in concept.parameters or [] if isinstance(p, dict)}
    if (typings.get(names[0]) or "grid").strip().lower() != "grid":
        return []
    choices: list[tuple[str, list[Any]]] = []
    size = 1
    for position, param in enumerate(names[1:], start=1):
        values = _values(typings.get(param), colors)
        if position < required:
            if not values:
                return []                      # a required parameter we cannot fill
        elif not values or size * len(values) > MAX_CALLS_PER_HELPER:
            continue                           # an optional one: left at its default
        size *= len(values)
        choices.append((param if position >= required else "", values))
    if size > MAX_CALLS_PER_HELPER:
        return []
    calls = []
    for combo in itertools.product(*(values for _, values in choices)):
        args = ["grid"] + [f"{kw}={v!r}" if kw else repr(v) for (kw, _), v in zip(choices, combo)]
        calls.append(f"{name}({', '.join(args)})")
    return calls


def task_colors(task: Any) -> list[int]:
    """The colours in the task's train grids and test inputs (what a colour parameter may be)."""
    grids = [g for pair in task.train for g in (pair.input, pair.output)] + list(task.test_inputs)
    return sorted({int(v) for g in grids for row in g for v in row})


def probe(task: Any, concepts: Sequence[Any], sandbox: Any, *, workers: int = 2) -> tuple[list[Fit], int]:
    """(the fits, how many calls were tried): each candidate call of each concept's helper,
    run in the sandbox on the train pairs; a fit gives every train output."""
    colors = task_colors(task)
    tries = [Fit(c.id, c.helper["name"], call) for c in concepts if c.helper for call in candidate_calls(c, colors)]
    if not tries:
        return [], 0
    module = {MODULE: helpers_module(concepts, sorted({t.helper for t in tries}))}
    pairs = list(task.train)

    def fits(attempt: Fit) -> bool:
        code = f"from {MODULE} import {attempt.helper}\n\n\ndef transform(grid):\n    return {attempt.call}\n"
        try:
            return all(run_on_pairs(sandbox, code, pairs, modules=module).correct)
        except Exception:  # a sandbox fault is no fit; the solve goes on without it
            return False

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        verdicts = list(pool.map(fits, tries))
    found, seen = [], set()
    for attempt, ok in zip(tries, verdicts):
        if ok and attempt.concept_id not in seen:          # the first fitting call of each concept
            seen.add(attempt.concept_id)
            found.append(attempt)
    return found, len(tries)


def fit_selection(fits: Sequence[Fit], memory: Any) -> Selection:
    """The ps selection the fits make: their concepts, shown as a ps hint is (with the custom
    types they use); `stats["probe_fits"]` records the calls."""
    concepts = memory.list("ps")
    by_id = {c.id: c for c in concepts}
    chosen = [by_id[f.concept_id] for f in fits if f.concept_id in by_id]
    return Selection(mode="ps", concept_ids=[c.id for c in chosen], hint=render_hint(chosen, memory.custom_types()),
                     stats={"probe_fits": [f.call for f in fits], "memory_concepts": len(concepts)})


__all__ = ["Fit", "PROBED", "candidate_calls", "fit_selection", "probe", "task_colors", "MAX_CALLS_PER_HELPER"]
