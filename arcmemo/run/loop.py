"""The solve loop (the ArcMemo paper's Algorithm 1): it orders the tasks, runs blocks of k, commits
records in task order, resumes, and stops at the budget; a task's work is the pipeline of
stages in run/stages/ (read, probe, threads, candidates, choice, scoring).

    for each pass p:                       # pass 1: every task; pass p>1: tasks no attempt solved on train
        for each block of k tasks:         # without --continual: one block of all the tasks
            for task in the block:         # up to --tasks-in-flight of them at once (executors/)
                outcome = stages.solve_task(task)      # MEMREAD with the memory as at the block's start
            for outcome in the block, in task order: the method's MEMWRITE (writeback.py)

Tasks in flight write nothing themselves: each records into its own `TaskRecords`, and
the loop (the driver) commits them to the run directory in task order. So a run's result
(submissions, scores, memory written, revision order) is the same for any number of tasks
in flight, here or on Ray.

Decisions that change memory or control the loop use train pairs only; test outputs are
read by the scoring stage and reported, never fed back. That is arcmemo's protocol; a run may
ask for the ArcMemo authors' released code's instead (run/protocol.py), whose retries and
writes read test outputs (here, never through the solver: it gets a yes or no), and whose
continual order runs each retry depth as a pass of its own (`_pass_todo`). Such a run is
recorded as test-informed. Every finished task, every selection and every write is recorded
in the run directory, so `resume` replays the log instead of redoing work.

Endpoint faults: a task whose model calls found the endpoint unavailable was not really
attempted; it is logged as lost (not as a failed task), so `--resume` tries it again. A
fatal endpoint error (bad key, unknown model) stops the run at once. So does a sandbox that
failed every program of SANDBOX_STOP tasks in a row (`SandboxBroken`): those tasks are lost
too, not wrong answers. The memory is only written by `--continual` runs of a method that
learns (`none` does not): any other run leaves the memory file as it was.

What the run starts with (the tasks, the modules, memory as first read) lives until it ends,
so it is frozen out of the garbage collector's full passes for the run (`gc.freeze`): each
full pass walked all of it again (100-300 ms a pass in benchmarks/solve_overhead.py's runs).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Collection
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import TYPE_CHECKING, Any

from arcmemo import __version__
from arcmemo.abstraction.fewshot import default_seeds_dir, load_examples
from arcmemo.core.errors import ArcmemoError
from arcmemo.core.settings import Settings
from arcmemo.core.tasks import Task, TaskSet
from arcmemo.llm import ROLES
from arcmemo.llm.usage import Usage
from arcmemo.memory.store import Memory
from arcmemo.memory.store.usage import COUNTERS, ConceptUse
from arcmemo.methods.arcmemo.failure_lessons import failure_lesson_counts
from arcmemo.methods.discovery import load_method
from arcmemo.prompts import template_hashes
from arcmemo.run.config import (
    RunConfig,
    answers_record,
    fit_budgets,
    load_run_tasks,
    memory_start,
    memory_url_for_record,
    order_tasks,
)
from arcmemo.run.executors.local import Executor, InProcess
from arcmemo.run.jobs.consolidating import consolidate_after_block
from arcmemo.run.progress.reporter import Reporter, TaskProgress
from arcmemo.run.protocol import ProtocolError, check
from arcmemo.run.records import summary as summaries
from arcmemo.run.records.events import Consolidation, Lost, MemoryWrite, RunLog, run_usage
from arcmemo.run.records.outcome import TaskOutcome, logged_usage
from arcmemo.run.records.puzzles import PUZZLES_KEY, write_puzzles
from arcmemo.run.records.reader import read_run
from arcmemo.run.records.report import running_score
from arcmemo.run.records.rundir import RunDir, new_run_id
from arcmemo.run.records.taskrecords import TaskRecords, TaskResult
from arcmemo.run.repeats import with_draws
from arcmemo.run.stages.context import Notices, TaskContext
from arcmemo.run.stages.metered import MeteredLLM
from arcmemo.run.stages.pipeline import SandboxFailed, solve_task
from arcmemo.run.stages.prepared import prepared
from arcmemo.run.writeback import write_back, writes_done
from arcmemo.solverkit.conversation import SOLVED

if TYPE_CHECKING:
    from arcmemo.llm.client import LLM
    from arcmemo.sandbox import Sandbox
    from arcmemo.solverkit.contract import Solver

PROBE_POLL_S = 0.05     # how often the loop looks whether the endpoint has answered its first call
PROBE_MAX_S = 0.5       # how long the first task runs alone at most, while no call of it failed
TOTALS_EVERY_S = 1.0    # past TOTALS_EACH tasks, the progress display's running totals are recomputed at
TOTALS_EACH = 50        # most this often: they sum over every task done, so once a task makes a long run quadratic
SANDBOX_STOP = 3        # tasks in a row whose every program the sandbox failed to run: the run stops


class SandboxBroken(ArcmemoError, RuntimeError):
    """The sandbox failed every program of several tasks in a row: the run stops (those tasks are
    lost, not wrong; `--resume` solves them once the sandbox works)."""


class Runner:
    """Runs (or resumes) one run. Components are passed in so tests can swap the model."""

    def __init__(self, *, config: RunConfig, tasks: list[Task], answers: dict, memory: Memory, llm: LLM,
                 sandbox: Sandbox, solver: Solver, rundir: RunDir, settings: Settings | None = None,
                 progress: Reporter | None = None, executor: Executor | None = None):
        self.config = config
        self.tasks = tasks
        self.task_by_id = {t.id: t for t in tasks}
        self.answers = answers
        self.memory, self.sandbox, self.solver = memory, sandbox, solver
        self.llm = with_draws(llm, config.repeat)      # a repeat asks afresh (run/repeats.py)
        self.method = load_method(config.selection)
        self.items = config.items(memory)      # memory as the method sees it: its own items (memory/store/scoped.py)
        self.rundir = rundir
        self.settings = settings or Settings.load()
        self.progress = progress or Reporter()
        self.executor = executor or InProcess(1)
        self.notices = Notices()        # what the run says once, whichever task meets it first
        self._answered = False           # has the endpoint answered yet (_slots_open)
        self._totals_at = -TOTALS_EVERY_S    # when the running totals were last shown (monotonic)
        self._probe_since: float | None = None
        self.examples_dir = default_seeds_dir(self.settings.seeds_dir)
        self._examples = None
        self.latest: dict[str, TaskOutcome] = {}    # each task's latest outcome (run)
        self.done: dict[tuple[int, str], TaskOutcome] = {}
        self.write_events: list[MemoryWrite] = []
        self.lost_usage: list[Usage] = []
        self.lost_tasks: dict[tuple[int, str], Lost] = {}
        self.writes_lost: set[tuple[int, str]] = set()
        self.consolidations: list[Consolidation] = []
        self.resumed = False            # does the run directory hold an earlier session's events (run)
        self.recorded: dict[str, Any] = {}  # its config.json (run)
        self._sandbox_failures = 0      # tasks in a row whose every program the sandbox failed to run

    def resolved_config(self) -> dict[str, Any]:
        return {
            "kind": "solve",
            "run_id": self.rundir.run_id,
            "arcmemo_version": __version__,
            **answers_record(self.config, self.llm),
            "abstraction_memory_tokens": self.settings.abstraction_memory_tokens,
            "fewshot_examples": str(self.examples_dir or "packaged"),
            "task_ids": [t.id for t in self.tasks],
            "models_requested": {role: self.llm.settings.model(role) for role in ROLES},
            "base_url": self.llm.settings.base_url, "resolved_settings": self.settings.record() | self.llm.settings.record(),
            "memory_url": memory_url_for_record(str(self.memory.url)),
            "memory_revision_start": self.memory.revision(),
            "memory_start": memory_start(self.items, self.method),
            "prompt_templates": template_hashes(),
            "solver_templates": self.solver.template_hashes() if hasattr(self.solver, "template_hashes") else {},
            "solver": getattr(self.solver, "name", type(self.solver).__name__),
            "sandbox_isolation": self.sandbox.check_isolation(),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }

    @property
    def examples(self):
        """The worked examples of the write prompts (loaded on the first write)."""
        if self._examples is None:
            self._examples = load_examples(self.examples_dir)
        return self._examples

    # ------------------------------------------------------------------ loop
    def run(self) -> dict[str, Any]:
        """Run every pass to the end (or to the budget), replaying what the log already holds."""
        started = time.monotonic()
        check_executor(self.config, self.executor)      # a resumed run may be given another executor
        record = read_run(self.rundir)                  # what earlier sessions did (the reader every view uses)
        log, recorded = record.log, record.recorded
        self.recorded = recorded
        if self.config.continual and not self.config.writes_memory and log.empty:
            self.progress.note(f"--method {self.config.selection} learns nothing: this --continual run leaves "
                               "memory as it is")
        if log.empty and self.config.writes_memory:
            self._record_run(status="running", config=recorded, memory_revision_start=recorded["memory_revision_start"])
        if self.llm.settings.base_url != recorded.get("base_url"):
            self.rundir.append({"type": "endpoint_changed", "base_url": self.llm.settings.base_url,
                                "previous": recorded.get("base_url")})
            self.progress.note(f"endpoint changed for this session: {recorded.get('base_url')} -> "
                               f"{self.llm.settings.base_url}")
        self._replay(log)
        previous_wall = log.wall_time_s
        self.rundir.append({"type": "session_start", "resumed": self.resumed})

        per_pass: list[dict[str, Any]] = []
        stopped = None
        passes = self.config.retries + 1 if self.config.pass_order else self.config.passes
        try:
            self.executor.prepare(self)
            prepared(self.memory)           # memory as first read: with the tasks and modules, kept
            gc.freeze()                     # out of the collector's full passes (module docstring)
            for p in range(1, passes + 1):
                todo = self._pass_todo(p)
                if not todo:
                    break
                self.progress.begin(len(todo), (f"pass {p} (retry depth {p - 1})" if self.config.pass_order else
                                                f"pass {p}" if passes > 1 else "tasks"))
                # Algorithm 1's blocks: every task of a block reads the memory as it was at the
                # block's start, so they may be in flight at once; writes follow the block.
                k = self.config.k if self.config.continual else len(todo)
                for start in range(0, len(todo), k):
                    block, stopped = self._solve_block(todo[start:start + k], p)
                    if self.config.writes_memory and block:
                        write_back(self, block, p)
                        consolidate_after_block(self, p, start // k + 1)
                    if stopped:
                        break
                per_pass.append(summaries.pass_scores(p, self.latest, self.config))
                if stopped:
                    break
        finally:
            gc.unfreeze()
            self.executor.close()

        wall = previous_wall + time.monotonic() - started
        self.rundir.append({"type": "session_end", "wall_time_s": round(time.monotonic() - started, 3)})
        summary = self._summary(per_pass, stopped, wall)
        self.rundir.write_summary(summary)
        if self.config.writes_memory:
            self._record_run(status=f"stopped: {stopped}" if stopped else "done",
                             memory_revision_end=summary["memory_revision_end"])
        return summary

    def _replay(self, log: RunLog) -> None:
        """What earlier sessions did, from the run's log as every view reads it (records/reader.py)."""
        self.done = log.done
        self.write_events = list(log.writes)
        self.lost_usage = list(log.lost_usage)
        self.lost_tasks = log.tasks_lost()
        self.writes_lost = log.writes_lost()
        self.consolidations = list(log.consolidations)
        self.resumed = not log.empty
        self.latest = {}            # a later pass in pass order goes on from each task's latest outcome

    def _pass_todo(self, p: int) -> list[Task]:
        """The tasks pass p solves: every task first; then (--passes) those no attempt solved on
        the train pairs (nor a fit of memory's answered), or (pass order) those with a thread
        that goes on retrying."""
        if p == 1:
            return self.tasks
        latest = self.latest
        if self.config.pass_order:
            return [t for t in self.tasks if t.id in latest and _retrying(latest[t.id])]
        return [t for t in self.tasks if t.id in latest and not (latest[t.id].passed_train or latest[t.id].fit_answers)]

    def _solve_block(self, tasks: list[Task], p: int) -> tuple[list[TaskOutcome], str | None]:
        """Solve one block's tasks, up to the executor's slots at once, committing each to the run
        directory in task order as soon as it and every task before it are done. Returns the
        block's outcomes in task order and why the run stopped (None: it did not)."""
        outcomes: list[TaskOutcome] = []
        running: dict[int, Future] = {}
        submitted = committed = 0
        stopped = None
        try:
            while True:
                while committed < submitted and (committed not in running or running[committed].done()):
                    outcome = self._commit_next(tasks[committed], p, running.pop(committed, None))
                    if outcome is not None:
                        outcomes.append(outcome)
                    committed += 1
                if committed == len(tasks) or (stopped and committed == submitted):
                    break
                if submitted < len(tasks) and stopped is None and _at_work(running) < self._slots_open():
                    task = tasks[submitted]
                    if (p, task.id) not in self.done:
                        if self.over_budget(running.values()):
                            stopped = "budget"
                            self.rundir.append({"type": "budget_stop", "pass_index": p, "task_id": task.id})
                            continue
                        self.progress.item(task.id)
                        running[submitted] = self.executor.submit(self, task, p)
                    submitted += 1
                    continue
                wait([f for f in running.values() if not f.done()], return_when=FIRST_COMPLETED,
                     timeout=None if self._answered else PROBE_POLL_S)
        finally:
            for future in running.values():     # Ctrl-C or a fatal error: tasks not committed are dropped
                future.cancel()
        return outcomes, stopped

    def _slots_open(self) -> int:
        """The executor's slots, once the endpoint has answered a call in this session, or the first
        task has been at work PROBE_MAX_S without a failed call (an endpoint rejects a bad key or
        model at once; a model's answer takes longer), or a task finished (its calls may have been
        made elsewhere, on a Ray worker); before, one: a bad key or model stops the run after one
        request, not one per slot."""
        if not self._answered:
            usage = self.llm.usage() if callable(getattr(self.llm, "usage", None)) else None
            calls, errors = (usage.calls, usage.errors) if usage else (0, 0)
            waited = self._probe_since is not None and time.monotonic() - self._probe_since > PROBE_MAX_S
            self._answered = calls > errors or (waited and errors == 0)
        if self._probe_since is None:
            self._probe_since = time.monotonic()      # the first task starts now
        return self.executor.slots if self._answered else 1

    def solve_task(self, task: Task, p: int) -> TaskResult:
        """Solve one task on its own (what an executor runs, here or on another machine): the task's
        stages with its own records and progress row, so tasks in flight at once never write the
        run directory; the driver commits the result (`_commit_next`)."""
        records = TaskRecords(self.rundir.run_id)
        started = time.monotonic()
        outcome, error, lost = None, None, None
        meter = MeteredLLM(self.llm)
        try:
            outcome = self._solve(self.task_context(task, p, meter, records), self.answers.get(task.id))
            if outcome is None:
                lost = self.lost(p, task.id, meter, records=records)
        except SandboxFailed as exc:
            lost = self.lost(p, task.id, meter, records=records, cause="sandbox", error=f"sandbox failed: {exc}")
        except Exception as exc:         # an EndpointFatal (logged in the records first) or a bug: the driver raises it
            error = exc
        if outcome is not None:
            records.append(outcome.event())
        return TaskResult(task_id=task.id, pass_index=p, outcome=outcome, records=records, lost=lost,
                          lost_usage=[lost["usage"]] if lost else [], error=error, elapsed=time.monotonic() - started)

    def task_context(self, task: Task, p: int, meter: MeteredLLM, records: TaskRecords) -> TaskContext:
        """What task `task`'s stages are lent in pass p (memory as prepared when it starts: it does
        not change while the task is solved)."""
        earlier = self.latest.get(task.id) if self.config.pass_order and p > 1 else None
        return TaskContext(task=task, pass_index=p, config=self.config, method=self.method, memory=self.items,
                           prepared=prepared(self.memory), llm=meter, sandbox=self.sandbox, solver=self.solver,
                           records=records, progress=TaskProgress(self.progress, task.id), notices=self.notices,
                           earlier=earlier, opened=self.done.get((1, task.id)) if earlier is not None else None)

    def _solve(self, ctx: TaskContext, answers: Any) -> TaskOutcome | None:
        """The task's stages (run/stages/pipeline.py); None when the endpoint failed under it."""
        return solve_task(ctx, answers)

    def _commit_next(self, task: Task, p: int, future: Future | None) -> TaskOutcome | None:
        """The next task in order, finished: written to the run directory and the run's state (the
        driver alone does); a task done in an earlier session (no future) only counts."""
        if future is None:
            outcome = self.latest[task.id] = self.done[(p, task.id)]
            self.progress.item_done(None, item=task.id)
            return outcome
        result: TaskResult = future.result()
        self._answered = True
        key = (p, task.id)
        self.rundir.commit(result.records)
        self.lost_usage.extend(logged_usage(u) for u in result.lost_usage)
        if result.error is not None:
            raise result.error
        outcome = result.outcome
        if outcome is None:                 # lost to the endpoint (or the sandbox): --resume retries it
            self.lost_tasks[key] = Lost.from_event(result.lost)
            self.progress.item_done(f"not attempted: {result.lost['error']}", item=task.id, elapsed=result.elapsed)
            self._count_sandbox_failure(result.lost)
            return None
        self._sandbox_failures = 0
        self.done[key] = self.latest[task.id] = outcome
        self.lost_tasks.pop(key, None)
        self._record_use(outcome)
        if self.progress.shows_totals and (len(self.latest) <= TOTALS_EACH or len(self.latest) == len(self.tasks)
                                           or time.monotonic() - self._totals_at >= TOTALS_EVERY_S):
            self.progress.totals(self._totals())
            self._totals_at = time.monotonic()
        self.progress.item_done(summaries.outcome_line(outcome), item=task.id, elapsed=result.elapsed)
        return outcome

    def _count_sandbox_failure(self, lost: dict[str, Any]) -> None:
        """SANDBOX_STOP tasks in a row lost to the sandbox stop the run (SandboxBroken)."""
        self._sandbox_failures = self._sandbox_failures + 1 if lost.get("cause") == "sandbox" else 0
        if self._sandbox_failures >= SANDBOX_STOP:
            raise SandboxBroken(f"the sandbox failed every program of the last {self._sandbox_failures} tasks "
                                f"({lost['error']}); the run stopped, those tasks recorded as not attempted. "
                                "`arcmemo doctor` checks the sandbox")

    def _record_use(self, outcome: TaskOutcome) -> None:
        """A task's concept use into memory, by the driver in task order; only for a run that writes
        memory (a read-only run leaves it as it was: its use stays in its task events)."""
        if self.config.writes_memory and outcome.concept_use:
            used = {row["id"]: ConceptUse(**{name: row.get(name, 0) for name in COUNTERS}) for row in outcome.concept_use}
            self.memory.record_usage(run_id=self.rundir.run_id, pass_index=outcome.pass_index,
                                     task_id=outcome.task_id, used=used)

    def _record_run(self, **fields: Any) -> None:
        """The memory's own record of a run that writes it, so revisions' run ids lead somewhere."""
        self.memory.record_run(self.rundir.run_id, kind="solve", **fields)

    def usage(self) -> Usage:          # what it cost so far: tasks, writes, lost work, consolidations
        return run_usage(self.done.values(), self.write_events, self.lost_usage, self.consolidations)

    def _totals(self) -> str:
        usage = self.usage()
        score = running_score(self.latest.values(), self.config.threads, self.config.retries, self.recorded)
        return f"{score} · {usage.prompt_tokens + usage.completion_tokens:,} tokens · ${usage.cost_usd:.3f}"

    def lost(self, p: int, task_id: str, meter: MeteredLLM, kind: str = "task_lost", records: Any = None,
             cause: str = "endpoint", error: str | None = None) -> dict[str, Any]:
        """Log what a task (or write) lost to the endpoint (or the sandbox: `cause`) cost, into the
        task's `records` or the run directory; a fatal endpoint fault ends the run here."""
        event = {"type": "endpoint_fatal" if meter.fatal else kind, "pass_index": p, "task_id": task_id,
                 "error": error or str(meter.fault), "cause": cause, "usage": meter.usage.to_dict()}
        (records or self.rundir).append(event)
        if meter.fatal is not None:
            raise meter.fatal
        if records is None:
            self.lost_usage.append(meter.usage)
            if kind == "write_lost":
                self.writes_lost.add((p, task_id))
        return event

    def over_budget(self, in_flight: Collection[Future] = (), writing: Collection[Usage] = ()) -> bool:
        """Stop before a task or write whose expected cost (the dearest so far) would exceed the budget,
        counting each task still in flight (or finished, not yet committed) at that cost too, and the
        usage of writes made but not yet recorded (`writing`); lost work and consolidations cost too."""
        if self.config.budget_usd is None:
            return False
        costs = [o.usage.cost_usd for o in self.done.values()]
        costs += [w.usage.cost_usd for w in self.write_events]
        costs += [u.cost_usd for u in writing]
        costs += [c.usage.cost_usd for c in self.consolidations]
        spent = sum(costs) + sum(u.cost_usd for u in self.lost_usage)
        expected = max(costs, default=0)
        return spent >= self.config.budget_usd or spent + expected * (len(in_flight) + 1) > self.config.budget_usd

    def _summary(self, per_pass: list[dict[str, Any]], stopped: str | None, wall: float) -> dict[str, Any]:
        done = writes_done(self)
        return summaries.summary(
            run_id=self.rundir.run_id, config=self.config, tasks_planned=len(self.tasks), latest=self.latest,
            done=self.done, per_pass=per_pass, writes=self.write_events, consolidations=self.consolidations,
            usage=self.usage(),
            lost_tasks=[t for _, t in self.lost_tasks], writes_lost=[t for q, t in self.writes_lost if (q, t) not in done],
            scored=bool(self.answers), stopped=stopped, wall=wall, memory_revision_end=self.memory.revision(),
            failure_lessons=failure_lesson_counts(self.items, [w.event() for w in self.write_events],
                                                  self.done.values(), self.config.method_options))


def _retrying(outcome: TaskOutcome) -> bool:
    """Pass order: whether a task has a thread whose conversation goes on (none of its
    conversations ended solved, and one has not ended)."""
    for thread in outcome.threads:
        states = thread.get("conversations") or []
        if any(s.get("finished") is None for s in states) and not any(s.get("finished") == SOLVED for s in states):
            return True
    return False


def _at_work(running: dict[int, Future]) -> int:
    """Tasks still being solved (a finished task waiting for its turn to commit holds no slot)."""
    return sum(not f.done() for f in running.values())


def check_protocol_fits(config: RunConfig, answers: dict, executor: Executor | None) -> None:
    """ProtocolError, before a run directory exists, when the run's protocol needs what this run
    lacks: test outputs to decide retries on, or (pass order) the driver's own process, where
    each thread's conversation waits between passes."""
    check(config.protocol, continual=config.continual, passes=config.passes, method=load_method(config.selection),
          scored=bool(answers))
    check_executor(config, executor)


def check_executor(config: RunConfig, executor: Executor | None) -> None:
    """Pass order hands each thread's earlier conversations from the driver's state to the task:
    only an executor in this process can take them."""
    if config.pass_order and not isinstance(executor, (InProcess, type(None))):
        raise ProtocolError(f"continual_order=pass (protocol {config.protocol.name}) keeps each thread's "
                            "conversation in this process between passes: run it without --executor ray")


def new_runner(config: RunConfig, *, memory: Memory, make_llm: Callable[[str], Any], sandbox: Sandbox, solver: Solver,
               runs_root: str, settings: Settings | None = None, progress: Reporter | None = None,
               run_id: str | None = None, taskset: TaskSet | None = None, executor: Executor | None = None) -> Runner:
    """A fresh run: settings checked and tasks loaded (both can fail: before anything is made),
    tasks ordered and limited once, then a new run directory holding the run's config."""
    settings = settings or Settings.load()
    taskset = taskset or load_run_tasks(config)
    tasks = order_tasks(taskset, config)
    answers = taskset.answers_for_scoring(config.score)
    check_protocol_fits(config, answers, executor)
    run_id = run_id or new_run_id()
    llm = make_llm(run_id)
    runner = Runner(config=fit_budgets(config, llm), tasks=tasks, answers=answers,
                    memory=memory, llm=llm, sandbox=sandbox, solver=solver, rundir=RunDir.create(runs_root, run_id),
                    settings=settings, progress=progress, executor=executor)
    runner.rundir.write_config({**runner.resolved_config(), PUZZLES_KEY: write_puzzles(runner.rundir, tasks, answers)})
    return runner


def resume_runner(rundir: RunDir, *, memory: Memory, make_llm: Callable[[str], Any], sandbox: Sandbox, solver: Solver,
                  settings: Settings | None = None, progress: Reporter | None = None,
                  executor: Executor | None = None) -> Runner:
    """Continue a run from its directory: same settings, same tasks in the same order, its own puzzles."""
    record = read_run(rundir)
    record.check_resumable()
    config, taskset = record.config, record.run_tasks()
    tasks = [taskset.by_id(t) for t in record.planned]
    llm = make_llm(rundir.run_id)
    return Runner(config=fit_budgets(config, llm), tasks=tasks, answers=taskset.answers_for_scoring(config.score),
                  memory=memory, llm=llm, sandbox=sandbox, solver=solver, rundir=rundir,
                  settings=settings or Settings.load(), progress=progress, executor=executor)


__all__ = ["Runner", "SandboxBroken", "new_runner", "resume_runner", "check_protocol_fits",
           "check_executor", "SANDBOX_STOP"]
