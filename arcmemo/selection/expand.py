"""`expand`: add graph neighbours of the chosen PS concepts (arcmemo.memory.graph).

Two kinds of neighbour: routines whose output type fits a parameter of a chosen concept
(they may supply its value), and concepts used in the same tasks as a chosen one.
Generic typings ("grid", "int") link almost everything, so a type link counts 1/n where
n is the number of routines producing that typing; a co-usage link counts its number of
shared tasks. The best `limit` candidates are added.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from arcmemo.memory.graph import build_graph, neighbours


def expand_neighbours(concepts: Sequence, chosen: Sequence, limit: int, graph=None) -> list:
    """Up to `limit` concepts (from `concepts`, not in `chosen`) ranked as in the module docstring;
    `graph`: build_graph(concepts) when already built."""
    if not chosen or limit <= 0:
        return []
    graph = build_graph(concepts) if graph is None else graph
    producers: Counter = Counter()
    seen = set()
    for source, _, attrs in graph.edges(data=True):
        if attrs["kind"] == "type" and (source, attrs["typing"]) not in seen:
            seen.add((source, attrs["typing"]))
            producers[attrs["typing"]] += 1
    picked = {c.name for c in chosen}
    score: dict[str, float] = defaultdict(float)
    for name in picked:
        if name not in graph:
            continue
        for row in neighbours(graph, name):
            other = row["name"]
            if other in picked:
                continue
            if row["kind"] == "co_usage":
                score[other] += row["weight"]
            elif row["direction"] == "in":
                score[other] += 1.0 / max(producers[row["typing"]], 1)
    best = sorted(score, key=lambda n: (-score[n], n))[:limit]
    by_name = {c.name: c for c in concepts}
    return [by_name[n] for n in best]
