"""Memory's probe, a stage of every task whatever its memory method: which single call of one of
memory's verified helpers gives every train output.

Memory's helpers are a library shared by every method, like the sandbox (today the helpers of
PS concepts; a method that writes helpers adds to it). An executable concept can be tried,
not only read. For each helper whose parameters can be filled (memory/helpers/probing.py: the
grid first, then an int, a colour of the task, a bool, literal alternatives, or a value the
train pairs show, inferred.py), the probe calls it with each combination on the train inputs,
in the sandbox. A call that gives every train output is a *fit*. Fits add to what the method's read
shows, never replace it: every thread's prompt names the calls first, and only their helpers
are offered. A small model that would not have picked the concept, or would have guessed its
arguments wrong, is told what running it showed. With fits as answers
(`--fits-as-answers on`, the default) each fit is also a candidate of its own
(`fit_attempts`): the program `transform(grid) = helper(grid, args)`, run on the train and
test inputs like any attempt and ranked with the model's by the train-only choice rule;
labelled as made by memory. Test outputs are never involved (a colour parameter may take
a test input's colours). The calls are tried BATCH to a sandbox run (a run costs about
10-16 ms here, and the probe comes before a task's first model call), and each call that
fitted is run again alone before it counts: within a batch, memory's helpers run in one
process, so one call's side effects (a global it changes) could make another look right,
or wrong; the latter costs a fit, never a false one. `--probe-helpers/--no-probe-helpers`
turns it on or off; its default is the method's (`arcmemo methods list`).

What depends on the concept alone (which parameters, of which kind, passed how) is its
`ProbeSpec` (memory/helpers/probing.py), made once per memory revision (prepared.py); only
the values a task gives (its colours, what its train pairs show) are filled in per task.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arcmemo.core.choice import FIT_LABEL, FIT_SAMPLE
from arcmemo.core.helpermodule import MODULE
from arcmemo.run.stages.inferred import task_facts
from arcmemo.solverkit import Attempt
from arcmemo.solverkit.programs import run_on_pairs, run_program

if TYPE_CHECKING:
    from arcmemo.run.stages.context import TaskContext
    from arcmemo.run.stages.prepared import Prepared

BATCH = 16                     # calls tried in one sandbox run (memory's own helpers); a fit is confirmed alone


@dataclass(frozen=True)
class Fit:
    """A call of one concept's helper that gives every train output."""

    concept_id: int
    helper: str           # the helper's name: "rotate_grid"
    call: str             # as a program writes it: "rotate_grid(grid, 2)"

    @property
    def program(self) -> str:
        """The program that is this call: `transform(grid) = helper(grid, args)`."""
        return f"from {MODULE} import {self.helper}\n\n\ndef transform(grid):\n    return {self.call}\n"


def probe(task: Any, memory: Prepared, sandbox: Any, *, workers: int = 1,
          errors: list[str] | None = None) -> tuple[list[Fit], int]:
    """(the fits, how many calls were tried): each candidate call of each probe-able helper of
    the prepared memory, run in the sandbox on the train pairs; a fit gives every train output.
    `workers`: batches run at once. One by default: batched, a probe is a few runs, and at a
    solve's start a second sandbox worker would have to start for it (about 0.6 s here,
    before the first model request). A sandbox fault is no fit, and is added to `errors`."""
    facts = task_facts(task)
    tries = [Fit(spec.concept_id, spec.helper, call) for spec in memory.probeable for call in spec.calls(facts)]
    if not tries:
        return [], 0
    module = {MODULE: memory.module(t.helper for t in tries)}
    pairs = list(task.train)

    def failed(exc: Exception) -> bool:
        if errors is not None:
            errors.append(f"{type(exc).__name__}: {exc}")
        return False

    def fits(attempt: Fit) -> bool:
        try:
            return all(run_on_pairs(sandbox, attempt.program, pairs, modules=module).correct)
        except Exception as exc:  # a sandbox fault is no fit; the solve goes on without it
            return failed(exc)

    def candidates(batch: list[Fit]) -> list[bool]:
        try:
            check = run_on_pairs(sandbox, batch_program(batch, len(pairs)), pairs * len(batch), modules=module)
        except Exception as exc:  # a sandbox fault is no fit
            return [failed(exc)] * len(batch)
        return [all(check.correct[k * len(pairs):(k + 1) * len(pairs)]) for k in range(len(batch))]

    batches = [tries[i:i + BATCH] for i in range(0, len(tries), BATCH)]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        verdicts = [ok for batch in pool.map(candidates, batches) for ok in batch]
    found, seen = [], set()
    for attempt, ok in zip(tries, verdicts):
        # the first fitting call of each concept, confirmed alone: in a batch one call's side
        # effects could have made another's outputs right
        if ok and attempt.concept_id not in seen and fits(attempt):
            seen.add(attempt.concept_id)
            found.append(attempt)
    return found, len(tries)


def batch_program(calls: Sequence[Fit], pairs: int) -> str:
    """One program making `calls` in turn on the train inputs: the run's grid k is pair
    k % pairs under call k // pairs (the sandbox runs a program's grids in order, each on its
    own clock, an error ending only its own grid)."""
    helpers = ", ".join(sorted({c.helper for c in calls}))
    made = "".join(f"    lambda grid: {c.call},\n" for c in calls)
    return (f"from {MODULE} import {helpers}\n\n_CALLS = [\n{made}]\n_DONE = [0]\n\n\n"
            f"def transform(grid):\n    call = _CALLS[_DONE[0] // {pairs}]\n    _DONE[0] += 1\n    return call(grid)\n")


def fit_attempts(task: Any, fits: Sequence[Fit], memory: Prepared, sandbox: Any) -> list[Attempt]:
    """Each fit as a candidate: its program run on the train and test inputs in the sandbox
    (only its outputs are taken), labelled as made by memory (FIT_LABEL, sample FIT_SAMPLE)."""
    if not fits:
        return []
    modules = {MODULE: memory.module(f.helper for f in fits)}
    attempts = []
    for fit in fits:
        run = run_program(sandbox, task, fit.program, modules=modules, helpers=MODULE)
        attempts.append(Attempt(sample=FIT_SAMPLE, round=0, code=fit.program, raw=fit.call,
                                train_correct=run.train_correct, train_cell_accuracy=run.mean_accuracy,
                                test_outputs=run.test_outputs, error=run.error, label=FIT_LABEL, modules=modules,
                                helpers_called=run.helpers_called))
    return attempts


def fits_from_calls(calls: Sequence[str], memory: Prepared) -> list[Fit]:
    """The fits these recorded calls ("rotate_grid(grid, 2)") are, of helpers memory still has."""
    named = [(call.split("(", 1)[0], call) for call in calls]
    return [Fit(memory.helper_owner[helper], helper, call) for helper, call in named if helper in memory.helper_owner]


def model_steps(threads: Sequence[dict]) -> list[dict]:
    """Thread records (run/stages/threads.py) with only the model's steps: what memory may learn from."""
    return [{**record, "steps": [s for s in record.get("steps") or [] if s.get("label") != FIT_LABEL]}
            for record in threads]


def answered(fits: Sequence[Attempt], predictions: Sequence[Sequence[Any]]) -> list[str]:
    """The calls of the fits whose output on every test input was submitted."""
    return [a.raw for a in fits if a.test_outputs and all(
        j < len(predictions) and out is not None and out in predictions[j] for j, out in enumerate(a.test_outputs))]


@dataclass(frozen=True)
class Probed:
    """What memory's probe found for a task: the fits (named in every thread's hint, their helpers
    offered), each fit run as a candidate answer (--fits-as-answers), and the sandbox's faults."""

    fits: tuple[Fit, ...] = ()
    answers: tuple[Attempt, ...] = ()
    errors: tuple[str, ...] = ()


def probe_task(ctx: TaskContext) -> Probed:
    """Memory's probe as a stage of a task, the same for every memory method: with --helpers and
    --probe-helpers (the method's default unless given), the calls of memory's verified helpers
    that give every train output. It adds to what the method's read shows; it never replaces it.
    In pass order a thread going on keeps the answers the first pass had from memory."""
    config = ctx.config
    if ctx.continuing:
        fits = fits_from_calls(ctx.earlier.fit_answers, ctx.prepared) if config.fits_as_answers else []
        return Probed(answers=tuple(_answers(ctx, fits)))
    if not (config.helpers and config.probe_helpers):
        return Probed()
    ctx.step("trying memory's helpers on the train pairs")
    errors: list[str] = []
    fits = probe(ctx.task, ctx.prepared, ctx.sandbox, errors=errors)[0]
    answers = _answers(ctx, fits) if config.fits_as_answers else []
    return Probed(fits=tuple(fits), answers=tuple(answers), errors=tuple(dict.fromkeys(errors)))


def _answers(ctx: TaskContext, fits: Sequence[Fit]) -> list[Attempt]:
    if not fits:
        return []
    ctx.step("running memory's fitting calls as answers")
    return fit_attempts(ctx.task, fits, ctx.prepared, ctx.sandbox)


__all__ = ["Fit", "FIT_LABEL", "FIT_SAMPLE", "Probed", "answered", "fit_attempts", "fits_from_calls", "model_steps",
           "probe", "probe_task"]
