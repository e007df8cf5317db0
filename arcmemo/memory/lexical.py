"""Ranking concepts by the words they share with a text (a puzzle description, a caption, a
solution being written up): idf-weighted overlap of stemmed words, so a shared rare word
counts for much and "grid" or "color" for little.

A `LexicalIndex` holds every concept's word set and each word's document frequency, built
once for a memory revision from word sets kept per concept (see library.py); ranking a
query against it is one sparse matrix-vector product. numpy and scipy are imported when an
index is first built: a solve whose selection ranks nothing does not start them up.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

_WORD = re.compile(r"[a-z]+")
STOPWORDS = frozenset(
    "a an the of to in on at by for with and or is are be it its this that these those as from into "
    "if then than when where which each every all any some no not only same other one two there their "
    "may might can could should would will was were has have had do does use used using like e g eg "
    "such via per more most less".split()
)


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def terms(text: str) -> list[str]:
    """The stemmed content words of `text`, in order."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]


def concept_text(concept) -> str:
    """The words of a concept a lexical match looks at: name, description, situation,
    suggestion, routine subtype and cues."""
    parts = [getattr(concept, f, None) or "" for f in ("name", "description", "situation", "suggestion",
                                                         "routine_subtype")]
    parts.extend(getattr(concept, "cues", None) or [])
    return " ".join(str(p) for p in parts)


class Vocabulary:
    """Word -> column of the index matrix; only grows, so a concept's columns, once looked
    up, stay valid for every later index sharing this vocabulary (library.py)."""

    def __init__(self):
        self.columns: dict[str, int] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.columns)

    def row(self, text: str) -> np.ndarray:
        """The columns of the distinct words of `text`."""
        import numpy as np

        with self._lock:
            return np.array([self.columns.setdefault(w, len(self.columns)) for w in set(terms(text))],
                            dtype=np.int64)


class LexicalIndex:
    """The word sets of `concepts` (fixed order) as rows of a sparse matrix, and each word's
    document frequency. `rows`: each concept's columns in `vocabulary`, and `ties`: each
    one's (uses, id), if already known."""

    def __init__(self, concepts: Sequence, rows: Sequence[np.ndarray] | None = None,
                 vocabulary: Vocabulary | None = None, ties: Sequence[tuple[int, int]] | None = None):
        import numpy as np
        from scipy import sparse

        self.concepts = list(concepts)
        self.vocabulary = vocabulary if vocabulary is not None else Vocabulary()
        if rows is None:
            rows = [self.vocabulary.row(concept_text(c)) for c in self.concepts]
        width = len(self.vocabulary)
        columns = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum([len(r) for r in rows], dtype=np.int64)))
        self.matrix = sparse.csr_matrix((np.ones(len(columns)), columns, starts), shape=(len(self.concepts), width))
        self.document_frequency = np.bincount(columns, minlength=width)
        if ties is None:
            ties = [tie(c) for c in self.concepts]
        uses, ids = np.array(ties, dtype=np.int64).reshape(len(self.concepts), 2).T
        self._usage, self._ids = -uses, np.where(ids < 0, np.arange(len(self.concepts)), ids)

    def scores(self, query: str) -> np.ndarray:
        """Per concept, the summed idf of the query words it contains (0 when none)."""
        import numpy as np

        width = self.matrix.shape[1]
        weights = np.zeros(width)
        n = max(len(self.concepts), 1)
        for term in set(terms(query)):
            column = self.vocabulary.columns.get(term, width)
            if column < width:                    # words added to the vocabulary later occur in no row here
                weights[column] = math.log((n + 1) / (self.document_frequency[column] + 0.5))
        return self.matrix @ weights

    def rank(self, query: str) -> list[int]:
        """Positions of the concepts, best match first; ties by usage, then id."""
        import numpy as np

        return np.lexsort((self._ids, self._usage, -self.scores(query))).tolist()


def tie(concept) -> tuple[int, int]:
    """What orders concepts that match a query equally: the more used first, then by id
    (-1: none, then by position)."""
    concept_id = getattr(concept, "id", None)
    return len(getattr(concept, "used_in", None) or []), -1 if concept_id is None else concept_id


def rank_lexical(query: str, concepts: Sequence) -> list:
    """`concepts` ordered by their match with `query` (a one-off LexicalIndex)."""
    index = LexicalIndex(concepts)
    return [index.concepts[i] for i in index.rank(query)]


__all__ = ["terms", "concept_text", "Vocabulary", "LexicalIndex", "rank_lexical", "STOPWORDS"]
