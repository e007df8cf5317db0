"""Match the concept names a model wrote back to the concepts it was shown.

Models paraphrase: they change case, drop or add punctuation, swap `_`/`-` for spaces,
wrap names in quotes or backticks, and sometimes misspell a letter or two. A name is
matched in order of confidence: exact, normalised (case/whitespace/punctuation),
spaceless, then the unique nearest name within a small edit distance. Anything else is
reported back as unmatched, never silently dropped.

The work is linear in the answer: a name written again is looked up once, the
near-miss search only compares names of about the same length, and once an answer has
MAX_NEAR_MISS_SEARCHES names that matched nothing, its further names must match exactly
or after normalising (an answer of thousands of made-up names costs no more than 20).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

_PUNCT = re.compile(r"[^\w\s]|_", re.UNICODE)
_SPACE = re.compile(r"\s+")
_PREFIX = re.compile(r"^(concept|name)\s*:\s*", re.IGNORECASE)
MAX_NEAR_MISS_SEARCHES = 20
# The compressed library shows `name(param: type, ...) -> output`; models copy the whole line.
_SIGNATURE = re.compile(r"\s*(\(.*|->.*)$", re.DOTALL)


@lru_cache(maxsize=1 << 16)     # a memory's names are normalised again for every prefiltered matcher
def normalise(name: str) -> str:
    """Lowercase, punctuation and underscores to spaces, whitespace collapsed."""
    text = _PREFIX.sub("", str(name).strip())
    text = _PUNCT.sub(" ", text.lower())
    return _SPACE.sub(" ", text).strip()


def name_keys(name: str) -> tuple[str, str, frozenset[str]]:
    """What a NameMatcher indexes a name by: its normalised form, that without spaces, and the
    normalised form's characters (a memory keeps these per concept: library.column)."""
    norm = normalise(name)
    return norm, norm.replace(" ", ""), frozenset(norm)


def max_distance(name: str) -> int:
    """How many edits still count as a near-miss: 0 for very short names, up to 3."""
    n = len(name)
    if n <= 4:
        return 0
    if n <= 8:
        return 1
    if n <= 20:
        return 2
    return 3


def bounded_levenshtein(a: str, b: str, limit: int) -> int:
    """Edit distance between a and b, or limit + 1 as soon as it must exceed limit (only the
    diagonal band of width 2 * limit + 1 is computed)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    if len(a) > len(b):
        a, b = b, a
    n, over = len(a), limit + 1
    previous = [i if i <= limit else over for i in range(n + 1)]
    for j, cb in enumerate(b, 1):
        current = [over] * (n + 1)
        current[0] = best = j if j <= limit else over
        for i in range(max(1, j - limit), min(n, j + limit) + 1):
            value = previous[i - 1] + (a[i - 1] != cb)      # min() of three, written out: the hot loop
            if previous[i] < value:
                value = previous[i] + 1
            if current[i - 1] < value:
                value = current[i - 1] + 1
            current[i] = value
            if value < best:
                best = value
        if best > limit:
            return over
        previous = current
    return min(previous[n], over)


@dataclass
class MatchResult:
    """ids in the order the model gave them (duplicates removed); names that matched nothing."""

    ids: list[int] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    fuzzy: dict[str, str] = field(default_factory=dict)  # written name -> concept name, near-misses only


class NameMatcher:
    """An index over (id, name) pairs for repeated robust look-ups; `keys`: each pair's
    name_keys, when already known (built for every task's prefiltered few, it is the hot part)."""

    def __init__(self, items: Iterable[tuple[int, str]], keys: Iterable[tuple[str, str, frozenset[str]]] | None = None):
        self._exact: dict[str, int] = {}
        self._norm: dict[str, list[int]] = {}
        self._compact: dict[str, list[int]] = {}
        self._names: dict[int, str] = {}
        self._by_length: dict[int, list[str]] = {}   # normalised names by length, for near misses
        self._chars: dict[str, frozenset[str]] = {}    # and their characters (each edit changes at most 2)
        self._seen: dict[tuple[str, bool], tuple[int | None, bool]] = {}
        items = list(items)
        for (cid, name), (norm, compact, chars) in zip(items, keys or (name_keys(name) for _, name in items)):
            self._names[cid] = name
            self._exact.setdefault(name, cid)
            if norm not in self._norm:
                self._by_length.setdefault(len(norm), []).append(norm)
                self._chars[norm] = chars
            self._norm.setdefault(norm, []).append(cid)
            self._compact.setdefault(compact, []).append(cid)

    def lookup(self, written: str, near_misses: bool = True) -> tuple[int | None, bool]:
        """(concept id or None, whether the match was a near-miss)."""
        key = (str(written), near_misses)
        if key not in self._seen:
            cid, near = self._lookup(key[0], near_misses)
            if cid is None:
                bare = _SIGNATURE.sub("", key[0].strip().strip("`'\"")).strip()
                if bare and bare != key[0].strip():
                    cid, near = self._lookup(bare, near_misses)
            self._seen[key] = (cid, near)
        return self._seen[key]

    def _lookup(self, written: str, near_misses: bool) -> tuple[int | None, bool]:
        written = str(written).strip().strip("`'\"").strip()
        if written in self._exact:
            return self._exact[written], False
        norm = normalise(written)
        if not norm:
            return None, False
        for table, key in ((self._norm, norm), (self._compact, norm.replace(" ", ""))):
            hits = table.get(key, [])
            if len(hits) == 1:
                return hits[0], False
            if len(hits) > 1:
                return None, False  # ambiguous after normalising: report, don't guess
        limit = max_distance(norm)
        if limit == 0 or not near_misses:
            return None, False
        best: list[str] = []
        best_d = limit + 1
        chars = frozenset(norm)
        candidates = (c for n in range(len(norm) - limit, len(norm) + limit + 1) for c in self._by_length.get(n, ())
                      if len(chars ^ self._chars[c]) <= 2 * limit)
        for candidate in candidates:
            d = bounded_levenshtein(norm, candidate, min(limit, best_d))
            if d < best_d:
                best, best_d = [candidate], d
            elif d == best_d and d <= limit:
                best.append(candidate)
        if best_d <= limit and len(best) == 1 and len(self._norm[best[0]]) == 1:
            return self._norm[best[0]][0], True
        return None, False

    def match(self, written_names: Sequence[str]) -> MatchResult:
        result = MatchResult()
        ids: set[int] = set()
        unmatched: set[str] = set()
        for written in map(str, written_names):
            cid, near = self.lookup(written, near_misses=len(unmatched) < MAX_NEAR_MISS_SEARCHES)
            if cid is None:
                if written not in unmatched:
                    unmatched.add(written)
                    result.unmatched.append(written)
                continue
            if near:
                result.fuzzy[written] = self._names[cid]
            if cid not in ids:
                ids.add(cid)
                result.ids.append(cid)
        return result


class ExactFirst:
    """A NameMatcher of the names `shown` (ids), made only when needed: an answer whose names
    are all, exactly, names of concepts shown (what a model usually writes) is read from
    `names` (name -> id of the whole library, kept per revision); any other answer is matched
    by the full matcher `make()` builds, with the same result either way."""

    def __init__(self, names: Mapping[str, int], shown: set[int], make: Callable[[], NameMatcher]):
        self.names, self.shown, self.make = names, shown, make
        self._full: NameMatcher | None = None

    def match(self, written_names: Sequence[str]) -> MatchResult:
        ids: dict[int, None] = {}
        for written in map(str, written_names):
            cid = self.names.get(written)
            if cid is None or cid not in self.shown:
                if self._full is None:
                    self._full = self.make()
                return self._full.match(written_names)
            ids[cid] = None
        return MatchResult(ids=list(ids))


def match_names(written_names: Sequence[str], concepts: Iterable) -> MatchResult:
    """Match names written by a model against concepts (anything with .id and .name)."""
    return NameMatcher((c.id, c.name) for c in concepts).match(written_names)
