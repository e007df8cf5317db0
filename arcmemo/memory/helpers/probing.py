"""What memory's probe can try of each helper, read from the concept alone: which of its
parameters can be filled, with what kind of value, passed how (`ProbeSpec`), and the calls
that makes on a task once the task's values are known.

A helper that takes the grid first and whose other parameters can be filled (an int, a
colour of the task, a bool, literal alternatives such as `horizontal | vertical`, or a
value the train pairs show: a colour table, a scale factor, an output size, a shift) can be
tried. Nothing here runs a helper: the probe runs the calls in the sandbox
(run/stages/probe.py) and consolidation compares what they give (run/helpers/behaviour.py).
The values a task gives are its `TaskValues` (run/stages/inferred.py's TaskFacts finds them
in a task's train pairs).
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass
from typing import Any, Protocol

from arcmemo.core import pyast


class TaskValues(Protocol):
    """The values a task offers a helper's parameters: its colours, the scale factors, colour
    table, output size and shift its train pairs show (None or empty: none)."""

    colors: tuple[int, ...]
    mapping: dict[int, int] | None
    factors: tuple[int, ...]
    shape: tuple[int, int] | None
    offset: tuple[int, int] | None


INTS = (1, 2, 3, 4)
MAX_CALLS_PER_HELPER = 32
_WORD = re.compile(r"^[a-z][a-z_]*$")
# typing words that name a type, not a literal value (`grid | None` is not a choice of words)
_TYPE_WORDS = frozenset({"grid", "int", "color", "colour", "bool", "object", "objects", "none", "position", "mask",
                         "str", "float", "list", "tuple", "dict", "direction", "shape", "any"})
# typings (spaces removed) of a colour table, of a pair of ints, and the parameter words saying which pair
_MAPPINGS = frozenset({"colormapping", "colourmapping", "dict[color,color]", "dict[colour,colour]", "dict[int,int]"})
_PAIRS = frozenset({"tuple[int,int]", "offset", "translation", "vector", "shape", "size"})
_SHAPE_WORDS = frozenset({"shape", "size", "dims", "dimensions"})
_OFFSET_WORDS = frozenset({"offset", "shift", "delta", "translation", "displacement", "vector", "move"})


@dataclass(frozen=True)
class Slot:
    """One parameter after the grid: how a call passes it (`keyword` "" = by position, for a
    required one) and what fills it: `kind` int, color, bool, choices (the `fixed` values),
    or mapping, shape, offset (inferred from the train pairs)."""

    keyword: str
    required: bool
    kind: str
    fixed: tuple = ()

    def values(self, facts: TaskValues) -> list[Any]:
        """The values to try on a task with these facts."""
        if self.kind == "int":
            return list(dict.fromkeys(self.fixed + facts.factors))
        if self.kind == "color":
            return list(facts.colors)
        inferred = {"mapping": facts.mapping, "shape": facts.shape, "offset": facts.offset}
        if self.kind in inferred:
            return [inferred[self.kind]] if inferred[self.kind] else []
        return list(self.fixed)


@dataclass(frozen=True)
class ProbeSpec:
    """How one concept's helper is probed: the same on every task (made once per revision)."""

    concept_id: int
    helper: str
    slots: tuple[Slot, ...]

    def calls(self, facts: TaskValues) -> list[str]:
        """Every combination of the required parameters' values (optional ones too, while the
        combinations stay few), as calls a program writes."""
        choices: list[tuple[str, list[Any]]] = []
        size = 1
        for slot in self.slots:
            values = slot.values(facts)
            if slot.required:
                if not values:
                    return []                  # a required parameter this task cannot fill
            elif not values or size * len(values) > MAX_CALLS_PER_HELPER:
                continue                       # an optional one: left at its default
            size *= len(values)
            choices.append((slot.keyword, values))
        if size > MAX_CALLS_PER_HELPER:
            return []
        calls = []
        for combo in itertools.product(*(values for _, values in choices)):
            args = ["grid"] + [f"{kw}={v!r}" if kw else repr(v) for (kw, _), v in zip(choices, combo)]
            calls.append(f"{self.helper}({', '.join(args)})")
        return calls



def _kind(name: str, typing: str | None) -> tuple[str, tuple] | None:
    """(kind, fixed values) of a parameter of this name and typing, None when nothing fills it."""
    typing = (typing or "").strip().lower()
    if typing == "int":
        return "int", INTS
    if typing in ("color", "colour"):
        return "color", ()
    if typing == "bool":
        return "bool", (True, False)
    words = [w.strip() for w in typing.split("|")]
    if len(words) >= 2 and all(w.isdigit() for w in words):
        return "choices", tuple(int(w) for w in words)
    if len(words) >= 2 and all(_WORD.match(w) and w not in _TYPE_WORDS for w in words):
        return "choices", tuple(words)
    compact = typing.replace(" ", "")
    if compact in _MAPPINGS:
        return "mapping", ()
    if compact in _PAIRS:
        said = set(re.split(r"[^a-z]+", name.lower())) | {compact}
        if said & _SHAPE_WORDS:
            return "shape", ()
        if said & _OFFSET_WORDS:
            return "offset", ()
    return None


def _parameters(source: str, name: str) -> tuple[list[str], int] | None:
    """(parameter names, how many are required) of function `name` in `source`."""
    try:
        tree = pyast.parse(source)
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


def probe_spec(concept: Any) -> ProbeSpec | None:
    """How the probe tries this concept's helper (a `Concept`, or anything with its id, helper,
    output_typing and parameters); None when it cannot: no helper, something other than a grid
    returned, the grid not first, a required parameter nothing fills."""
    helper = concept.helper
    if helper is None or (concept.output_typing or "").strip().lower() != "grid":
        return None                            # what it returns cannot be a task's output
    name = helper.name
    found = _parameters(helper.source, name)
    if found is None or not found[0]:
        return None
    names, required = found
    typings = {p.get("name"): p.get("typing") for p in concept.parameters or [] if isinstance(p, dict)}
    if (typings.get(names[0]) or "grid").strip().lower() != "grid":
        return None
    slots = []
    for position, param in enumerate(names[1:], start=1):
        kind = _kind(param, typings.get(param))
        if kind is None:
            if position < required:
                return None                    # a required parameter nothing fills
            continue                           # an optional one: left at its default
        slots.append(Slot(keyword="" if position < required else param, required=position < required,
                          kind=kind[0], fixed=kind[1]))
    return ProbeSpec(concept_id=concept.id, helper=name, slots=tuple(slots))


def candidate_calls(concept: Any, facts: TaskValues) -> list[str]:
    """The calls to try for one concept on a task with these facts."""
    spec = probe_spec(concept)
    return spec.calls(facts) if spec is not None else []


__all__ = ["INTS", "MAX_CALLS_PER_HELPER", "ProbeSpec", "Slot", "TaskValues", "candidate_calls", "probe_spec"]
