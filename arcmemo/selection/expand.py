"""`expand`: add graph neighbours of the chosen PS concepts (arcmemo.memory.views.links).

Two kinds of neighbour: routines whose output type fits a parameter of a chosen concept
(they may supply its value), and concepts used in the same tasks as a chosen one.
Generic typings ("grid", "int") link almost everything, so a type link counts 1/n where
n is the number of routines producing that typing; a co-usage link counts its number of
shared tasks. The best `limit` candidates are added.

The neighbours come from the memory's link index (Library.links, kept per revision), so
expanding costs what the chosen concepts' neighbours hold, not the whole graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from arcmemo.memory.views.links import LinkIndex


def expand_neighbours(concepts: Sequence, chosen: Sequence, limit: int, links: LinkIndex | None = None) -> list:
    """Up to `limit` concepts (from `concepts`, not in `chosen`) ranked as in the module docstring;
    `links`: the index of `concepts` when already built (LinkIndex.of(concepts) otherwise)."""
    if not chosen or limit <= 0:
        return []
    links = LinkIndex.of(concepts) if links is None else links
    picked = {c.name for c in chosen}
    score: dict[str, float] = defaultdict(float)
    for name in picked:
        if name not in links:
            continue
        for row in links.neighbours(name):
            other = row["name"]
            if other in picked:
                continue
            if row["kind"] == "co_usage":
                score[other] += row["weight"]
            elif row["direction"] == "in":
                score[other] += 1.0 / max(links.producers(row["typing"]), 1)
    best = sorted(score, key=lambda n: (-score[n], n))[:limit]
    return [links.concept(n) for n in best]
