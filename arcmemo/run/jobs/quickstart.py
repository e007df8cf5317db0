"""The quick start: a few small puzzles solved with memory and without, as two ordinary solve
runs, then what each side got and why, puzzle by puzzle.

The default puzzles are ARC-AGI-1 training tasks that are not among the seeds (memory holds
no solution of theirs) and whose grids are small, so that the embedded model (about a minute
per short call on a quiet 2-core CPU) answers each in one short call per side:

- b1948b0a (magenta cells become red): no seed solves it, but memory's `color mapping`
  concept has a verified helper, and the probe finds the call that gives every train output
  (the colour table is read from the train pairs). Memory answers it; the model alone has
  to write the recolouring itself.
- d10ecb37 (the output is the input's top-left 2x2 corner): the probe's call of memory's
  periodic-pattern helper gives every train output too; the model alone has to write the
  crop. Whether it does varies with the model: the comparison says what happened, including
  when memory made no difference (the README's Quick start gives what it measured).

The settings are kept small enough for the time (QUICK): one attempt, no retry, an answer
long enough for its program (768 tokens: QUICK's note), temperature 0 and a fixed seed (the
same answers run after run), both puzzles in flight at once (the embedded server answers two
requests together, which costs little more than one). Everything else is each side's
default: with memory, ps selection with helpers, the probe and its fits as answers; without,
`none`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arcmemo.core.table import counted
from arcmemo.run.config import RunConfig
from arcmemo.run.records.outcome import TaskOutcome
from arcmemo.run.stages.probe import FIT_LABEL
from arcmemo.solverkit.conversation import WRONG_OUTPUT

QUICKSTART_TASKS = ("b1948b0a", "d10ecb37")
SIDES = (("with memory", "ps"), ("without memory", "none"))
# max_tokens: the embedded model's answers to the two puzzles (measured 2026-11-29, temperature 0,
# seed 0, up to 2,048 tokens) end by themselves after 559-1,183 tokens, most of it test prints and
# explanation after the program; each program is complete (and used: a cut answer's complete
# transform is read) after 241-431. 768 gives each about 1.8 times the room its program took (512
# gave the longest 1.2 times); letting every answer end (1,280) would cost up to 73 s more a side
# at 7 tokens a second, all of it text after the program.
QUICK = {"attempts": 1, "retries": 0, "max_tokens": 768, "temperature": 0.0, "model_seed": 0}


def quickstart_config(selection: str, task_ids: Sequence[str], **overrides: Any) -> RunConfig:
    """One side's run: the quick settings over everything else's defaults."""
    return RunConfig(task_ids=list(task_ids), selection=selection, **{"source": "training", **QUICK, **overrides})


@dataclass(frozen=True)
class Side:
    """What one run did with one puzzle: solved (None: not scored), and how, in words."""

    solved: bool | None
    how: str


def _steps(outcome: TaskOutcome) -> tuple[list[dict], list[dict]]:
    """(the model's steps, memory's fit steps) over every thread of the outcome."""
    steps = [s for t in outcome.threads for s in t.get("steps") or []]
    return [s for s in steps if s.get("label") != FIT_LABEL], [s for s in steps if s.get("label") == FIT_LABEL]


def _right(step: dict) -> bool:
    return bool(step.get("test_correct")) and all(step["test_correct"])


def _why_wrong(steps: list[dict]) -> str:
    """Why the model's last try did not solve the puzzle, in a few words."""
    if not steps:
        return "no answer from the model"
    last = steps[-1]
    if last.get("cut") and not last.get("code"):
        return "the model's answer was cut at the token limit (max_tokens) before its program was complete"
    if last.get("error") and not last.get("code"):
        return "the model's answer held no program (" + last["error"].splitlines()[0][:90] + ")"
    if last.get("passed_train"):
        return "the model's program passed the train pairs but was wrong on the test"
    right, pairs = sum(bool(c) for c in last.get("train_correct") or []), len(last.get("train_correct") or [])
    if last.get("error") and last["error"] != WRONG_OUTPUT:
        return f"the model's program failed ({last['error'].splitlines()[0][:90]})"
    return f"the model's program got {right} of {pairs} train pairs right"


def describe_side(outcome: TaskOutcome | None, solved_ids: set[str]) -> Side:
    """One run's result on one puzzle and why: answered by memory's fitting helper call (labelled
    so, never passed off as the model's), solved by the model's program, or why not."""
    if outcome is None:
        return Side(None, "not attempted")
    if not outcome.scores:
        return Side(None, "not scored (no test outputs)")
    model, fits = _steps(outcome)
    answered = list(getattr(outcome, "fit_answers", []) or [])
    if outcome.task_id in solved_ids:
        by_memory = bool(answered) and any(_right(s) for s in fits)
        by_model = any(_right(s) for s in model)
        if by_memory and by_model:
            return Side(True, f"the model's program, and memory's helper call {answered[0]} too")
        if by_memory:
            return Side(True, f"answered by memory (helper call {answered[0]}); {_why_wrong(model)}")
        called = sorted({h for s in model if _right(s) for h in s.get("helpers_called") or []})
        return Side(True, "the model's program" + (f", which called memory's {', '.join(called)}" if called else ""))
    if answered:
        return Side(False, f"memory's helper call {answered[0]} gave every train output, not the test output; "
                           f"{_why_wrong(model)}")
    return Side(False, _why_wrong(model))


def offered_text(outcome: TaskOutcome | None) -> str:
    """What memory offered a puzzle: the probe's fitting calls, else the concepts shown."""
    if outcome is None:
        return "-"
    if outcome.helper_fits:
        return "the probe's fit " + ", ".join(outcome.helper_fits)
    names = [row.get("name") for row in outcome.concept_use if row.get("name")]
    return ("concepts " + ", ".join(names[:4]) + (" ..." if len(names) > 4 else "")) if names else "nothing"


def effect(with_memory: Side, without: Side) -> str:
    """What memory changed on a puzzle, said plainly (including when it did not help)."""
    if with_memory.solved is None or without.solved is None:
        return "unknown (not scored)"
    return {(True, False): "memory helped", (True, True): "no difference: solved either way",
            (False, False): "memory did not help: neither solved it",
            (False, True): "memory hurt: solved only without it"}[(with_memory.solved, without.solved)]


@dataclass(frozen=True)
class PuzzleResult:
    task_id: str
    offered: str
    with_memory: Side
    without: Side

    @property
    def effect(self) -> str:
        return effect(self.with_memory, self.without)


def puzzle_results(task_ids: Sequence[str], with_memory: tuple[dict[str, TaskOutcome], dict[str, Any]],
                   without: tuple[dict[str, TaskOutcome], dict[str, Any]]) -> list[PuzzleResult]:
    """Per puzzle, both sides' results; each side given as (latest outcome per task, summary)."""
    (mine, my_summary), (plain, plain_summary) = with_memory, without
    solved_with, solved_without = set(my_summary.get("solved", [])), set(plain_summary.get("solved", []))
    return [PuzzleResult(t, offered_text(mine.get(t)), describe_side(mine.get(t), solved_with),
                         describe_side(plain.get(t), solved_without)) for t in task_ids]


def _verdict(side: Side) -> str:
    return {True: "solved", False: "not solved", None: "unknown"}[side.solved] + f": {side.how}"


def results_text(results: Sequence[PuzzleResult], run_ids: tuple[str, str]) -> str:
    """Per puzzle: what memory changed, what memory offered, each side's result and why."""
    blocks = []
    for r in results:
        blocks.append("\n".join([
            f"{r.task_id}: {r.effect}",
            f"  memory offered:  {r.offered}",
            f"  with memory:     {_verdict(r.with_memory)}   (run {run_ids[0]})",
            f"  without memory:  {_verdict(r.without)}   (run {run_ids[1]})"]))
    return "\n\n".join(blocks)


def conclusion(results: Sequence[PuzzleResult]) -> str:
    """One sentence on the whole comparison, naming the puzzles where memory did not help."""
    helped = [r for r in results if r.effect == "memory helped"]
    by_fit = [r for r in helped if r.with_memory.how.startswith("answered by memory")]
    text = f"With memory, {len(helped)} of {counted(len(results), 'puzzle')} solved that the model alone did not"
    if helped:
        text += f" ({', '.join(r.task_id for r in helped)}"
        text += ", answered by memory's verified helper call)" if len(by_fit) == len(helped) else ")"
    text += "."
    other = [r for r in results if r.effect != "memory helped"]
    if other:
        text += " Memory did not help on " + "; ".join(f"{r.task_id} ({r.effect})" for r in other) + "."
    return text


__all__ = ["QUICKSTART_TASKS", "SIDES", "QUICK", "quickstart_config", "Side", "describe_side", "offered_text",
           "effect", "PuzzleResult", "puzzle_results", "results_text", "conclusion"]
