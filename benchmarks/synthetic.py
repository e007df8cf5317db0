"""Synthetic PS concepts of realistic size, for the token-budget tests and benchmarks/selection.py.

Deterministic for a given seed. Each concept looks like one of ArcMemo's released
concepts: a name of two or three ARC words, a description, a few typed parameters, a
handful of relevance cues and implementation notes.
"""

from __future__ import annotations

import random

VERBS = ["recolor", "extract", "crop", "tile", "mirror", "rotate", "fill", "draw", "count", "sort",
         "move", "stack", "overlay", "split", "extend", "connect", "scale", "trace", "mask", "select"]
NOUNS = ["object", "region", "line", "border", "pixel", "pattern", "rectangle", "container", "hole",
         "column", "row", "diagonal", "corner", "frame", "cluster", "shape", "segment", "block", "path", "grid"]
QUALIFIERS = ["largest", "smallest", "enclosed", "isolated", "symmetric", "repeated", "noisy", "adjacent",
              "outlined", "striped", "sparse", "dense", "central", "marked", "partial", "aligned"]
TYPES = ["grid", "object", "list[object]", "color", "int", "bool", "position", "direction", "region",
         "color mapping", "Callable[[object], bool]", "dict[color, int]"]
CUE_TEMPLATES = [
    "{q} {n}s in the input change {v2} in the output",
    "output contains {q} {n}s that are not in the input",
    "the {n} is {q} and the rest of the grid is background",
    "count of {n}s decides the output colour",
    "a {q} {n} marks where to {v} next",
    "output size equals the size of the {q} {n}",
]
IMPL_TEMPLATES = [
    "find {n}s with connected components and keep the {q} one",
    "iterate over {n}s and {v} each in place",
    "use numpy slicing to {v} the {n}",
]


def synthetic_concepts(n: int, seed: int = 0) -> list[dict]:
    """n PS concept dicts (data shape of contracts.md) with unique names."""
    rng = random.Random(seed)
    out, names = [], set()
    while len(out) < n:
        v, q, noun = rng.choice(VERBS), rng.choice(QUALIFIERS), rng.choice(NOUNS)
        name = f"{v} {q} {noun}"
        if name in names:
            name = f"{name} {len(out)}"
        names.add(name)
        fill = dict(v=v, v2=rng.choice(VERBS) + "ed", q=q, n=noun)
        kind = "structure" if rng.random() < 0.2 else "routine"
        data = {
            "format": "ps", "name": name, "kind": kind,
            "description": f"{v} the {q} {noun} of a grid, keeping everything else unchanged",
            "cues": [t.format(**fill) for t in rng.sample(CUE_TEMPLATES, rng.randint(2, 4))],
            "implementation": [t.format(**fill) for t in rng.sample(IMPL_TEMPLATES, rng.randint(1, 2))],
            "used_in": [f"{rng.getrandbits(32):08x}" for _ in range(rng.randint(1, 3))],
        }
        if kind == "routine":
            data["routine_subtype"] = rng.choice(["grid manipulation", "intermediate", "selection criteria"])
            data["output_typing"] = rng.choice(TYPES)
            data["parameters"] = [
                {"name": rng.choice(NOUNS) + f" {i}", "typing": rng.choice(TYPES),
                 "description": f"the {rng.choice(QUALIFIERS)} {rng.choice(NOUNS)} to use"}
                for i in range(rng.randint(1, 3))
            ]
        out.append(data)
    return out
