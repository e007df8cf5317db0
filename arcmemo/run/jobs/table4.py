"""A sweep's repeats set beside a paper's published table (the ArcMemo paper's Table 4).

Each row of a `rows` sweep (run/jobs/sweep.py) ran R repeats, each one run of N threads with
up to D retries. Per row, retry depth d and k, a run's cell is its oracle@k (its summary's
`table4`, the mean over the k-subsets of its threads: scoring/threads.py); the repeats give
its mean and its spread, the sample std over the repeats. Beside it: the paper's number, the
difference (ours - paper) and whether the paper's number lies within the spread (|difference|
<= std; unknown with one repeat). Only finished repeats count; a cell the runs do not have
(fewer threads or retries than the paper) is left out.

The published numbers are a YAML file (arcmemo/data/paper_table4.yaml): `depths: {d: {row:
{oracle: [[mean, std], ...] per k}}}`, with its source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arcmemo.core.table import table


@dataclass(frozen=True)
class Cell:
    """One row's oracle@k at one retry depth: ours over the repeats, the paper's, and how they differ."""

    row: str
    depth: int
    k: int
    repeats: int
    mean: float
    std: float | None        # over the repeats (None: one repeat)
    paper: float | None
    paper_std: float | None  # the paper's spread over its k-subsets of threads

    @property
    def difference(self) -> float | None:
        return None if self.paper is None else self.mean - self.paper

    @property
    def within(self) -> bool | None:
        """Whether the paper's number lies within the repeats' spread (None: cannot tell)."""
        if self.paper is None or self.std is None:
            return None
        return abs(self.mean - self.paper) <= self.std + 1e-9

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "difference": self.difference, "within_spread": self.within}


def load_paper(path: str | Path) -> dict[str, Any]:
    """The published numbers (module docstring); ValueError naming the file when malformed."""
    from arcmemo.core import safeyaml

    data = safeyaml.load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("depths"), dict):
        raise ValueError(f"{path}: expected `depths:` of published numbers per retry depth and row")
    return data


def _published(paper: Mapping[str, Any], row: str, depth: int, k: int) -> tuple[float | None, float | None]:
    entry = (paper.get("depths", {}).get(depth) or paper.get("depths", {}).get(str(depth)) or {}).get(row) or {}
    oracle = entry.get("oracle") or []
    if len(oracle) < k:
        return None, None
    mean, std = oracle[k - 1]
    return mean, std


def cells(rows: Mapping[str, Sequence[Mapping[str, Any]]], paper: Mapping[str, Any]) -> list[Cell]:
    """Every (row, depth, k) the rows' finished runs (their summaries, by row label) have, in the
    paper's row order then the sweep's, beside the published numbers."""
    from statistics import mean, stdev

    order = [r for r in paper.get("rows", []) if r in rows] + [r for r in rows if r not in paper.get("rows", [])]
    found = []
    for row in order:
        tables = [s["table4"] for s in rows[row] if s.get("table4")]
        if not tables:
            continue
        depths = min(t["retries"] for t in tables) + 1
        ks = min(t["threads"] for t in tables)
        for depth in range(depths):
            for k in range(1, ks + 1):
                values = [t["oracle"][depth][k - 1] for t in tables]
                published, spread = _published(paper, row, depth, k)
                found.append(Cell(row=row, depth=depth, k=k, repeats=len(values), mean=mean(values),
                                  std=stdev(values) if len(values) > 1 else None, paper=published,
                                  paper_std=spread))
    return found


def _spread(value: float | None, std: float | None) -> str:
    return "-" if value is None else f"{value:.2f}" + (f" ({std:.2f})" if std is not None else "")


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


def _within(value: bool | None) -> str:
    return "?" if value is None else "yes" if value else "no"


def comparison_text(found: Sequence[Cell], paper: Mapping[str, Any]) -> str:
    """The cells as one table per k (`arcmemo sweep`'s closing table)."""
    if not found:
        return "no finished repeat to set beside the paper yet"
    blocks = [f"beside {paper.get('source', 'the paper')}: oracle@k in % per retry depth; ours: mean (std) over "
              "the repeats (n); the paper's: one run, bracketed its std over the k-subsets of threads; "
              "within spread: |ours - paper| <= our std"]
    for k in sorted({c.k for c in found}):
        rows = [(c.depth, c.row, _spread(c.mean, c.std) + f" [{c.repeats}]", _spread(c.paper, c.paper_std),
                 _signed(c.difference), _within(c.within)) for c in found if c.k == k]
        title = f"oracle@{k}" + (" (the official score)" if k == 2 else "")
        blocks += ["", title, table(rows, ("retry", "setting", "ours", "paper", "difference", "within spread"))]
    return "\n".join(blocks)


__all__ = ["Cell", "cells", "comparison_text", "load_paper"]
