"""Match the concept names a model wrote back to the concepts it was shown.

Models paraphrase: they change case, drop or add punctuation, swap `_`/`-` for spaces,
wrap names in quotes or backticks, and sometimes misspell a letter or two. A name is
matched in order of confidence: exact, normalised (case/whitespace/punctuation),
spaceless, then the unique nearest name within a small edit distance. Anything else is
reported back as unmatched, never silently dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

_PUNCT = re.compile(r"[^\w\s]|_", re.UNICODE)
_SPACE = re.compile(r"\s+")
_PREFIX = re.compile(r"^(concept|name)\s*:\s*", re.IGNORECASE)
# The compressed library shows `name(param: type, ...) -> output`; models copy the whole line.
_SIGNATURE = re.compile(r"\s*(\(.*|->.*)$", re.DOTALL)


def normalise(name: str) -> str:
    """Lowercase, punctuation and underscores to spaces, whitespace collapsed."""
    text = _PREFIX.sub("", str(name).strip())
    text = _PUNCT.sub(" ", text.lower())
    return _SPACE.sub(" ", text).strip()


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
    """Edit distance between a and b, or limit + 1 as soon as it must exceed limit.

    Only the band of cells within `limit` of the diagonal is computed (a path outside it
    costs more than `limit`), so a near-miss check is cheap even against many names."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    if len(a) > len(b):
        a, b = b, a
    over = limit + 1
    previous = [min(i, over) for i in range(len(a) + 1)]
    for j, cb in enumerate(b, 1):
        current = [over] * (len(a) + 1)
        current[0] = best = min(j, over)
        for i in range(max(1, j - limit), min(len(a), j + limit) + 1):
            current[i] = min(previous[i] + 1, current[i - 1] + 1, previous[i - 1] + (a[i - 1] != cb), over)
            best = min(best, current[i])
        if best > limit:
            return over
        previous = current
    return previous[-1]


@dataclass
class MatchResult:
    """ids in the order the model gave them (duplicates removed); names that matched nothing."""

    ids: list[int] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    fuzzy: dict[str, str] = field(default_factory=dict)  # written name -> concept name, near-misses only


class NameMatcher:
    """An index over (id, name) pairs for repeated robust look-ups."""

    def __init__(self, items: Iterable[tuple[int, str]]):
        self._exact: dict[str, int] = {}
        self._norm: dict[str, list[int]] = {}
        self._compact: dict[str, list[int]] = {}
        self._names: dict[int, str] = {}
        for cid, name in items:
            self._names[cid] = name
            self._exact.setdefault(name, cid)
            norm = normalise(name)
            self._norm.setdefault(norm, []).append(cid)
            self._compact.setdefault(norm.replace(" ", ""), []).append(cid)

    def lookup(self, written: str) -> tuple[int | None, bool]:
        """(concept id or None, whether the match was a near-miss)."""
        cid, near = self._lookup(written)
        if cid is None:
            bare = _SIGNATURE.sub("", str(written).strip().strip("`'\"")).strip()
            if bare and bare != str(written).strip():
                cid, near = self._lookup(bare)
        return cid, near

    def _lookup(self, written: str) -> tuple[int | None, bool]:
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
        if limit == 0:
            return None, False
        best: list[str] = []
        best_d = limit + 1
        for candidate in self._norm:
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
        for written in written_names:
            cid, near = self.lookup(written)
            if cid is None:
                if str(written) not in result.unmatched:
                    result.unmatched.append(str(written))
                continue
            if near:
                result.fuzzy[str(written)] = self._names[cid]
            if cid not in result.ids:
                result.ids.append(cid)
        return result


def match_names(written_names: Sequence[str], concepts: Iterable) -> MatchResult:
    """Match names written by a model against concepts (anything with .id and .name)."""
    return NameMatcher((c.id, c.name) for c in concepts).match(written_names)
