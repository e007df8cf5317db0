"""A run's scores from its tasks' recorded outcomes: the paper's Table 4 block over the threads'
steps, the headline every view shows, the submitted attempts' scores, and each task's.

Computed from the event log's records alone (arcmemo.scoring does the arithmetic), so the
summary, `runs show`, the page and the report agree on every number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arcmemo.scoring import DepthTable, depth_table, puzzle_from_steps
from arcmemo.scoring.runscore import LAST_STEP_KEY, headline_k, headline_of_table, headline_record, summary_scores
from arcmemo.scoring.strict import last_step_table, steps_from_records
from arcmemo.scoring.threads import PuzzleThreads, headline_cell


def _puzzle(outcome: Any, threads: int, retries: int) -> PuzzleThreads | None:
    """A task's threads as scoring takes them; None when the task was not scored or was
    recorded without its steps (a run from before threads)."""
    records = getattr(outcome, "threads", None) or []
    if not outcome.scores or len(records) != threads or not outcome.predictions:
        return None
    if any(s.get("test_correct") is None for r in records for s in r["steps"]):
        return None
    return puzzle_from_steps(outcome.task_id, len(outcome.predictions), [
        [(min(s["round"], retries), tuple(s["test_correct"])) for s in r["steps"]] for r in records])


def _puzzles(outcomes: Sequence[Any], threads: int, retries: int) -> list[PuzzleThreads] | None:
    puzzles = [_puzzle(outcome, threads, retries) for outcome in outcomes]
    return None if not puzzles or any(p is None for p in puzzles) else puzzles


def run_depth_table(outcomes: Sequence[Any], threads: int, retries: int) -> DepthTable | None:
    """The paper's Table 4 (and 5) block of a run from its tasks' thread records; None when a
    task was not scored or was recorded without its steps (a run from before threads)."""
    puzzles = _puzzles(outcomes, threads, retries)
    return None if puzzles is None else depth_table(puzzles, threads, retries)


def submitted_scores(outcomes: Sequence[Any]) -> dict[str, float | None]:
    """The submitted attempts' mean oracle@1, oracle@2 (the ARC Prize score) and strict, in
    percent; None (unknown) when a task was not scored."""
    outcomes = list(outcomes)
    if any(not o.scores for o in outcomes):
        return {name: None for name in ("oracle1", "oracle2", "strict")}
    n = len(outcomes) or 1
    return {name: round(100 * sum(getattr(o.scores, name) for o in outcomes) / n, 2)
            for name in ("oracle1", "oracle2", "strict")}


def last_step_block(outcomes: Sequence[Any], threads: int, retries: int) -> dict[str, Any] | None:
    """The released driver's strict score (train and test, last step; scoring/strict.py) per
    depth and k; None when it cannot be computed (not scored, or recorded without steps)."""
    outcomes = list(outcomes)
    puzzles = [steps_from_records(getattr(o, "threads", None) or [], retries) for o in outcomes]
    if not outcomes or not all(o.scores and p is not None and len(p) == threads for o, p in zip(outcomes, puzzles)):
        return None
    return last_step_table(puzzles, threads, retries).to_dict()


def outcome_scores(outcomes: Sequence[Any], threads: int, retries: int, *, table: bool = True) -> dict[str, Any]:
    """A run's score keys for its summary (arcmemo.scoring.runscore) from its tasks' latest
    outcomes: the headline, the submitted attempts' scores, both strict variants' blocks and
    (with `table`) the whole Table 4 block; without it only the headline's cell of it is
    computed (the running score)."""
    outcomes = list(outcomes)
    puzzles = _puzzles(outcomes, threads, retries)
    depth_block = depth_table(puzzles, threads, retries) if puzzles is not None and table else None
    if depth_block is not None:
        headline = headline_of_table(depth_block.to_dict())
    elif puzzles is not None:
        headline = headline_record(threads, retries, *headline_cell(puzzles, threads, retries, headline_k(threads)))
    else:
        headline = headline_record(threads, retries)
    scores = {**summary_scores(headline, submitted_scores(outcomes)),
              LAST_STEP_KEY: last_step_block(outcomes, threads, retries)}
    if table:
        scores["table4"] = depth_block.to_dict() if depth_block is not None else None
    return scores


def task_headline(outcome: Any, threads: int, retries: int) -> float | None:
    """One task's headline (oracle@k over its threads at full retry depth, 0..1), as the run's
    is the mean of; None when it was not scored or has no thread records."""
    puzzle = _puzzle(outcome, threads, retries)
    if puzzle is None:
        return None
    return headline_cell([puzzle], threads, retries, headline_k(threads))[0] / 100


def per_task_scores(latest: dict[str, Any], threads: int, retries: int) -> dict[str, dict[str, Any]]:
    """A summary's `per_task`: each task's submitted attempts' oracle1/oracle2/strict (0..1, its
    outcome's scores), its headline over its threads (`headline`), train verdict, pass, concepts."""
    return {t: {**o.score_record(), "headline": task_headline(o, threads, retries), "passed_train": o.passed_train,
                "pass": o.pass_index, "selected": len(o.selected)} for t, o in sorted(latest.items())}
