"""networkx views of PS memory: which routines plug into which, and which concepts co-occur.

Nodes are concept names. Two kinds of edges in one MultiDiGraph (links.py defines them):
- `type`: routine A -> concept B when A's output typing can feed a parameter of B;
- `co_usage`: A -> B (A's name sorts first) when both list a task in `used_in`;
  `weight` is the number of shared tasks.

The whole graph is for exporting it (`concepts graph --graphml`): it has an edge per
producer-consumer pair of a common typing, quadratic in memory size. One concept's
neighbours come from links.LinkIndex, which gives the same rows without building it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from pathlib import Path

import networkx as nx

from arcmemo.memory.errors import UnknownConcept
from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.views.links import alternatives, describe_link, sort_key


def build_graph(concepts: Iterable[Concept]) -> nx.MultiDiGraph:
    concepts = sorted((c for c in concepts if c.format == "ps"), key=lambda c: c.name)
    graph = nx.MultiDiGraph()
    for c in concepts:
        graph.add_node(c.name, id=c.id or 0, kind=c.kind or "", routine_subtype=c.routine_subtype or "",
                       output_typing=c.output_typing or "", uses=len(c.used_in or []))
    consumers: dict[str, list[tuple[str, str]]] = {}
    for c in concepts:
        for p in c.parameters or []:
            for alt in alternatives(p.get("typing")):
                consumers.setdefault(alt, []).append((c.name, p["name"]))
    for c in concepts:
        if c.kind == "structure":
            continue
        linked = set()
        for alt in sorted(alternatives(c.output_typing)):
            for target, param in consumers.get(alt, []):
                if target != c.name and (target, alt) not in linked:
                    linked.add((target, alt))
                    graph.add_edge(c.name, target, key=f"type:{alt}", kind="type", typing=alt, parameter=param)
    tasks: dict[str, list[str]] = {}
    for c in concepts:
        for task in dict.fromkeys(c.used_in or []):
            tasks.setdefault(task, []).append(c.name)
    shared: dict[tuple[str, str], int] = {}
    for names in tasks.values():
        for a, b in itertools.combinations(sorted(set(names)), 2):
            shared[(a, b)] = shared.get((a, b), 0) + 1
    for (a, b), weight in sorted(shared.items()):
        graph.add_edge(a, b, key="co_usage", kind="co_usage", weight=weight)
    return graph


def neighbours(graph: nx.MultiDiGraph, name: str) -> list[dict]:
    """Every edge touching `name`: {name, kind, direction ('out'|'in'|'both'), typing, parameter, weight}."""
    if name not in graph:
        raise UnknownConcept(f"no ps concept named {name!r} in the graph")
    rows = []
    for _, other, attrs in graph.out_edges(name, data=True):
        rows.append(_row(other, attrs, "out"))
    for other, _, attrs in graph.in_edges(name, data=True):
        rows.append(_row(other, attrs, "in"))
    return sorted(rows, key=sort_key)


def _row(other: str, attrs: dict, direction: str) -> dict:
    if attrs["kind"] == "co_usage":
        direction = "both"
    return {"name": other, "kind": attrs["kind"], "direction": direction, "typing": attrs.get("typing", ""),
            "parameter": attrs.get("parameter", ""), "weight": attrs.get("weight", 1)}


def write_graphml(graph: nx.MultiDiGraph, path: str | Path) -> None:
    nx.write_graphml(graph, str(path))


__all__ = ["build_graph", "neighbours", "describe_link", "write_graphml"]
