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
                actual: Callable[[int], int] | None = None, tries: int = 4) -> tuple[int, int]:
    """(n, tokens): the largest n <= n_max whose prompt of n items takes at most `limit`
    tokens, and its size (0 and its size when not even an empty one fits).

    `planned(n)` is a cheap non-decreasing estimate of that prompt's size, searched by
    growing n by GROWTH, so only about 1.25 times the answer's items are ever sized. `actual(n)` is the
    model's own count of the prompt (None: `planned` is it). Each count corrects the plan by
    the ratio it shows (a tokenizer may count the same text a little, or for grids much,
    lower or higher than the estimate); after `tries` counts the best fitting prompt is
    kept, and when none fitted the count itself is bisected.
    """
    n = _largest(n_max, planned, limit)
    if actual is None:
        return n, planned(n)
    best, over = None, n_max + 1                        # the largest n that fitted, the smallest that did not
    for _ in range(tries):
        size = actual(n)
        if size <= limit:
            best = (n, size) if best is None or n > best[0] else best
        else:
            over = min(over, n)
        ratio = size / max(planned(n), 1)
        following = min(_largest(n_max, planned, int(limit / ratio)), over - 1)
        if best is not None:
            following = max(following, best[0])
        if following < 0 or following == n or (best is not None and following == best[0]):
            break
        n = following
    if best is None:                                    # no count fitted: bisect on the count
        n = fit_prefix(range(max(over - 1, 0)), lambda prefix: actual(len(prefix)) <= limit)
        best = (n, actual(n))
    return best


GROWTH = 1.25       # _largest's step up: a plan sizes items up to this much past the answer


def _largest(upto: int, planned: Callable[[int], int], bound: int) -> int:
    """The largest n <= upto with planned(n) <= bound (0 if none), probing up from 1 by GROWTH
    (plans size their items incrementally: the largest n probed is what a search costs)."""
    hi = 1
    while hi <= upto and planned(hi) <= bound:
        hi = max(hi + 1, int(hi * GROWTH))
    return fit_prefix(range(min(hi, upto)), lambda prefix: planned(len(prefix)) <= bound)


__all__ = ["fit_prefix", "largest_fit"]
