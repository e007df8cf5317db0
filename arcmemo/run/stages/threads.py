"""One task solved in N independent threads (the paper's runs), as the run records and scores it.

A thread is one selection and one solver call (a sample and its retry chain); threads do
not share anything but the task, so a task's threads run at once (Runner._solve), each on
samples of its own. Every answer of every thread is a step, recorded with
its retry depth and, when the run scores, its verdict on each test input
(`thread_record`); the run's Table 4 is computed from those records alone
(`run_depth_table`, arcmemo.scoring.threads), so `runs show` rebuilds it from the event log.

What is submitted (two grids per test input) comes from the threads' final programs: each
thread's best answer (its passing program, else its highest train-cell accuracy) ranked by
arcmemo.core.choice (train verdicts only), the distinct grids in that order; a test input
left with fewer than two grids is filled from the threads' own second choices, thread by
thread (`submitted_predictions`). With one thread this is the solver's own top two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.choice import SUBMITTED, rank
from arcmemo.core.tasks import Grid, Task, as_grid, to_lists
from arcmemo.scoring import DepthTable, ThreadFinal, depth_table, puzzle_from_steps, step_verdicts, submitted_attempts
from arcmemo.scoring.runscore import headline_k, headline_of_table, headline_record, summary_scores
from arcmemo.scoring.threads import PuzzleThreads, headline_cell
from arcmemo.selection import Selection
from arcmemo.solverkit import SolveResult


@dataclass
class ThreadRun:
    """One thread of a task: what selection offered it and what the solver returned."""

    thread: int
    selection: Selection
    result: SolveResult
    error: str | None = None          # the solver broke its contract (raised)
    reselections: list[dict[str, Any]] = field(default_factory=list)   # --reselect-on-retry: before which retry, what
    helpers: Any = None               # the helpers offered with its hint (solverkit MemoryHelpers), if any


def selection_level(selection: Selection) -> str | None:
    """How the select model saw memory: full, collapsed, compressed or prefiltered (None: no model step)."""
    return selection.stats.get("form")


def predictions_of(result: SolveResult, task: Task) -> list[list[Grid]]:
    """The solver's predictions as Grids (what scoring and the submission take), one list per
    test input; anything that is not a valid grid is dropped."""
    per_test = list(result.predictions or [])[: len(task.test_inputs)]
    per_test += [[] for _ in range(len(task.test_inputs) - len(per_test))]
    return [[g for g in (as_grid(p) for p in grids or []) if g is not None][:SUBMITTED] for grids in per_test]


def _final(run: ThreadRun, n_tests: int) -> ThreadFinal | None:
    attempts = run.result.attempts
    if not attempts:
        return None
    best = attempts[rank(attempts)[0]]
    outputs = list(best.test_outputs or [])[:n_tests] + [None] * max(0, n_tests - len(best.test_outputs or []))
    return ThreadFinal(thread=run.thread, passed_train=best.passed_train, train_cell_accuracy=best.train_cell_accuracy,
                       test_outputs=tuple(as_grid(g) if g is not None else None for g in outputs))


def best_thread(runs: Sequence[ThreadRun], n_tests: int) -> ThreadRun:
    """The thread whose final program ranks first (the one the memory write learns from)."""
    finals = [(r, _final(r, n_tests)) for r in runs]
    ranked = [(r, f) for r, f in finals if f is not None]
    if not ranked:
        return runs[0]
    return ranked[rank([f for _, f in ranked])[0]][0]


def submitted_predictions(runs: Sequence[ThreadRun], task: Task) -> list[list[Grid]]:
    """attempt_1, attempt_2 per test input from all threads (module docstring)."""
    n_tests = len(task.test_inputs)
    finals = [f for f in (_final(r, n_tests) for r in runs) if f is not None]
    chosen = submitted_attempts(finals, n_tests) if finals else [[] for _ in range(n_tests)]
    own = [predictions_of(r.result, task) for r in runs]
    merged = []
    for j in range(n_tests):
        grids = list(dict.fromkeys([*chosen[j], *(g for p in own for g in p[j])]))
        merged.append(grids[:SUBMITTED])
    return merged


def thread_record(run: ThreadRun, n_tests: int, answers: Any | None) -> dict[str, Any]:
    """What the event log keeps of a thread: its selection's outcome and every step, each
    with its verdict per test input when the run scores (`test_correct`, else None)."""
    steps = []
    for a in run.result.attempts:
        outputs = list(a.test_outputs or [])[:n_tests]
        outputs += [None] * (n_tests - len(outputs))
        steps.append({
            "sample": a.sample, "round": a.round, "label": a.label, "code": a.code, "error": a.error,
            "helpers_called": list(getattr(a, "helpers_called", []) or []),
            "passed_train": a.passed_train, "train_correct": list(a.train_correct),
            "train_cell_accuracy": a.train_cell_accuracy,
            "test_outputs": [None if g is None else to_lists(g) for g in outputs],
            "test_correct": list(step_verdicts(outputs, answers)) if answers else None,
        })
    selection = run.selection
    return {"thread": run.thread, "selected": list(selection.concept_ids), "level": selection_level(selection),
            "fallback": bool(selection.fallback), "passed_train": bool(run.result.passed_train),
            "error": run.error, "steps": steps, "reselections": list(run.reselections)}


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
    return {name: round(100 * sum(o.scores[name] for o in outcomes) / n, 2) for name in ("oracle1", "oracle2", "strict")}


def outcome_scores(outcomes: Sequence[Any], threads: int, retries: int, *, table: bool = True) -> dict[str, Any]:
    """A run's score keys for its summary (arcmemo.scoring.runscore) from its tasks' latest
    outcomes: the headline, the submitted attempts' scores, and (with `table`) the whole
    Table 4 block; without it only the headline's cell is computed (the running score)."""
    outcomes = list(outcomes)
    puzzles = _puzzles(outcomes, threads, retries)
    depth_block = depth_table(puzzles, threads, retries) if puzzles is not None and table else None
    if depth_block is not None:
        headline = headline_of_table(depth_block.to_dict())
    elif puzzles is not None:
        headline = headline_record(threads, retries, *headline_cell(puzzles, threads, retries, headline_k(threads)))
    else:
        headline = headline_record(threads, retries)
    scores = summary_scores(headline, submitted_scores(outcomes))
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
    return {t: {**o.scores, "headline": task_headline(o, threads, retries), "passed_train": o.passed_train,
                "pass": o.pass_index, "selected": len(o.selected)} for t, o in sorted(latest.items())}
