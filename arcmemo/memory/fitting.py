"""The longest prefix of a ranked list of concepts whose prompt fits a token budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence


def fit_prefix(ranked: Sequence, fits: Callable[[Sequence], bool]) -> int:
    """The largest n such that fits(ranked[:n]) (fits must be monotone); 0 if none fit."""
    lo, hi = 0, len(ranked)
    if fits(ranked):
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(ranked[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo


def largest_fit(n_max: int, planned: Callable[[int], int], limit: int,
                actual: Callable[[int], int] | None = None) -> tuple[int, int]:
    """(n, tokens): the largest n <= n_max whose prompt of n items takes at most `limit`
    tokens, and its size (0 and its size when not even an empty one fits).

    `planned(n)` is a cheap non-decreasing count of that prompt summed from its parts;
    it is searched by doubling, so only about twice the answer's items are ever counted.
    `actual(n)` counts the prompt itself, for a tokenizer whose counts do not add up
    exactly (None: `planned` is exact). It is asked once when `planned` is close, and again
    after each shrink of the plan in proportion to the overshoot it reports.
    """
    hi = 1
    while hi <= n_max and planned(hi) <= limit:
        hi *= 2
    n = _largest(min(hi, n_max), planned, limit)
    size = planned(n) if actual is None else actual(n)
    while size > limit and n > 0:
        n = min(n - 1, _largest(n, planned, planned(n) * limit // size))
        size = actual(n)
    return n, size


def _largest(upto: int, planned: Callable[[int], int], bound: int) -> int:
    """The largest n <= upto with planned(n) <= bound (0 if none)."""
    return fit_prefix(range(upto), lambda prefix: planned(len(prefix)) <= bound)


__all__ = ["fit_prefix", "largest_fit"]
