"""Verifying helpers in the sandbox: a helper enters memory only if a program calling it passes
every train pair of its source task there (the model's word, or a file's, is never enough).

A helper's verification record keeps the program and the task (`task_id` in the task source
`tasks`), so a helper can be verified again: after `concepts edit` changes it, and when a
YAML file brings it in. The program runs with one module built from the helper and the
other helpers it imports (from memory, or from the same file), and must call the helper,
directly or through another helper it calls. Helper code only ever runs in the sandbox;
which helpers a program imports is read from its source (memory/helpers/source.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from arcmemo.core.errors import ArcmemoError
from arcmemo.core.helpermodule import MODULE
from arcmemo.core.tasks import Task, TaskError, load_tasks
from arcmemo.memory.helpers.modules import build_module, closure
from arcmemo.memory.helpers.source import imported_helpers
from arcmemo.memory.helpers.value import Helper, Verified
from arcmemo.run.stages.prepared import prepared
from arcmemo.solverkit.programs import run_on_pairs


class HelperVerificationError(ArcmemoError, ValueError):
    """A helper did not verify; the message says why (which pair, what error, or not called)."""


def check_program(sandbox, task: Task, program: str, helpers: Mapping[str, Helper],
                  wanted: Iterable[str] = ()) -> tuple[str | None, set[str]]:
    """Run `program` on the task's train pairs with the module of `wanted` and the helpers it
    imports (`helpers`: function name -> helper, dependencies included): (None, the
    helpers it reached: called, or called by a helper it called) when it passes every pair,
    else (why not, set())."""
    def depends(name: str) -> tuple[str, ...]:
        return helpers[name].depends if name in helpers else ()

    names = [n for n in closure(set(wanted) | set(imported_helpers(program)), depends) if n in helpers]
    module = build_module({name: helpers[name].source for name in names})
    check = run_on_pairs(sandbox, program, list(task.train), modules={MODULE: module}, helpers=MODULE)
    using = f" (with the helpers {', '.join(names)})" if len(names) > 1 else ""
    for i, (ok, outcome) in enumerate(zip(check.correct, check.outcomes)):
        if not ok:
            if outcome.ok:
                return f"its program gives a wrong output on train pair {i} of task {task.id}{using}", set()
            detail = (outcome.message or "").strip().splitlines()[-1:] or [""]
            return (f"its program fails on train pair {i} of task {task.id}{using}: {outcome.error}: "
                    f"{detail[0][:300]}", set())
    return None, set(closure([n for o in check.outcomes for n in o.called], depends))


def run_with_helpers(sandbox, task: Task, program: str, helpers: Mapping[str, Helper], wanted: Iterable[str]) -> str | None:
    """None when `program` passes every train pair with `helpers` and calls every `wanted` one, else why not."""
    wanted = list(wanted)
    failure, reached = check_program(sandbox, task, program, helpers, wanted)
    if failure is not None:
        return failure
    missing = [name for name in wanted if name not in reached]
    return f"its program (task {task.id}) never calls {', '.join(missing)}" if missing else None


def write_verifier(sandbox, memory, task: Task, tasks: str, run_id: str | None):
    """The `verify(program, helpers)` the PS write's helper step takes (abstraction/helpers.py): the
    rewritten program must pass the task's train pairs with the proposed helpers and the
    memory's; returns its verification record and the helpers it reached, or raises
    HelperVerificationError saying why not. The memory's helpers are those prepared for its
    revision (prepared.py), not read again for each write."""
    library = dict(prepared(memory).helpers)

    def verify(program: str, helpers: Mapping[str, Helper]) -> tuple[Verified, set[str]]:
        failure, reached = check_program(sandbox, task, program, {**library, **helpers}, wanted=helpers)
        if failure is not None:
            raise HelperVerificationError(failure)
        return Verified.now(task.id, tasks, program, run_id), reached

    return verify


class HelperVerifier:
    """Verifies helpers again from their records: `check` for a file's (import), `reverify` for
    an edited one. Tasks are loaded once per task source."""

    def __init__(self, sandbox, memory_helpers: Mapping[str, Helper] | None = None):
        self.sandbox = sandbox
        self.memory_helpers = dict(memory_helpers or {})   # function name -> helper, from memory
        self._tasks: dict[tuple[str, str], Task] = {}

    def _task(self, tasks: str, task_id: str) -> Task:
        key = (tasks, task_id)
        if key not in self._tasks:
            try:
                self._tasks[key] = load_tasks(tasks, ids=[task_id]).by_id(task_id)
            except (TaskError, KeyError, LookupError, OSError, ValueError) as exc:
                raise HelperVerificationError(f"its task {task_id} cannot be found in {tasks!r} ({exc})") from None
        return self._tasks[key]

    def check(self, data: Mapping, batch: Mapping[str, Mapping] = ()) -> None:
        """Raise HelperVerificationError unless the concept's helper verifies with its recorded program
        and task; other helpers come from `batch` (function name -> concept data, e.g. the rest of
        an import file) before memory."""
        helper = Helper.from_data(data["helper"])
        verified = helper.verified
        helpers = {**self.memory_helpers, **{name: Helper.from_data(d["helper"]) for name, d in dict(batch).items()},
                   helper.name: helper}
        failure = run_with_helpers(self.sandbox, self._task(verified.tasks, verified.task_id), verified.program,
                                   helpers, [helper.name])
        if failure is not None:
            raise HelperVerificationError(failure)

    def reverify(self, data: Mapping, run_id: str | None = None) -> dict:
        """The concept's helper verified again with its recorded program and task: the helper's data
        with a new verification record (HelperVerificationError if it fails)."""
        self.check(data)
        helper = Helper.from_data(data["helper"])
        old = helper.verified
        return helper.replace(verified=Verified.now(old.task_id, old.tasks, old.program, run_id)).to_data()


def verify_edit(memory, sandbox, concept, changes: dict, run_id: str | None = None) -> dict:
    """`changes` to a concept with its helper verified again in the sandbox when the edit changes
    it (its source, dependencies, program or task), so the store keeps only a verified helper.
    ConceptDataError (from the schema) or HelperVerificationError say why not; nothing is written."""
    from arcmemo.memory.schema import rules as schema

    helper = changes.get("helper")
    if not helper or _same_helper(helper, concept.helper):
        return changes
    pending = {**helper, "verified": {**(helper.get("verified") or {}), "at": "now"}}  # set by reverify
    data = schema.normalize({**concept.to_data(), **changes, "helper": pending}, format=concept.format)
    verifier = HelperVerifier(sandbox, {name: c.helper for name, c in memory.helpers().items()})
    return {**changes, "helper": verifier.reverify(data, run_id)}


def _same_helper(new: Mapping, old: Helper | None) -> bool:
    """Whether an edited helper (its data) is the stored one (its verification time and run aside)."""
    if not old:
        return False
    fields = ("task_id", "tasks", "program")
    return ((new.get("name"), new.get("source"), sorted(new.get("depends") or []))
            == (old.name, old.source, sorted(old.depends))
            and {k: (new.get("verified") or {}).get(k) for k in fields} == {k: getattr(old.verified, k) for k in fields})


__all__ = ["HelperVerificationError", "HelperVerifier", "check_program", "run_with_helpers", "verify_edit",
           "write_verifier"]
