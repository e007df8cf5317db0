"""Candidates by words and types: concepts that say much the same and take and give the same.

Two concepts of one format are a candidate pair when their typings agree (PS: the same output
typing and the same set of parameter typings, compared without case or extra spaces; other
formats have none) and their words overlap strongly: of the stemmed words of the shorter one's
name, description, situation, suggestion and cues (lexical.py's words), the share the other
one has too, each word weighted by its idf (lexical.py's weights: a shared rare word counts for
much, "grid" for little). A share, not a Jaccard overlap, because a concept written with many
cues says much besides what a terse duplicate of it says. Measured on the shipped memory (no
duplicates) and a model-written duplicate of its "color mapping": no pair of the memory whose
typings agree reaches MIN_OVERLAP but one (rotate grid / scale grid, 0.32: their helpers tell
them apart), the duplicate 0.37 (its Jaccard overlap: 0.11). A pair is only a candidate: the
aux model judges it (judge.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from arcmemo.consolidation import MIN_OVERLAP
from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.views.lexical import LexicalIndex


@dataclass(frozen=True)
class WordPair:
    """Two concepts whose typings agree and whose words overlap by `overlap` (0..1)."""

    first: Concept
    second: Concept
    overlap: float


def _typing(text: str | None) -> str:
    return " ".join((text or "").lower().split())


def typing_key(concept: Concept) -> tuple:
    """What must agree between two concepts of a pair: PS output typing and parameter typings."""
    if concept.format != "ps":
        return ()
    return _typing(concept.output_typing), frozenset(_typing(p.get("typing")) for p in concept.parameters)


def word_pairs(concepts: Sequence[Concept], min_overlap: float = MIN_OVERLAP) -> list[WordPair]:
    """The candidate pairs among `concepts` (each format on its own), the strongest overlap first."""
    pairs = []
    for fmt in dict.fromkeys(c.format for c in concepts):
        same_format = [c for c in concepts if c.format == fmt]
        index = LexicalIndex(same_format)
        n = max(len(same_format), 1)
        weights = np.log((n + 1) / (index.document_frequency + 0.5))     # the idf LexicalIndex.scores ranks by
        blocks: dict[tuple, list[int]] = {}
        for i, c in enumerate(same_format):
            blocks.setdefault(typing_key(c), []).append(i)
        for members in (b for b in blocks.values() if len(b) > 1):
            rows = index.matrix[members]
            size = rows @ weights
            shared = sparse.triu(rows @ sparse.diags(weights) @ rows.T, k=1).tocoo()   # pairs sharing a word
            overlap = shared.data / np.minimum(size[shared.row], size[shared.col])
            for a, b, value in zip(shared.row, shared.col, overlap):
                if value >= min_overlap:
                    pairs.append(WordPair(same_format[members[a]], same_format[members[b]], float(value)))
    return sorted(pairs, key=lambda p: (-p.overlap, p.first.id, p.second.id))


__all__ = ["WordPair", "word_pairs", "typing_key", "MIN_OVERLAP"]
