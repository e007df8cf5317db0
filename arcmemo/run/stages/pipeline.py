"""A task's work, stage by stage, over one task in one pass (DESIGN.md section 13):

    read        the memory method's read: what each thread is shown     (read.py)
    probe       memory's verified helpers tried on the train pairs      (probe.py)
    threads     the solver's attempts and retries, per thread           (threads.py)
    candidates  the model's answers and memory's fits, with origins     (candidates.py)
    choice      the submitted answers, by the train-only rule           (choice.py)
    scoring     the only stage that reads test outputs                  (scoring.py)

then the task's outcome as the event log keeps it (`outcome_of`). The write-back is the
method's, after the block (run/writeback.py). Every stage takes the task's `TaskContext` and
what the stages before it made; a new stage is one module and one line here.
"""

from __future__ import annotations

import time
from typing import Any

from arcmemo.methods.experience import feedback_of
from arcmemo.run.records.outcome import TaskOutcome
from arcmemo.run.records.submission_metadata import newest_call_id, submission_metadata
from arcmemo.run.stages import read as reading
from arcmemo.run.stages.candidates import with_memory_answers
from arcmemo.run.stages.choice import Choice, best_thread, choose
from arcmemo.run.stages.context import TaskContext
from arcmemo.run.stages.offer import helper_use
from arcmemo.run.stages.probe import Probed, answered, probe_task
from arcmemo.run.stages.scoring import retry_judge, score, thread_record
from arcmemo.run.stages.threads import ThreadRun, solve_threads
from arcmemo.scoring.scores import TaskScore
from arcmemo.scoring.submissions import submission_file
from arcmemo.selection import Selection
from arcmemo.selection.types import SELECTION_LEVELS as LEVELS

SANDBOX_FAULT = "sandbox:"      # an attempt's error when the sandbox itself failed (solverkit.programs)


class SandboxFailed(Exception):
    """The sandbox failed every program of the task (not the programs: the sandbox itself): the task
    has no answer to score, and the run logs it as not attempted."""


def solve_task(ctx: TaskContext, answers: Any | None) -> TaskOutcome | None:
    """The task through every stage; None when the endpoint failed under it (the run logs it as
    lost; SandboxFailed likewise for the sandbox). `answers`: the task's test outputs, for the
    scoring stage alone (None: not scored)."""
    started, first_call = time.time(), newest_call_id(ctx.llm)
    selections = reading.read(ctx)
    if selections is None:
        return None
    probed = probe_task(ctx)
    model_runs = solve_threads(ctx, selections, probed, retry_judge(ctx.config, answers))
    if model_runs is None:
        return None
    tried = [a for r in model_runs for a in r.result.attempts] + list(probed.answers)
    if tried and all((a.error or "").startswith(SANDBOX_FAULT) for a in tried):
        raise SandboxFailed(tried[0].error)
    runs = with_memory_answers(model_runs, probed.answers, len(ctx.task.test_inputs))
    choice = choose(runs, ctx.task)
    if answers:
        ctx.step("scoring")
    scored = score(choice.predictions, answers)
    attempts = [a for r in model_runs for a in r.result.attempts]
    ctx.records.add_submission(*submission_file(ctx.task.id, choice.predictions, submission_metadata(
        ctx.llm, ctx.task.id, first_call, attempts, choice.predictions, started=started,
        extra={"run_id": ctx.run_id, "test_id": ctx.run_id, "pass": ctx.pass_index, "solver": ctx.config.solver})))
    return outcome_of(ctx, selections, probed, model_runs, runs, choice, scored, answers)


def outcome_of(ctx: TaskContext, selections: list[Selection], probed: Probed, model_runs: list[ThreadRun],
               runs: list[ThreadRun], choice: Choice, scored: Any, answers: Any | None) -> TaskOutcome:
    """The task event: what every stage made, with the concept use memory counts and the faults."""
    task, p = ctx.task, ctx.pass_index
    attempts = [a for r in model_runs for a in r.result.attempts]      # what memory learns from: the model's
    best = best_thread(model_runs, len(task.test_inputs))
    passed = any(r.result.passed_train for r in model_runs)
    errors = [a.error for a in attempts if a.error]
    selected = list(dict.fromkeys(i for r in runs for i in r.selection.concept_ids))
    again = [record for r in runs for record in r.reselections]      # --reselect-on-retry's choices
    reselected = [i for record in again for i in record["selected"]]
    memory = ctx.prepared
    offered = [memory.by_name[h.concept] for r in runs if r.helpers for h in r.helpers.offered
               if h.concept in memory.by_name]
    shown = list(dict.fromkeys(selected + reselected + offered))
    fresh = [a for a in attempts if a.round == p - 1] if ctx.continuing else attempts   # this pass's
    used = helper_use(fresh, shown, memory.helper_owner, solved=bool(scored is not None and scored.oracle2 == 1))
    for counts in used.values():        # what train pairs alone say of an item, for every memory method
        counts.offered_passing = int(bool(counts.offered) and passed)
    names = memory.names
    levels = [reading.selection_level(r.selection) for r in runs]
    records = [thread_record(r, len(task.test_inputs), answers) for r in runs]
    if ctx.config.pass_order:       # each thread's conversations for the next pass; the first pass's hint
        for record, run in zip(records, runs):
            record["conversations"] = list(run.result.state)
            if p == 1:
                record["hint"] = run.selection.hint
    return TaskOutcome(
        task_id=task.id, pass_index=p, predictions=choice.predictions, passed_train=passed,
        code=best.result.trace.final_code, reasoning=(best.result.trace.reasoning or "")[-4000:],
        scores=TaskScore(scored.oracle1, scored.oracle2, scored.strict) if scored else None,
        usage=ctx.llm.usage, selected=selected,
        selection_fallback=any(r.selection.fallback for r in runs),
        error=next((r.error for r in runs if r.error), None) or (errors[-1] if errors and not passed else None),
        notes=[n for r in runs for n in list(getattr(r.result.trace, "notes", []) or [])
               + ([r.result.error] if r.result.error else [])],
        helper_fits=list(dict.fromkeys(call for r in runs if r.helpers for call in r.helpers.fits)),
        fit_answers=answered(probed.answers, choice.predictions),
        helpers_offered=list(dict.fromkeys([n for r in runs if r.helpers for n in r.helpers.names()]
                                           + [n for record in again for n in record.get("helpers", [])])),
        concept_use=[{"id": cid, "name": names.get(cid), **counts.as_dict()} for cid, counts in used.items()],
        threads=records,
        selection_level=max(levels, key=lambda level: LEVELS.index(level) if level in LEVELS else -1),
        feedback=[f for r in model_runs for f in feedback_of(r.thread, r.result.attempts, r.result.trace.transcript)],
        origins=choice.origins,
        faults=_faults(ctx, selections, probed, model_runs),
    )


def _faults(ctx: TaskContext, selections: list[Selection], probed: Probed, runs: list[ThreadRun]) -> list[dict]:
    """What broke under the task, by stage: a read that raised, the probe's sandbox errors, a
    solver that raised (with its traceback), programs the sandbox failed to run."""
    found = reading.faults(ctx, selections)
    found += [ctx.fault("probe", error) for error in probed.errors]
    found += [ctx.fault("solver", r.error, r.trace, thread=r.thread) for r in runs if r.error]
    broken = [a.error for r in runs for a in r.result.attempts if (a.error or "").startswith(SANDBOX_FAULT)]
    found += [ctx.fault("sandbox", error) for error in dict.fromkeys(broken)]
    return found


__all__ = ["solve_task", "outcome_of", "SandboxFailed", "SANDBOX_FAULT"]
