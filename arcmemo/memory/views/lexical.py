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
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

_WORD = re.compile(r"[a-z]+")
FIRST_READ = 256        # a Ranking's first partition: about what a prompt of thousands of concepts shows
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


@lru_cache(maxsize=1 << 16)     # a memory's words repeat: indexing thousands of concepts looks each up once
def _term(word: str) -> str | None:
    """The stem of a content word; None for a stopword or a single letter."""
    return None if word in STOPWORDS or len(word) < 2 else _stem(word)


def terms(text: str) -> list[str]:
    """The stemmed content words of `text`, in order."""
    return [t for t in map(_term, _WORD.findall(text.lower())) if t is not None]


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
    one's (uses, id), if already known. `patched` makes the index of a revision a write
    changed a few concepts of from this one, as a fresh build would make it."""

    def __init__(self, concepts: Sequence, rows: Sequence[np.ndarray] | None = None,
                 vocabulary: Vocabulary | None = None, ties: Sequence[tuple[int, int]] | None = None):
        import numpy as np

        concepts = concepts if isinstance(concepts, (list, tuple)) else list(concepts)
        vocabulary = vocabulary if vocabulary is not None else Vocabulary()
        if rows is None:
            rows = [vocabulary.row(concept_text(c)) for c in concepts]
        columns = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum([len(r) for r in rows], dtype=np.int64)))
        if ties is None:
            ties = [tie(c) for c in concepts]
        uses, ids = np.array(ties, dtype=np.int64).reshape(len(concepts), 2).T
        self._build(concepts, vocabulary, columns, starts, np.bincount(columns, minlength=len(vocabulary)), uses, ids)

    def _build(self, concepts: Sequence, vocabulary: Vocabulary, columns: np.ndarray, starts: np.ndarray,
               document_frequency: np.ndarray, uses: np.ndarray, ids: np.ndarray) -> None:
        import numpy as np
        from scipy import sparse

        self.concepts, self.vocabulary = concepts, vocabulary
        n = len(concepts)
        self.matrix = sparse.csr_matrix((np.ones(len(columns)), columns, starts), shape=(n, len(vocabulary)))
        self.document_frequency = document_frequency
        self._uses, self._ids = uses, ids
        # each position's place in the tie order (the more used first, then by id), once per index
        self._tie_rank = np.empty(n, dtype=np.int64)
        self._tie_rank[np.lexsort((np.where(ids < 0, np.arange(n), ids), -uses))] = np.arange(n)

    def patched(self, concepts: Sequence, changes: Mapping[int, tuple[np.ndarray, tuple[int, int]]]) -> LexicalIndex:
        """The index of `concepts`: these concepts with the ones at `changes`' positions (row,
        tie) replaced, and any past their end appended. The matrix is spliced, not rebuilt row
        by row: a write changes one concept of thousands."""
        import numpy as np

        n, before, width = len(concepts), len(self.concepts), len(self.vocabulary)
        if not set(range(before, n)) <= changes.keys() or any(i >= n for i in changes):
            raise ValueError(f"patched: positions {before}..{n - 1} are new and must all be given, and none past them")
        starts, columns = self.matrix.indptr, self.matrix.indices
        lengths = np.zeros(n, dtype=np.int64)
        lengths[:before] = np.diff(starts)
        frequency = np.zeros(width, dtype=np.int64)
        frequency[:len(self.document_frequency)] = self.document_frequency
        uses, ids = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        uses[:before], ids[:before] = self._uses, self._ids
        pieces, cursor = [], 0
        for i in sorted(changes):
            upto = min(i, before)
            pieces.append(columns[starts[cursor]:starts[upto]])     # the unchanged rows up to this one
            if i < before:
                np.subtract.at(frequency, columns[starts[i]:starts[i + 1]], 1)
                upto = i + 1
            cursor = upto
            row, (uses[i], ids[i]) = changes[i]
            pieces.append(row)
            lengths[i] = len(row)
            np.add.at(frequency, row, 1)
        pieces.append(columns[starts[cursor]:starts[before]])
        index = LexicalIndex.__new__(LexicalIndex)
        index._build(concepts, self.vocabulary, np.concatenate(pieces).astype(np.int64, copy=False),
                     np.concatenate(([0], np.cumsum(lengths))), frequency, uses, ids)
        return index

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

    def rank(self, query: str) -> Ranking:
        """Positions of the concepts, best match first; ties by usage, then id."""
        return Ranking(self.scores(query), self._tie_rank)


class Ranking(Sequence):
    """Positions by descending score, ties in a fixed order (`tie_rank`: each position's place
    in it), sorted only as far as they are read: a prompt shows the first few hundred of a
    memory of thousands. The first k are found by partition, k doubling as readers go on."""

    def __init__(self, scores: np.ndarray, tie_rank: np.ndarray):
        self._scores, self._tie_rank = scores, tie_rank
        self._first: list[int] = []

    def __len__(self) -> int:
        return len(self._scores)

    def __getitem__(self, item):
        if isinstance(item, slice):
            stop = len(self) if item.stop is None or item.stop < 0 or (item.step or 1) < 0 else item.stop
        else:
            stop = len(self) if item < 0 else item + 1
        if stop > len(self._first):
            self._first = self._top(min(len(self), max(stop, 2 * len(self._first), FIRST_READ)))
        return self._first[item]

    def _top(self, k: int) -> list[int]:
        """The first k positions of the whole order."""
        import numpy as np

        negated, ties = -self._scores, self._tie_rank
        if k < len(self):
            kth = np.partition(negated, k - 1)[k - 1]          # the k-th best score
            better, tied = np.flatnonzero(negated < kth), np.flatnonzero(negated == kth)
            room = k - len(better)
            if room < len(tied):                                # the tied ones first in the tie order
                tied = tied[np.argpartition(ties[tied], room - 1)[:room]]
            chosen = np.concatenate((better, tied))
            return chosen[np.lexsort((ties[chosen], negated[chosen]))].tolist()
        return np.lexsort((ties, negated)).tolist()


def tie(concept) -> tuple[int, int]:
    """What orders concepts that match a query equally: the more used first, then by id
    (-1: none, then by position)."""
    concept_id = getattr(concept, "id", None)
    return len(getattr(concept, "used_in", None) or []), -1 if concept_id is None else concept_id


def rank_lexical(query: str, concepts: Sequence) -> list:
    """`concepts` ordered by their match with `query` (a one-off LexicalIndex)."""
    index = LexicalIndex(concepts)
    return [index.concepts[i] for i in index.rank(query)]


__all__ = ["terms", "concept_text", "Vocabulary", "LexicalIndex", "Ranking", "rank_lexical", "STOPWORDS"]
