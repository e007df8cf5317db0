"""Whole-grid relations found from train pairs, and what they do for the lexical pre-filter."""

from __future__ import annotations

import pytest

from arcmemo.core.tasks import Pair, Task
from arcmemo.memory.store import Memory
from arcmemo.memory.views.lexical import rank_lexical
from arcmemo.selection import budget
from arcmemo.selection.relations import SYMMETRIES, whole_grid_relation
from benchmarks.synthetic import synthetic_concepts

A = ((1, 2, 3), (4, 5, 6))
B = ((7, 0, 0), (0, 8, 9))


def pairs(transform, *inputs):
    return tuple(Pair(g, transform(g)) for g in inputs)


@pytest.mark.parametrize("name", list(SYMMETRIES))
def test_each_symmetry_is_named(name):
    assert whole_grid_relation(pairs(SYMMETRIES[name], A, B)) == "output is the input " + name


def test_known_symmetries_by_hand():
    flip = (Pair(A, ((4, 5, 6), (1, 2, 3))),)
    assert "flipped upside down" in whole_grid_relation(flip)
    transposed = (Pair(A, ((1, 4), (2, 5), (3, 6))),)
    assert "transposed" in whole_grid_relation(transposed)
    clockwise = (Pair(A, ((4, 1), (5, 2), (6, 3))),)
    assert "90 degrees clockwise" in whole_grid_relation(clockwise)


def test_tiling_scaling_and_mirrored_tiling():
    tile = lambda g: tuple(r + r for r in g) * 2                                   # noqa: E731
    assert "repeated copies" in whole_grid_relation(pairs(tile, A, B))
    scale = lambda g: tuple(tuple(v for v in r for _ in range(3)) for r in g for _ in range(3))  # noqa: E731
    assert "scaled up 3x3" in whole_grid_relation(pairs(scale, A, B))
    mirrored = lambda g: tuple(r + r[::-1] for r in g)                             # noqa: E731
    assert "flipped or rotated" in whole_grid_relation(pairs(mirrored, A, B))


def test_no_relation_when_pairs_disagree_or_nothing_changes():
    flip, rotate = SYMMETRIES[next(iter(SYMMETRIES))], list(SYMMETRIES.values())[2]
    assert whole_grid_relation((Pair(A, flip(A)), Pair(B, rotate(B)))) is None
    assert whole_grid_relation((Pair(A, A), Pair(B, B))) is None
    recolor = (Pair(A, ((1, 2, 3), (4, 5, 9))),)
    assert whole_grid_relation(recolor) is None


def test_a_flip_puzzle_brings_the_reflect_concept_into_the_prefiltered_few(tmp_path):
    mem = Memory(tmp_path / "m.db")
    reflect = {"format": "ps", "name": "reflect grid", "kind": "routine", "routine_subtype": "grid manipulation",
               "output_typing": "grid", "description": "reflect the grid across an axis",
               "cues": ["output is a mirrored version of the input"]}
    mem.merge_many([(d, None) for d in synthetic_concepts(300) + [reflect]], actor="t")
    task = Task("flip", pairs(lambda g: g[::-1], A, B, ((3, 3, 0), (0, 1, 1), (2, 0, 0))), (A,))
    ranked = [c.name for c in rank_lexical(budget.describe_grids(task), mem.list("ps"))]
    assert ranked.index("reflect grid") < 5
