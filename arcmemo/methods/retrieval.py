"""The stored items most like a new puzzle: the idf-weighted word overlap (memory/views/lexical.py)
of the puzzle's profile (task_profile.py) with the profile each item keeps of the puzzle it
came from. The index is built once per memory revision and format (on the memory's Library,
which a write replaces), so every task of a block ranks against the same one.
"""

from __future__ import annotations

from collections.abc import Callable

from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.views.lexical import LexicalIndex, Vocabulary
from arcmemo.memory.views.library import library


def _index(lib, key: str, text_of: Callable[[Concept], str]) -> LexicalIndex:
    def build() -> LexicalIndex:
        vocabulary = Vocabulary()
        return LexicalIndex(lib.concepts, [vocabulary.row(text_of(c)) for c in lib.concepts], vocabulary)

    return lib.kept(("retrieval index", key), build)


def most_similar(memory, format: str, query: str, k: int, text_of: Callable[[Concept], str], *,
                 key: str, keep: Callable[[Concept], bool] = lambda c: True) -> tuple[list[tuple[Concept, float]], int]:
    """Up to `k` items of `format` that `keep` accepts, most similar to `query` first, with their
    scores; an item sharing no word with it is not similar. `text_of(item)` is what an item is
    matched by (`key` names that choice, for the cache). Also returns how many items there are."""
    lib = library(memory, format)
    if not lib.concepts:
        return [], 0
    index = _index(lib, key, text_of)
    scores = index.scores(query)
    found = []
    for position in index.rank(query):
        if len(found) == k or scores[position] <= 0:
            break
        concept = index.concepts[position]
        if keep(concept):
            found.append((concept, float(scores[position])))
    return found, len(lib.concepts)


__all__ = ["most_similar"]
