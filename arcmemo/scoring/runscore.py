"""The score every view of a run shows, decided here and nowhere else.

Two statistics, each under its own name:

- **The headline**: the paper's oracle@k over a run's independent threads (appendix B;
  threads.py) at the run's full retry depth, k = 2, the paper's "official score" — or k = 1
  for a one-thread run, which has no pair of threads to take, and its label says so.
- **The ARC Prize score (2 submitted attempts)**: what ARC Prize would score, the two grids
  submitted per test input (chosen from the threads' final programs on train pairs only).
  The submitted attempts' oracle@1 and strict score go with it, under that name too.

A run's summary.json (Runner._summary, from `summary_scores`) holds both:

    headline    {"k", "threads", "retry_depth", "oracle", "strict"}: oracle@k and strict@k in
                percent, the cell [retry_depth][k - 1] of table4; null when unknown
    submitted   {"attempts": 2, "oracle1", "oracle2", "strict"} in percent; oracle2 is the
                ARC Prize score
    oracle1, oracle2, strict
                kept for readers of older summaries: the submitted attempts' scores (they
                always were), the same numbers as `submitted`; never the headline
    table4      the whole Table 4 / Table 5 block (threads.DepthTable.to_dict())
    strict_train_test_last_step
                the released driver's strict score per retry depth and k (strict.LastStepTable)
    strict_variant
                which strict score the run's protocol chose (`--strict-variant`)

**The strict score** every view shows is the run's chosen variant (`strict_variant`, decided
from the summary or else the run's config): test-any-step, the table4 block's strict (the
paper's Table 5, and headline["strict"]), or train-test-last-step, the released driver's
block. `RunScore.strict` and `strict_rows` are the one reading of it.

A summary written before `headline` existed is read as it was recorded (`run_score`): its
oracle1/oracle2/strict are the submitted-attempt score, its headline the recorded table4's
cell when there is one, else "not recorded" — never recomputed into another statistic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from arcmemo.core.table import cell
from arcmemo.scoring.scores import OFFICIAL_K
from arcmemo.scoring.strict import STRICT_VARIANTS

SUBMITTED_ATTEMPTS = 2
ARC_PRIZE = f"ARC Prize score ({SUBMITTED_ATTEMPTS} submitted attempts)"
NO_TEST_OUTPUTS = "unknown (no test outputs)"
NOT_RECORDED = "not recorded (run from before per-thread records)"
NO_TASKS = "no task finished"
MARK = "†"
FOOTNOTE = (f"{MARK} test-informed: a test output decided something in this run (which attempts were retried, "
            "or which solutions were written to memory), so its score is not a held-out score")


DEFAULT_STRICT = STRICT_VARIANTS[0]
LAST_STEP_KEY = "strict_train_test_last_step"     # the summary's key of the released driver's block
STRICT_NOT_RECORDED = "not recorded (run from before the released driver's strict score)"


def strict_variant(config: Mapping[str, Any] | None, summary: Mapping[str, Any] | None = None) -> str:
    """The strict score a run shows (module docstring): its summary's `strict_variant`, else its
    config's protocol's, else test-any-step (a run from before the choice)."""
    recorded = (summary or {}).get("strict_variant")
    if recorded is None:
        protocol = (config or {}).get("protocol")
        recorded = protocol.get("strict_variant") if isinstance(protocol, Mapping) else None
    return recorded if recorded in STRICT_VARIANTS else DEFAULT_STRICT


def strict_rows(summary: Mapping[str, Any], variant: str) -> list[list[float]] | None:
    """The strict score of `variant` per retry depth (rows) and k (columns), in percent; None
    when the summary does not hold it."""
    block = summary.get("table4") if variant == DEFAULT_STRICT else summary.get(LAST_STEP_KEY)
    return [list(row) for row in block["strict"]] if block else None


def strict_name(variant: str) -> str:
    """How a table names a strict variant's block."""
    return ("strict@k (Table 5: one program solves every test input of a puzzle)" if variant == DEFAULT_STRICT else
            "strict@k, the released driver's (a thread's last step right on every train pair and test input; "
            "--strict-variant train-test-last-step)")


def headline_k(threads: int) -> int:
    """The k of a run's headline: 2 (the paper's), or the number of threads when fewer."""
    return max(1, min(OFFICIAL_K, threads))


def headline_name(threads: int) -> str:
    """The headline's short name: "oracle@2", or "oracle@1 (one thread)"."""
    k = headline_k(threads)
    return f"oracle@{k}" + (" (one thread)" if threads < OFFICIAL_K else "")


def headline_of_table(table: Mapping[str, Any]) -> dict[str, Any]:
    """The headline record of a Table 4 block (DepthTable.to_dict()): its last row's k column."""
    threads, depth = int(table["threads"]), int(table["retries"])
    k = headline_k(threads)
    return {"k": k, "threads": threads, "retry_depth": depth,
            "oracle": table["oracle"][depth][k - 1], "strict": table["strict"][depth][k - 1]}


def headline_record(threads: int, retries: int, oracle: float | None = None,
                    strict: float | None = None) -> dict[str, Any]:
    return {"k": headline_k(threads), "threads": threads, "retry_depth": retries, "oracle": oracle, "strict": strict}


def summary_scores(headline: Mapping[str, Any], submitted: Mapping[str, float | None]) -> dict[str, Any]:
    """The score keys of a summary (module docstring): the headline record, the submitted
    attempts' scores under `submitted` and, for older readers, at the top level."""
    chosen = {name: submitted.get(name) for name in ("oracle1", "oracle2", "strict")}
    return {"headline": dict(headline), "submitted": {"attempts": SUBMITTED_ATTEMPTS, **chosen}, **chosen}


@dataclass(frozen=True)
class RunScore:
    """What a view shows of a run's score (percent; None: unknown, `why` says why)."""

    value: float | None             # the headline: oracle@k over threads at retry depth `retry_depth`
    strict: float | None            # strict@k, the same cell of Table 5
    k: int
    threads: int
    retry_depth: int | None
    arc_prize: float | None         # the submitted attempts' oracle@2
    submitted_oracle1: float | None
    submitted_strict: float | None
    why: str | None = None          # why `value` is None
    test_informed: bool = False
    test_informed_by: tuple[str, ...] = ()   # the protocol choices that made it so (run/protocol.py)
    strict_variant: str = DEFAULT_STRICT    # which strict score `strict` is (module docstring)
    strict_why: str | None = None   # why `strict` is None

    @property
    def name(self) -> str:
        return headline_name(self.threads)

    @property
    def label(self) -> str:
        """The headline's full name, as a table row says it."""
        depth = "?" if self.retry_depth is None else self.retry_depth
        threads = "one thread" if self.threads == 1 else f"{self.threads} threads"
        return f"oracle@{self.k} over {threads}, retry depth {depth} (the paper's score)"

    @property
    def strict_label(self) -> str:
        """The strict score's full name, as a table row says it."""
        if self.strict_variant == DEFAULT_STRICT:
            return f"strict@{self.k}, the same cell of Table 5"
        return f"strict@{self.k}, train and test pairs, last step (the released driver's), the same depth"

    def strict_cell(self) -> str:
        """The strict score as a table cell (marked if test-informed) or why it is unknown."""
        return self.mark(self.strict, self.strict_why)

    def cell(self) -> str:
        """The headline as a table cell: the number (marked if test-informed) or why it is unknown."""
        return self.mark(self.value, self.why)

    def mark(self, value: float | None, why: str | None = None) -> str:
        """Any of this run's scores as a cell, with the test-informed mark."""
        text = cell(value) if value is not None else (why or NO_TEST_OUTPUTS)
        return f"{text} {MARK}" if self.test_informed and value is not None else text

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "statistic": self.name, "label": self.label, "strict_label": self.strict_label}


def run_score(summary: Mapping[str, Any], *, test_informed: bool = False,
              test_informed_by: tuple[str, ...] = (), config: Mapping[str, Any] | None = None) -> RunScore:
    """A run's score from its summary (module docstring: new summaries and older ones), marked
    test-informed as said, with the choices that made it so when they are known; its strict
    score is the variant `strict_variant(config, summary)` chooses."""
    submitted = summary.get("submitted") or {name: summary.get(name) for name in ("oracle1", "oracle2", "strict")}
    headline = summary.get("headline")
    if headline is None:
        table = summary.get("table4")
        headline = (headline_of_table(table) if table else
                    headline_record(int(summary.get("threads") or 1), summary.get("retries")))
    value = headline.get("oracle")
    why = None
    if value is None:
        unscored = summary.get("scored") is False or (summary.get("tasks") and submitted.get("oracle2") is None)
        why = NO_TEST_OUTPUTS if unscored else NO_TASKS if not summary.get("tasks") else NOT_RECORDED
    variant = strict_variant(config, summary)
    strict, strict_why = headline.get("strict"), why
    if variant != DEFAULT_STRICT:
        rows, depth = strict_rows(summary, variant), headline.get("retry_depth")
        strict = rows[depth][int(headline["k"]) - 1] if rows and depth is not None else None
        strict_why = why or (STRICT_NOT_RECORDED if strict is None else None)
    return RunScore(value=value, strict=strict, k=int(headline["k"]),
                    threads=int(headline["threads"]), retry_depth=headline.get("retry_depth"),
                    arc_prize=submitted.get("oracle2"), submitted_oracle1=submitted.get("oracle1"),
                    submitted_strict=submitted.get("strict"), why=why,
                    test_informed=test_informed, test_informed_by=tuple(test_informed_by),
                    strict_variant=variant, strict_why=strict_why)


__all__ = ["ARC_PRIZE", "DEFAULT_STRICT", "FOOTNOTE", "LAST_STEP_KEY", "MARK", "NO_TASKS", "NO_TEST_OUTPUTS",
           "NOT_RECORDED", "RunScore", "STRICT_NOT_RECORDED", "SUBMITTED_ATTEMPTS", "headline_k", "headline_name",
           "headline_of_table", "headline_record", "run_score", "strict_name", "strict_rows", "strict_variant",
           "summary_scores"]
