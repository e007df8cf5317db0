"""MEMWRITE after a block: the block's tasks, in task order, handed to the memory method's write as
it may see them (train pairs only: methods/experience.py), each task's write recorded in the
run directory with its own usage. What a method learns from is its own choice; the run only
decides which tasks its protocol lets it see (the released code's write_when=strict, or pass
order, hand over only the program their rule chose).

Resume: a write already committed is not repeated; one that reached the store before a kill
lost its event is rebuilt from the store's own records (`_recovered`), and one lost to the
endpoint is tried again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from arcmemo.core.answers import INTERRUPTS, describe
from arcmemo.llm import Usage
from arcmemo.methods.contract import Experience, WriteContext, WriteEvent
from arcmemo.methods.experience import experience_of
from arcmemo.run.helpers.verify import write_verifier
from arcmemo.run.records.events import MemoryWrite
from arcmemo.run.records.outcome import TaskOutcome
from arcmemo.run.records.summary import write_line
from arcmemo.run.stages.metered import TaskMeters
from arcmemo.run.stages.probe import model_steps

if TYPE_CHECKING:
    from arcmemo.run.loop import Runner


def write_back(loop: Runner, block: list[TaskOutcome], p: int) -> None:
    """The block's tasks not written yet, in task order, to the method's write (one call)."""
    pending = []
    done = writes_done(loop)
    for outcome in block:
        experience = _experience(loop, outcome, p)
        if experience is None or (p, outcome.task_id) in done:
            continue
        event = _recovered(loop, outcome.task_id, p)
        if event is None:
            pending.append(experience)
            continue
        loop.rundir.append(event)
        loop.write_events.append(MemoryWrite.from_event(event))
    if pending:
        _write(loop, pending, p)


def writes_done(loop: Runner) -> set[tuple[int, str]]:
    return {(w.pass_index, w.task_id) for w in loop.write_events}


def _experience(loop: Runner, outcome: TaskOutcome, p: int) -> Experience | None:
    """The task as the memory method may see it. arcmemo's protocol hands every task to the
    method, which chooses what it learns from; the released code's (write_when=strict, or pass
    order) only a task its own rule writes (`_to_write`), with the program that rule chose."""
    task = loop.task_by_id[outcome.task_id]
    experience = experience_of(task, {**outcome.event(), "threads": model_steps(outcome.threads)})
    if loop.config.protocol.write_when == "train" and not loop.config.pass_order:
        return experience
    code = _to_write(loop, outcome, p)
    return None if code is None else dataclasses.replace(experience, program=code, passed_train=True)


def _to_write(loop: Runner, outcome: TaskOutcome, p: int) -> str | None:
    """The program a continual run writes from a task's outcome in pass p, or None. arcmemo's
    rule: its best program, if any program passed every train pair. write_when=strict (the
    released code): a program also right on every test input (so the run is test-informed).
    In pass order only the steps made in this pass count (the earlier ones had their pass)."""
    protocol, pass_order = loop.config.protocol, loop.config.pass_order
    if protocol.write_when == "train" and not pass_order:
        return outcome.code if outcome.passed_train else None
    depth = p - 1 if pass_order else None
    steps = [s for t in model_steps(outcome.threads) for s in t["steps"] if depth is None or s["round"] == depth]
    fits = [s["code"] for s in steps if s["code"] and s["passed_train"]
            and (protocol.write_when == "train" or (s.get("test_correct") and all(s["test_correct"])))]
    return outcome.code if outcome.code in fits else next(iter(fits), None)


def _recovered(loop: Runner, task_id: str, p: int) -> dict[str, Any] | None:
    """A write for this task that reached the store before a kill lost its event, rebuilt from
    the store's own records (revisions, or the recorded failure) so it is not done twice. A
    write lost to the endpoint is tried again (its failure record is not a finished write).
    Only a resumed run can have one: within a session every write's event follows it."""
    if not loop.resumed:
        return None
    if any(q < p and t == task_id for q, t in writes_done(loop)):
        return None     # an earlier pass wrote it too: the store cannot tell that pass's writes from this one's
    write = loop.memory.writes_of(loop.rundir.run_id, task_id)
    if write is None or (write.failed and (p, task_id) in loop.writes_lost):
        return None
    return {"type": "write", "pass_index": p, "task_id": task_id, "recovered": True, "added": write.added,
            "extended": write.extended, "removed": write.removed, "failed": write.failed, "error": write.error,
            "usage": Usage().to_dict()}


def _write(loop: Runner, experiences: list[Experience], p: int) -> None:
    """One call of the method's write for `experiences`, each task's write then recorded in task
    order with its own usage (TaskMeters): as written, skipped for the budget, or lost to the
    endpoint (`--resume` writes it again); a fatal endpoint fault ends the run here."""
    meters = TaskMeters(loop.llm)
    skipped: set[str] = set()

    def proceed(task_id: str) -> bool:
        if meters.fatal is not None:
            return False
        if loop.over_budget(writing=[m.usage for m in meters.meters.values()]):
            skipped.add(task_id)
            return False
        meters.start(task_id)
        return True

    try:
        events = list(loop.method.write(experiences, loop.items, meters, _context(loop, p, proceed)) or [])
    except INTERRUPTS:
        raise
    except Exception as exc:        # a method broke its contract: its block's writes failed, the run goes on
        error = f"memory method {loop.config.selection!r}: its write raised {describe(exc)}"
        events = [WriteEvent(e.task_id, failed=True, error=error) for e in experiences]
    given = {e.task_id: e for e in events if isinstance(e, WriteEvent)}
    for experience in experiences:
        task_id = experience.task_id
        if task_id in skipped:
            loop.rundir.append({"type": "write_skipped", "pass_index": p, "task_id": task_id, "reason": "budget"})
            continue
        meter = meters.meters.get(task_id)
        event = given.get(task_id) or (WriteEvent(task_id) if meter is not None else None)
        if event is None:               # the method learned nothing from this task (and asked nothing)
            continue
        if meter is not None and meter.fault is not None and event.failed:
            loop.lost(p, task_id, meter, kind="write_lost")
            continue
        usage = meter.usage if meter is not None else Usage()
        record = {"type": "write", "pass_index": p, **event.record(), "usage": usage.to_dict()}
        write = MemoryWrite.from_event(record)
        loop.progress.note(f"{task_id} {write_line(write)}")
        loop.rundir.append(record)
        loop.write_events.append(write)


def _context(loop: Runner, p: int, proceed: Callable[[str], bool]) -> WriteContext:
    run_id, config = loop.rundir.run_id, loop.config

    def verifier(task):
        return write_verifier(loop.sandbox, loop.memory, task, config.source, run_id) if config.helpers else None

    def judge(task_id: str, verdicts: dict[int, str]) -> None:
        loop.memory.record_judgement(run_id=run_id, pass_index=p, task_id=task_id, verdicts=verdicts)

    return WriteContext(run_id=run_id, pass_index=p, memory_format=config.memory_format,
                        memory_tokens=loop.settings.abstraction_memory_tokens, examples=lambda: loop.examples,
                        verifier=verifier, model_params=dict(config.protocol.curation_params() or {}),
                        options=dict(config.method_options), progress=loop.progress.step, proceed=proceed,
                        judge=judge)


__all__ = ["write_back", "writes_done"]
