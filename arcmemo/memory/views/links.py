"""One PS concept's neighbours without building the whole concept graph.

Two concepts are linked the way graph.py's whole graph links them:
- `type`: routine A -> concept B when an alternative of A's output typing equals an
  alternative of the typing of one of B's parameters (A's output can feed B). A structure
  feeds nothing. Typings are compared case-insensitively with whitespace collapsed; an
  inline definition `name := type` counts as `name`; `a | b` offers each alternative.
- `co_usage`: A and B both list a task in `used_in`; `weight` is how many they share.

The whole graph has an edge for every producer-consumer pair of a common typing ("grid"
links thousands of routines to thousands of parameters), so building it is quadratic in
memory size. `LinkIndex` keeps, instead, who produces and who consumes each typing and who
used each task: linear in memory size, built once per memory revision (`Library.links`) or
per command, and one concept's neighbours cost what the answer holds. Its rows are exactly
those of `graph.neighbours` on the whole graph (tests/test_graph.py compares them).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from arcmemo.memory.errors import UnknownConcept
from arcmemo.memory.schema.concept import split_custom_type

_ORDER = {"type": 0, "co_usage": 1}


@lru_cache(maxsize=4096)
def alternatives(typing: str | None) -> frozenset[str]:
    """Top-level `|` alternatives of a typing string, normalised; `name := def` -> {name}."""
    if not typing:
        return frozenset()
    defined = split_custom_type(typing)
    text = defined[0] if defined else typing
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "|" and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return frozenset({re.sub(r"\s+", " ", p).strip().lower() for p in parts if p.strip()} - {"any", "none"})


class Linked(NamedTuple):
    """The fields of a PS concept its links are made of (what `ConceptReads.links` reads)."""

    id: int
    name: str
    kind: str | None
    output_typing: str | None
    parameters: list
    used_in: list


@dataclass(frozen=True)
class ConceptLinks:
    """What links one PS concept to others: the typings it produces, the typings it consumes
    (each with the first parameter taking it), and the tasks it was used in."""

    concept: Any                            # the Concept (or Linked) these were read from
    produces: frozenset[str]
    consumes: tuple[tuple[str, str], ...]   # (typing, parameter name), one per typing
    tasks: tuple[str, ...]


def links_of(concept: Any) -> ConceptLinks:
    """A PS concept's links (`concept`: a Concept, or anything with Linked's fields)."""
    consumes: dict[str, str] = {}
    for param in concept.parameters or []:
        for alt in alternatives(param.get("typing")):
            consumes.setdefault(alt, param["name"])
    produces = frozenset() if concept.kind == "structure" else alternatives(concept.output_typing)
    return ConceptLinks(concept, produces, tuple(consumes.items()), tuple(dict.fromkeys(concept.used_in or [])))


def sort_key(row: dict) -> tuple:
    """The order neighbours are listed in: type links, then co-usage by weight."""
    return _ORDER[row["kind"]], -row["weight"], row["direction"], row["name"], row["typing"]


class LinkIndex:
    """Who produces and consumes each typing and who used each task, over one memory's PS
    concepts (module docstring)."""

    def __init__(self, links: Iterable[ConceptLinks]):
        self._by_name: dict[str, ConceptLinks] = {}
        self._producers: dict[str, list[str]] = {}
        self._consumers: dict[str, list[tuple[str, str]]] = {}
        self._users: dict[str, list[str]] = {}
        for link in links:
            name = link.concept.name
            self._by_name[name] = link
            for alt in link.produces:
                self._producers.setdefault(alt, []).append(name)
            for alt, param in link.consumes:
                self._consumers.setdefault(alt, []).append((name, param))
            for task in link.tasks:
                self._users.setdefault(task, []).append(name)

    @classmethod
    def of(cls, concepts: Iterable[Any]) -> LinkIndex:
        """The index of the PS concepts among `concepts`."""
        return cls(links_of(c) for c in concepts if c.format == "ps")

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def concept(self, name: str) -> Any:
        """The concept named `name` (KeyError when it is not in the index)."""
        return self._by_name[name].concept

    def neighbours(self, name: str) -> list[dict]:
        """Every link of `name`: {name, kind, direction ('out'|'in'|'both'), typing, parameter, weight},
        in `sort_key` order; UnknownConcept when no PS concept has that name."""
        mine = self._by_name.get(name)
        if mine is None:
            raise UnknownConcept(f"no ps concept named {name!r} in the graph")
        rows = []
        for alt in mine.produces:
            for other, param in self._consumers.get(alt, ()):
                if other != name:
                    rows.append(_row(other, "type", "out", alt, param, 1))
        for alt, param in mine.consumes:
            for other in self._producers.get(alt, ()):
                if other != name:
                    rows.append(_row(other, "type", "in", alt, param, 1))
        shared = Counter(other for task in mine.tasks for other in self._users[task] if other != name)
        rows += [_row(other, "co_usage", "both", "", "", weight) for other, weight in shared.items()]
        return sorted(rows, key=sort_key)

    def producers(self, typing: str) -> int:
        """How many concepts have a type link out with `typing`: those producing it that some
        other concept consumes (the whole graph's count of distinct sources of such edges)."""
        makers = self._producers.get(typing, ())
        takers = {name for name, _ in self._consumers.get(typing, ())}
        if len(takers) > 1:
            return len(makers)
        return sum(1 for maker in makers if takers - {maker})


def _row(name: str, kind: str, direction: str, typing: str, parameter: str, weight: int) -> dict:
    return {"name": name, "kind": kind, "direction": direction, "typing": typing, "parameter": parameter,
            "weight": weight}


def describe_link(name: str, row: dict) -> str:
    """A neighbour row of `name` as a sentence."""
    if row["kind"] == "co_usage":
        tasks = row["weight"]
        return f"{name!r} and {row['name']!r} were used together in {tasks} task{'s' if tasks != 1 else ''}"
    source, target = (row["name"], name) if row["direction"] == "in" else (name, row["name"])
    return f"{source!r} returns {row['typing']}, which {target!r} takes as its parameter {row['parameter']!r}"


__all__ = ["LinkIndex", "ConceptLinks", "Linked", "links_of", "alternatives", "sort_key", "describe_link"]
