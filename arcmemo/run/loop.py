"""The solve loop (the ArcMemo paper's Algorithm 1): read memory, solve, score, write back.

    for each pass p:                       # pass 1: every task; pass p>1: tasks no attempt solved on train
        for each block of k tasks:         # without --continual: one block of all the tasks
            for task in the block:         # up to --tasks-in-flight of them at once (executors.py)
                hint   = select(task, memory)  # MEMREAD: the memory as it was at the block's start
                result = solver.solve(task, hint)
                score the predictions      # the only place test outputs are read
            for r in the block, in task order: if r passed every TRAIN pair: MEMWRITE(memory, r)

Tasks in flight write nothing themselves: each records into its own `TaskRecords`, and
the loop (the driver) commits them to the run directory in task order. So a run's result
(submissions, scores, memory written, revision order) is the same for any number of tasks
in flight, here or on Ray.

Decisions that change memory or control the loop use train pairs only; test outputs are
read by scoring and reported, never fed back. That is arcmemo's protocol; a run may ask for
the ArcMemo authors' released code's instead (run/protocol.py), whose retries and writes
read test outputs (here, never through the solver: it gets a yes or no), and whose
continual order runs each retry depth as a pass of its own (`_pass_todo`,
`_continue_thread`). Such a run is recorded as test-informed. Every finished task, every selection and
every write is recorded in the run directory, so `resume` replays the log instead of
redoing work: finished tasks are not re-solved, and a write already committed (found in
the store's revision history by run and task) is not repeated.

Endpoint faults: a task whose model calls found the endpoint unavailable was not really
attempted; it is logged as lost (not as a failed task), so `--resume` tries it again. A
fatal endpoint error (bad key, unknown model) stops the run at once. The memory is only
written by `--continual` runs: a read-only run leaves the memory file as it was.

What the run starts with (the tasks, the modules, memory as first read) lives until it ends,
so it is frozen out of the garbage collector's full passes for the run (`gc.freeze`): each
full pass walked all of it again (100-300 ms a pass in benchmarks/solve_overhead.py's runs).
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import os
import random
import threading
import time
from collections.abc import Callable, Collection
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from arcmemo import __version__
from arcmemo.abstraction.fewshot import default_seeds_dir, load_examples
from arcmemo.core.answers import INTERRUPTS, describe
from arcmemo.core.gridtext import DEFAULT_GRID_TEXT, check_grid_text
from arcmemo.core.settings import Settings
from arcmemo.core.tasks import Task, TaskSet, load_tasks
from arcmemo.llm import ROLES, Usage
from arcmemo.memory.store import Memory
from arcmemo.memory.store.usage import COUNTERS, ConceptUse
from arcmemo.methods.arcmemo.failure_lessons import failure_lesson_counts
from arcmemo.methods.contract import Experience, WriteContext, WriteEvent, check_options
from arcmemo.methods.discovery import MODES, load_method
from arcmemo.methods.experience import experience_of, feedback_of
from arcmemo.methods.reading import select
from arcmemo.prompts import template_hashes
from arcmemo.run.executors.local import Executor, InProcess
from arcmemo.run.helpers.verify import write_verifier
from arcmemo.run.jobs.consolidating import consolidate_after_block
from arcmemo.run.progress.reporter import Reporter, TaskProgress
from arcmemo.run.protocol import PROTOCOL_KEY, Protocol, ProtocolError, check, from_record
from arcmemo.run.records.report import running_score
from arcmemo.run.records.rundir import RunDir, RunDirError, new_run_id
from arcmemo.run.records.selections import selection_record
from arcmemo.run.records.submission_metadata import newest_call_id, submission_metadata
from arcmemo.run.records.taskrecords import TaskRecords, TaskResult
from arcmemo.run.stages.metered import MeteredLLM, TaskMeters
from arcmemo.run.stages.offer import helper_limit, helper_use, offer_helpers
from arcmemo.run.stages.prepared import Prepared, prepared
from arcmemo.run.stages.probe import (
    PROBED,
    Fit,
    answered,
    fit_attempts,
    fit_selection,
    fits_from_calls,
    model_steps,
    probe,
    with_fit_attempts,
)
from arcmemo.run.stages.threads import (
    ThreadRun,
    best_thread,
    outcome_scores,
    per_task_scores,
    selection_level,
    submitted_predictions,
    thread_record,
)
from arcmemo.scoring import attempts_from_predictions, score_task, step_verdicts
from arcmemo.scoring.strict import last_step_table, steps_from_records
from arcmemo.scoring.submissions import submission_file
from arcmemo.selection import Selection, SelectionSettings
from arcmemo.selection.budget import budgets_for
from arcmemo.selection.types import DEFAULT_HINT_BUDGET, DEFAULT_TOKEN_BUDGET
from arcmemo.solverkit import Hint, MemoryHelpers, SolveContext, SolveResult, SolverSettings, Trace
from arcmemo.solverkit.conversation import SOLVED

ORDERS = ("as-given", "shuffled")
PROBE_POLL_S = 0.05     # how often the loop looks whether the endpoint has answered its first call
PROBE_MAX_S = 0.5       # how long the first task runs alone at most, while no call of it failed
TOTALS_EVERY_S = 1.0    # past TOTALS_EACH tasks, the progress display's running totals are recomputed at
TOTALS_EACH = 50        # most this often: they sum over every task done, so once a task makes a long run quadratic
LEVELS = ("full", "collapsed", "compressed", "prefiltered")     # selection levels, least degraded first
DEGRADED = {"collapsed": "concepts used in one earlier puzzle listed by name alone",
            "compressed": "names, parameters and typing only",
            "prefiltered": "only the concepts whose words best match the puzzle, compressed"}


def _own_fields(cls, data: dict[str, Any]) -> dict[str, Any]:
    """The entries of `data` that are fields of dataclass `cls` (records may carry more)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass
class RunConfig:
    """Everything that shapes a run; stored in the run directory's config.json. The steps'
    own settings are derived from it in one place (selection_settings, solver_settings)."""

    source: str = "training"          # a task source (arcmemo.core.tasks.load_tasks)
    task_ids: list[str] | None = None
    solutions: str | None = None      # test outputs for a challenges-file source
    score: bool = True                # False: solve without scoring (the summary's score is unknown)
    limit: int | None = None
    solver: str = "program-synthesis"
    selection: str = "ps"             # the memory method (arcmemo.methods; --method is the same)
    memory_format: str | None = None  # ps | oe; defaults from the selection mode
    top_k: int = 5
    expand: bool = False
    token_budget: int | None = None  # None: sized to the run's models (selection.budget.budgets_for)
    hint_budget: int | None = None
    attempts: int = 1
    retries: int = 2
    max_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None   # the solver's (the other roles': LLMSettings.call_defaults)
    passes: int = 1
    continual: bool = False
    k: int = 10
    order: str = "as-given"  # as-given | shuffled
    seed: int = 0
    budget_usd: float | None = None
    model_seed: int | None = None     # the models' sampling seed (sample i of a task: model_seed + i)
    helpers: bool = True              # offer the selected concepts' helpers to the solver's programs
    max_helpers: int | None = None    # at most this many per task; None: sized to the solver model (offer.py)
    probe_helpers: bool = True        # try the helpers on the train pairs; offer first those that fit (probe.py)
    fits_as_answers: bool = True      # each fit is also a candidate answer of its own, made by memory (probe.py)
    # The paper's protocol (issue 13): independent threads per task, its hint, re-selection.
    threads: int = 1                  # each a selection plus a sample and its retry chain
    other_names: bool = True          # ps: the hint also names the concepts not selected (the paper's)
    reselect_on_retry: bool = False   # select again with a failed try's feedback before its retry
    config_file: str | None = None    # the run configuration file its settings came from, if any
    prompts_dir: str | None = None    # the user's templates, in force before the shipped ones (run/prompting.py)
    grid_text: str = DEFAULT_GRID_TEXT  # how prompts write grids (core/gridtext.py)
    # Where arcmemo and the released code differ (run/protocol.py): a Protocol, or a profile name or
    # recorded mapping (resolved here); config.json keeps it apart from the settings, under "protocol".
    protocol: Protocol = field(default_factory=Protocol)
    method_options: dict[str, Any] = field(default_factory=dict)  # the memory method's own settings
    consolidate_every: int | None = None  # --continual: consolidate memory every N blocks (run/jobs/consolidating.py)

    def __post_init__(self) -> None:
        if self.selection not in MODES:
            raise ValueError(f"selection must name an installed memory method ({', '.join(MODES)}; "
                             f"`arcmemo methods list`), not {self.selection!r}")
        if self.method_options:
            check_options(load_method(self.selection), self.method_options)
        self.protocol = from_record(self.protocol)
        check(self.protocol, continual=self.continual, passes=self.passes, selection=self.selection,
              scored=self.score)
        if self.memory_format is None:
            self.memory_format = "oe" if self.selection == "oe" else "ps"
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {self.order!r}")
        for name in ("k", "passes", "attempts", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.retries < 0 or (self.limit is not None and self.limit < 1):
            raise ValueError(f"retries must be 0 or more and limit 1 or more, got {self.retries} and {self.limit}")
        if self.max_helpers is not None and self.max_helpers < 0:
            raise ValueError(f"max_helpers must be 0 or more, got {self.max_helpers}")
        if self.consolidate_every is not None and (self.consolidate_every < 1 or not self.continual):
            raise ValueError(f"consolidate_every needs continual and must be at least 1, got {self.consolidate_every}")
        check_grid_text(self.grid_text)
        if self.grid_text == DEFAULT_GRID_TEXT:      # not chosen on its own: the protocol's (released-code: numpy)
            self.grid_text = self.protocol.grid_text
        self.selection_settings(1)   # the selection mode, top-k, memory format and budgets, checked there

    def _stream(self, pass_index: int, thread: int) -> int:
        """Which (pass, thread) this is, counted from 0: each gets samples of its own, so the
        model is asked afresh (the call cache keys on the sample index)."""
        return (pass_index - 1) * self.threads + thread

    def selection_settings(self, pass_index: int, thread: int = 0) -> SelectionSettings:
        return SelectionSettings(
            mode=self.selection, top_k=self.top_k, expand=self.expand, memory_format=self.memory_format,
            token_budget=self.token_budget or DEFAULT_TOKEN_BUDGET, hint_budget=self.hint_budget or DEFAULT_HINT_BUDGET,
            pass_index=self._stream(pass_index, thread) + 1, other_names=self.other_names,
            select_params=self._seed_params(), view=self.protocol.selector_view, hint_form=self.protocol.hint_form,
            caption_image="puzzle" if self.protocol.oe_caption == "per-puzzle" else "pairs",
            options=dict(self.method_options))

    def solver_settings(self, pass_index: int, thread: int = 0) -> SolverSettings:
        # later passes and other threads start past the earlier ones' samples
        return SolverSettings(attempts=self.attempts, retries=self.retries, max_tokens=self.max_tokens,
                              temperature=self.temperature, reasoning_effort=self.reasoning_effort,
                              sample_offset=self._stream(pass_index, thread) * self.attempts,
                              extra=self._seed_params(), feedback=self.protocol.feedback,
                              answer_reading=self.protocol.answer_reading)

    def _seed_params(self) -> dict[str, Any]:
        return {} if self.model_seed is None else {"seed": self.model_seed}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        # a run recorded before the probe (or fits as answers) existed resumes as it started: without it
        return cls(**{"probe_helpers": False, "fits_as_answers": False, **_own_fields(cls, data)})


@dataclass(frozen=True)
class SharedRead:
    """What a task's threads share when the protocol reads memory once per puzzle: the selection,
    or the OE caption (an Outcome of selection.oe.caption_task)."""

    selection: Selection | None = None
    caption: Any = None


@dataclass
class TaskOutcome:
    """One task solved in one pass, as recorded in the event log."""

    task_id: str
    pass_index: int
    predictions: list[list[Any]]       # per test input: up to two grids, best first
    passed_train: bool
    code: str | None
    reasoning: str
    scores: dict[str, float]           # {} when the run solves without scoring
    usage: dict[str, float]            # Usage.to_dict() of every call made for the task
    selected: list[int]
    selection_fallback: bool
    error: str | None = None
    notes: list[str] = field(default_factory=list)   # the solver's remarks (e.g. views dropped for length)
    helpers_offered: list[str] = field(default_factory=list)   # helper functions the solver was offered
    helper_fits: list[str] = field(default_factory=list)       # calls the probe found to give every train output
    fit_answers: list[str] = field(default_factory=list)       # those whose outputs were submitted (--fits-as-answers)
    concept_use: list[dict] = field(default_factory=list)      # per concept: id, name and its use counters
    # Threads (run/stages/threads.py): every thread's selection and steps, and the task's selection
    # level (the most degraded of its threads'). Runs from before threads have neither.
    threads: list[dict[str, Any]] = field(default_factory=list)
    selection_level: str | None = None
    # The feedback each thread's kept conversation was answered with, per round (methods/experience.py)
    feedback: list[dict[str, Any]] = field(default_factory=list)

    def event(self) -> dict[str, Any]:
        """The task event: the fields as they are, plain JSON values (dataclasses.asdict's deep
        copy cost more than the rest of the event's way to the log)."""
        return {"type": "task", **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}}

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> TaskOutcome:
        return cls(**_own_fields(cls, event))


def sessions_wall_time(events: list[dict[str, Any]]) -> float:
    """The wall time of a run's earlier sessions: each one's `session_end`, or, for a session
    killed before it could write one (SIGKILL, an out-of-memory kill, a power cut), from its
    start to its last event."""
    total, start, last = 0.0, None, None
    for event in events:
        if event["type"] == "session_start":
            if start is not None and last is not None:
                total += max(0.0, last - start)          # the session before ended without a word
            start, last = event.get("time"), event.get("time")
        elif event["type"] == "session_end":
            total += event.get("wall_time_s", 0)
            start = last = None
        elif start is not None and event.get("time") is not None:
            last = event["time"]
    if start is not None and last is not None:
        total += max(0.0, last - start)
    return total


def order_tasks(taskset: TaskSet, config: RunConfig) -> list[Task]:
    tasks = list(taskset.tasks)
    if config.order == "shuffled":
        random.Random(config.seed).shuffle(tasks)
    if config.limit is not None:
        tasks = tasks[: config.limit]
    return tasks


def total_usage(records: list[dict[str, Any]]) -> Usage:
    """The sum of recorded usages (Usage.to_dict form)."""
    return sum((Usage.from_dict(r) for r in records), Usage())


class Runner:
    """Runs (or resumes) one run. Components are passed in so tests can swap the model."""

    def __init__(self, *, config: RunConfig, tasks: list[Task], answers: dict, memory: Memory, llm: Any,
                 sandbox: Any, solver: Any, rundir: RunDir, settings: Settings | None = None,
                 progress: Reporter | None = None, executor: Executor | None = None):
        self.config = config
        self.tasks = tasks
        self.answers = answers
        self.memory, self.llm, self.sandbox, self.solver = memory, llm, sandbox, solver
        self.rundir = rundir
        self.settings = settings or Settings.load()
        self.progress = progress or Reporter()
        self.executor = executor or InProcess(1)
        self._answered = False           # has the endpoint answered yet (_slots_open)
        self._totals_at = -TOTALS_EVERY_S    # when the running totals were last shown (monotonic)
        self._probe_since: float | None = None
        self.examples_dir = default_seeds_dir(self.settings.seeds_dir)
        self._examples = None
        self._said_levels: set[str] = set()      # degraded selection levels already announced
        self._latest: dict[str, TaskOutcome] = {}    # each task's latest outcome (run)
        self._resumed = False           # does the run directory hold an earlier session's events (run)

    # ------------------------------------------------------------------ config
    def resolved_config(self) -> dict[str, Any]:
        return {
            "kind": "solve",
            "run_id": self.rundir.run_id,
            "arcmemo_version": __version__,
            "settings": {k: v for k, v in dataclasses.asdict(self.config).items() if k != PROTOCOL_KEY},
            PROTOCOL_KEY: self.config.protocol.record(continual=self.config.continual),
            "abstraction_memory_tokens": self.settings.abstraction_memory_tokens,
            "fewshot_examples": str(self.examples_dir or "packaged"),
            "task_ids": [t.id for t in self.tasks],
            "models": {role: self.llm.model_for(role) for role in ROLES},
            "models_requested": {role: self.llm.settings.model(role) for role in ROLES},
            "call_defaults": {role: self.llm.settings.call_defaults(role) for role in ROLES},
            "base_url": self.llm.settings.base_url,
            "memory_url": memory_url_for_record(str(self.memory.url)),
            "memory_revision_start": self.memory.revision(),
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
        events = list(self.rundir.events())
        recorded = self.rundir.config()
        if not events and self.config.continual:
            self._record_run(status="running", config=recorded, memory_revision_start=recorded["memory_revision_start"])
        if self.llm.settings.base_url != recorded.get("base_url"):
            self.rundir.append({"type": "endpoint_changed", "base_url": self.llm.settings.base_url,
                                "previous": recorded.get("base_url")})
            self.progress.note(f"endpoint changed for this session: {recorded.get('base_url')} -> "
                               f"{self.llm.settings.base_url}")
        self.done = done = {(e["pass_index"], e["task_id"]): TaskOutcome.from_event(e)
                            for e in events if e["type"] == "task"}
        self.write_events = [e for e in events if e["type"] == "write"]
        self.lost_usage = [e.get("usage", {}) for e in events if e["type"] in ("task_lost", "write_lost")]
        self.lost = {(e["pass_index"], e["task_id"]): e for e in events if e["type"] == "task_lost"}
        self.writes_lost = {(e["pass_index"], e["task_id"]) for e in events if e["type"] == "write_lost"}
        previous_wall = sessions_wall_time(events)
        self._resumed = bool(events)
        self.rundir.append({"type": "session_start", "resumed": self._resumed})

        latest: dict[str, TaskOutcome] = {}
        self._latest = latest       # a later pass in pass order goes on from each task's latest outcome
        per_pass: list[dict[str, Any]] = []
        stopped = None
        passes = self.config.retries + 1 if self._pass_order else self.config.passes
        try:
            self.executor.prepare(self)
            prepared(self.memory)           # memory as first read: with the tasks and modules, kept
            gc.freeze()                     # out of the collector's full passes (module docstring)
            for p in range(1, passes + 1):
                todo = self._pass_todo(p, latest)
                if not todo:
                    break
                self.progress.begin(len(todo), (f"pass {p} (retry depth {p - 1})" if self._pass_order else
                                                f"pass {p}" if passes > 1 else "tasks"))
                # Algorithm 1's blocks: every task of a block reads the memory as it was at the
                # block's start, so they may be in flight at once; writes follow the block.
                k = self.config.k if self.config.continual else len(todo)
                for start in range(0, len(todo), k):
                    block, stopped = self._solve_block(todo[start:start + k], p, latest)
                    if self.config.continual and block:
                        self._write_back(block, p)
                        consolidate_after_block(self, p, start // k + 1)
                    if stopped:
                        break
                per_pass.append(self._pass_scores(p, latest))
                if stopped:
                    break
        finally:
            gc.unfreeze()
            self.executor.close()

        wall = previous_wall + time.monotonic() - started
        self.rundir.append({"type": "session_end", "wall_time_s": round(time.monotonic() - started, 3)})
        summary = self._summary(latest, done, per_pass, stopped, wall)
        summary.update(_strict_variants(latest.values(), self.config))
        self.rundir.write_summary(summary)
        if self.config.continual:
            self._record_run(status=f"stopped: {stopped}" if stopped else "done",
                             memory_revision_end=summary["memory_revision_end"])
        return summary

    @property
    def _pass_order(self) -> bool:
        """continual_order=pass: pass p runs retry depth p - 1 of every task that still retries."""
        return self.config.continual and self.config.protocol.continual_order == "pass"

    def _pass_todo(self, p: int, latest: dict[str, TaskOutcome]) -> list[Task]:
        """The tasks pass p solves: every task first; then (--passes) those no attempt solved on
        the train pairs (nor a fit of memory's answered), or (pass order) those with a thread
        that goes on retrying."""
        if p == 1:
            return self.tasks
        if self._pass_order:
            return [t for t in self.tasks if t.id in latest and _retrying(latest[t.id])]
        return [t for t in self.tasks if t.id in latest and not (latest[t.id].passed_train or latest[t.id].fit_answers)]

    def _solve_block(self, tasks: list[Task], p: int, latest: dict[str, TaskOutcome]
                     ) -> tuple[list[TaskOutcome], str | None]:
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
                    outcome = self._commit_next(tasks[committed], p, running.pop(committed, None), latest)
                    if outcome is not None:
                        outcomes.append(outcome)
                    committed += 1
                if committed == len(tasks) or (stopped and committed == submitted):
                    break
                if submitted < len(tasks) and stopped is None and _at_work(running) < self._slots_open():
                    task = tasks[submitted]
                    if (p, task.id) not in self.done:
                        if self._over_budget(running.values()):
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
        """Solve one task on its own (what an executor runs, here or on another machine): `_solve`
        as it is, seeing a copy of this runner whose run directory is the task's own records and
        whose progress is the task's own row, so tasks in flight at once never write the run
        directory; the driver commits the result (`_commit_next`)."""
        records = TaskRecords(self.rundir.run_id)
        view = copy.copy(self)
        view.rundir, view.progress = records, TaskProgress(self.progress, task.id)
        view.lost, view.lost_usage, view.writes_lost = {}, [], set()
        started = time.monotonic()
        outcome, error = None, None
        try:
            outcome = view._solve(task, p)
        except Exception as exc:         # an EndpointFatal (logged in the records first) or a bug: the driver raises it
            error = exc
        if outcome is not None:
            records.append(outcome.event())
        return TaskResult(task_id=task.id, pass_index=p, outcome=outcome, records=records,
                          lost=view.lost.get((p, task.id)), lost_usage=view.lost_usage, error=error,
                          elapsed=time.monotonic() - started)

    def _commit_next(self, task: Task, p: int, future: Future | None, latest: dict[str, TaskOutcome]
                     ) -> TaskOutcome | None:
        """The next task in order, finished: written to the run directory and the run's state (the
        driver alone does); a task done in an earlier session (no future) only counts."""
        if future is None:
            outcome = latest[task.id] = self.done[(p, task.id)]
            self.progress.item_done(None, item=task.id)
            return outcome
        result: TaskResult = future.result()
        self._answered = True
        key = (p, task.id)
        self.rundir.commit(result.records)
        self.lost_usage.extend(result.lost_usage)
        if result.error is not None:
            raise result.error
        outcome = result.outcome
        if outcome is None:                 # lost to the endpoint: --resume retries it
            self.lost[key] = result.lost
            self.progress.item_done(f"not attempted: {result.lost['error']}", item=task.id, elapsed=result.elapsed)
            return None
        self.done[key] = latest[task.id] = outcome
        self.lost.pop(key, None)
        self._record_use(outcome)
        if self.progress.shows_totals and (len(latest) <= TOTALS_EACH or len(latest) == len(self.tasks)
                                           or time.monotonic() - self._totals_at >= TOTALS_EVERY_S):
            self.progress.totals(self._totals(latest))
            self._totals_at = time.monotonic()
        self.progress.item_done(_outcome_line(outcome), item=task.id, elapsed=result.elapsed)
        return outcome

    def _record_use(self, outcome: TaskOutcome) -> None:
        """A task's concept use into memory, by the driver in task order; only for a run that writes
        memory (a read-only run leaves it as it was: its use stays in its task events)."""
        if self.config.continual and outcome.concept_use:
            used = {row["id"]: ConceptUse(**{name: row.get(name, 0) for name in COUNTERS}) for row in outcome.concept_use}
            self.memory.record_usage(run_id=self.rundir.run_id, pass_index=outcome.pass_index,
                                     task_id=outcome.task_id, used=used)

    def _record_run(self, **fields: Any) -> None:
        """The memory's own record of a run that writes it, so revisions' run ids lead somewhere."""
        self.memory.record_run(self.rundir.run_id, kind="solve", **fields)

    def _totals(self, latest: dict[str, TaskOutcome]) -> str:
        usage = total_usage([o.usage for o in self.done.values()] + [e.get("usage", {}) for e in self.write_events])
        score = running_score(latest.values(), self.config.threads, self.config.retries, self.rundir.config())
        return f"{score} · {usage.prompt_tokens + usage.completion_tokens:,} tokens · ${usage.cost_usd:.3f}"

    def _lost(self, p: int, task_id: str, meter: MeteredLLM, kind: str = "task_lost") -> None:
        """Log what the endpoint cost this task (or write); a fatal fault ends the run here."""
        event = {"type": "endpoint_fatal" if meter.fatal else kind, "pass_index": p, "task_id": task_id,
                 "error": str(meter.fault), "usage": meter.usage.to_dict()}
        self.rundir.append(event)
        self.lost_usage.append(event["usage"])
        if meter.fatal is not None:
            raise meter.fatal
        if kind == "task_lost":
            self.lost[(p, task_id)] = event
        else:
            self.writes_lost.add((p, task_id))

    def _solve(self, task: Task, p: int) -> TaskOutcome | None:
        """Select, solve and score one task in `threads` independent threads (run/stages/threads.py);
        None when the endpoint failed under it (logged as lost)."""
        meter = MeteredLLM(self.llm)
        started, first_call = time.time(), newest_call_id(self.llm)
        self._task_memory = prepared(self.memory)      # this task's view of the runner: one revision throughout
        earlier = self._latest.get(task.id) if self._pass_order and p > 1 else None
        if earlier is not None:     # pass order: each thread goes on from where the last pass left it
            fits, solve_thread = [], lambda t: self._continue_thread(task, p, t, meter, earlier)
            from_memory = self._fit_answers(task, self._fits_answered(earlier))     # as the first pass had them
        else:
            fits = self._probe(task)        # memory does not change while a task is solved: once serves all
            from_memory = self._fit_answers(task, fits)
            shared = self._shared_read(task, p, meter, fits)     # the protocol's once-per-puzzle steps, if any
            if meter.fault is not None:
                return self._lost(p, task.id, meter)
            solve_thread = lambda t: self._solve_thread(task, p, t, meter, fits, shared)    # noqa: E731
        if self.config.threads == 1:
            runs = [solve_thread(0)]
        else:       # threads share nothing but the task (and `shared`): they run at once, each on its own samples
            with ThreadPoolExecutor(self.config.threads, thread_name_prefix=f"{task.id}-thread") as pool:
                runs = list(pool.map(solve_thread, range(self.config.threads)))
        if any(run is None for run in runs):
            return self._lost(p, task.id, meter)
        model_runs = runs                                               # what memory learns from: the model's
        attempts = [a for r in model_runs for a in r.result.attempts]
        best = best_thread(model_runs, len(task.test_inputs))
        passed = any(r.result.passed_train for r in model_runs)
        runs = [dataclasses.replace(r, result=with_fit_attempts(r.result, from_memory, len(task.test_inputs)))
                for r in model_runs]                                    # the fits ranked with each thread's attempts
        predictions = submitted_predictions(runs, task)
        # Scoring is the only reader of test outputs; its result never feeds back into the loop.
        answers = self.answers.get(task.id)     # none: the run solves without scoring
        if answers:
            self.progress.step("scoring")
        score = score_task(attempts_from_predictions(predictions), answers) if answers else None
        self.rundir.add_submission(*submission_file(task.id, predictions, submission_metadata(
            self.llm, task.id, first_call, attempts, predictions, started=started,
            extra={"run_id": self.rundir.run_id, "test_id": self.rundir.run_id, "pass": p,
                   "solver": self.config.solver})))
        errors = [a.error for a in attempts if a.error]
        selected = list(dict.fromkeys(i for r in runs for i in r.selection.concept_ids))
        again = [record for r in runs for record in r.reselections]      # --reselect-on-retry's choices
        reselected = [i for record in again for i in record["selected"]]
        memory = self._prepared()
        offered = [memory.by_name[h.concept] for r in runs if r.helpers for h in r.helpers.offered
                   if h.concept in memory.by_name]
        shown = list(dict.fromkeys(selected + reselected + offered))
        fresh = [a for a in attempts if a.round == p - 1] if earlier is not None else attempts   # this pass's
        used = helper_use(fresh, shown, memory.helper_owner, solved=bool(score is not None and score.oracle2 == 1))
        for counts in used.values():        # what train pairs alone say of an item, for every memory method
            counts.offered_passing = int(bool(counts.offered) and passed)
        names = memory.names
        levels = [selection_level(r.selection) for r in runs]
        return TaskOutcome(
            task_id=task.id, pass_index=p, predictions=predictions, passed_train=passed,
            code=best.result.trace.final_code, reasoning=(best.result.trace.reasoning or "")[-4000:],
            scores={"oracle1": score.oracle1, "oracle2": score.oracle2, "strict": score.strict} if score else {},
            usage=meter.usage.to_dict(), selected=selected,
            selection_fallback=any(r.selection.fallback for r in runs),
            error=next((r.error for r in runs if r.error), None) or (errors[-1] if errors and not passed else None),
            notes=[n for r in runs for n in list(getattr(r.result.trace, "notes", []) or [])
                   + ([r.result.error] if r.result.error else [])],
            helper_fits=list(dict.fromkeys(call for r in runs if r.helpers for call in r.helpers.fits)),
            fit_answers=answered(from_memory, predictions),
            helpers_offered=list(dict.fromkeys([n for r in runs if r.helpers for n in r.helpers.names()]
                                               + [n for record in again for n in record.get("helpers", [])])),
            concept_use=[{"id": cid, "name": names.get(cid), **counts.as_dict()} for cid, counts in used.items()],
            threads=[self._thread_record(r, task, p, answers) for r in runs],
            selection_level=max(levels, key=lambda level: LEVELS.index(level) if level in LEVELS else -1),
            feedback=[f for r in model_runs
                      for f in feedback_of(r.thread, r.result.attempts, r.result.trace.transcript)],
        )

    def _solve_thread(self, task: Task, p: int, t: int, meter: MeteredLLM, fits: list[Fit],
                      shared: SharedRead | None = None) -> ThreadRun | None:
        """One thread: its own selection (a sample of its own, unless the probe's `fits` make it,
        or the protocol selects once per puzzle: `shared`) and one solver call; None when the
        endpoint failed under it."""
        if shared is not None and shared.selection is not None:
            selection = shared.selection
        else:
            self.progress.step(self._thread_label(t) + "selecting")
            selection = self._select(task, p, t, meter, fits, shared)
            if meter.fault is not None:
                return None
            self._record_selection(task, p, t, selection)
        helpers = self._helpers_for(selection, fits)
        hint = Hint(text=selection.hint, concept_ids=list(selection.concept_ids), mode=selection.mode,
                    helpers=helpers)
        reselections: list[dict[str, Any]] = []
        ctx = self._context(task, p, t, meter, selection, reselections, fits)
        return self._run_solver(task, t, selection, hint, ctx, meter, reselections, helpers)

    def _context(self, task: Task, p: int, t: int, meter: MeteredLLM, selection: Selection,
                 reselections: list[dict[str, Any]], fits: list[Fit], resume: list[dict] | None = None
                 ) -> SolveContext:
        """What thread t's solver call is given: the model (metered), sandbox and settings, its
        progress line, re-selection before a retry (--reselect-on-retry), the run's retry decision
        (retry_when=test-fails) and, in pass order, the conversations to go on from."""
        label = self._thread_label(t)
        return SolveContext(llm=meter, sandbox=self.sandbox, settings=self._solver_settings(p, t),
                            run_id=self.rundir.run_id, progress=lambda text: self.progress.step(label + text),
                            reselect=self._reselector(task, p, t, meter, reselections, fits)
                            if self.config.reselect_on_retry and selection.mode in ("ps", "oe") else None,
                            wants_retry=self._test_decides(task), resume=resume)

    def _run_solver(self, task: Task, t: int, selection: Selection, hint: Hint, ctx: SolveContext,
                    meter: MeteredLLM, reselections: list[dict[str, Any]], helpers) -> ThreadRun | None:
        """The solver's call for thread t; None when the endpoint failed under it."""
        try:
            result = self.solver.solve(task, hint, ctx)
        except Exception as exc:  # a plugin broke its contract; one task must not end the run
            result = SolveResult(attempts=[], predictions=[[] for _ in task.test_inputs],
                                 trace=Trace(reasoning="", final_code=None, passing_attempt=None, transcript=[]),
                                 usage=None)
            solver_error = f"solver raised {type(exc).__name__}: {exc}"
        else:
            solver_error = None
        if meter.fault is not None:
            return None
        return ThreadRun(thread=t, selection=selection, result=result, error=solver_error, reselections=reselections,
                         helpers=helpers)

    def _continue_thread(self, task: Task, p: int, t: int, meter: MeteredLLM, earlier: TaskOutcome
                         ) -> ThreadRun | None:
        """Pass order, pass p > 1: thread t goes on from its conversations as the last pass left
        them, with the hint it was opened with (the released code keeps a thread's first prompt);
        one more round for a conversation that still retries, none for one that ended."""
        record = earlier.threads[t]
        opened = self.done[(1, task.id)].threads[t]
        selection = Selection(mode=self.config.selection, concept_ids=list(record["selected"]),
                              hint=opened.get("hint", ""), fallback=bool(record["fallback"]),
                              stats={"form": record["level"]} if record.get("level") else {})
        helpers = self._helpers_for(selection, [])
        reselections = list(record.get("reselections", []))
        ctx = self._context(task, p, t, meter, selection, reselections, [],
                            resume=list(record.get("conversations") or []))
        hint = Hint(text=selection.hint, concept_ids=list(selection.concept_ids), mode=selection.mode,
                    helpers=helpers)
        return self._run_solver(task, t, selection, hint, ctx, meter, reselections, helpers)

    def _thread_label(self, t: int) -> str:
        """How the progress line names thread t (nothing for a one-thread run)."""
        return f"thread {t + 1} of {self.config.threads}: " if self.config.threads > 1 else ""

    def _solver_settings(self, p: int, t: int) -> SolverSettings:
        """Thread t's solver settings in pass p; in pass order, pass p is one thread going on to
        retry depth p - 1 (its samples are the first pass's)."""
        if self._pass_order:
            return dataclasses.replace(self.config.solver_settings(1, t), retries=p - 1)
        return self.config.solver_settings(p, t)

    def _thread_record(self, run: ThreadRun, task: Task, p: int, answers) -> dict[str, Any]:
        """A thread as the event log keeps it (run/stages/threads.py); in pass order also its conversations'
        state for the next pass, and, in the first pass, the hint they were opened with."""
        record = thread_record(run, len(task.test_inputs), answers)
        if self._pass_order:
            record["conversations"] = list(run.result.state)
            if p == 1:
                record["hint"] = run.selection.hint
        return record

    def _select(self, task: Task, p: int, t: int, meter: MeteredLLM, fits: list[Fit],
                shared: SharedRead | None = None) -> Selection:
        """Thread `t`'s selection: the probe's fits (ps), else the selection mode's, reading the
        puzzle's caption when the protocol made one for all threads."""
        if fits and self.config.selection == "ps":     # what running the helpers showed beats a guess
            return fit_selection(fits, self._prepared())
        settings = self.config.selection_settings(p, t)
        if shared is not None and shared.caption is not None:
            if not shared.caption.ok:
                return Selection(mode=settings.mode, fallback=True, error=shared.caption.error)
            settings = dataclasses.replace(settings, caption=shared.caption.value)
        return select(task, self.memory, settings, meter)

    def _record_selection(self, task: Task, p: int, t: int, selection: Selection, shared_by: int = 1) -> None:
        record = selection_record(task.id, p, selection, self._prepared().names, thread=t)
        if shared_by > 1:
            record["shared_by_threads"] = shared_by
        self.rundir.append_selection(record)
        self._say_if_nothing_matched(task.id, selection)
        self._say_if_degraded(selection)

    def _shared_read(self, task: Task, p: int, meter: MeteredLLM, fits: list[Fit]) -> SharedRead | None:
        """What the protocol reads once per puzzle for all its threads: the selection
        (select_once), or, for OE, the caption (oe_caption per-puzzle); None: each thread its own."""
        protocol, threads = self.config.protocol, self.config.threads
        if threads == 1 or self.config.selection not in ("ps", "oe"):
            return None
        if protocol.select_once:
            self.progress.step("selecting (once for every thread)")
            selection = self._select(task, p, 0, meter, fits)
            if meter.fault is None:
                self._record_selection(task, p, 0, selection, shared_by=threads)
            return SharedRead(selection=selection)
        if self.config.selection == "oe" and protocol.oe_caption == "per-puzzle":
            from arcmemo.selection.oe import caption_task

            self.progress.step("captioning (once for every thread)")
            return SharedRead(caption=caption_task(task, meter, self.config.selection_settings(p, 0)))
        return None

    def _test_decides(self, task: Task) -> Callable[[Any], bool] | None:
        """retry_when=test-fails: whether an attempt's thread retries, from its test outputs scored
        here (a yes or no is all the solver gets back); None: the solver's train-pair rule."""
        if self.config.protocol.retry_when != "test-fails":
            return None
        answers = self.answers[task.id]
        return lambda attempt: not all(step_verdicts(list(attempt.test_outputs or []), answers))

    def _prepared(self) -> Prepared:
        """Memory as prepared for the task being solved (read when it started: memory does not
        change while a task is solved), else for its current revision (run/stages/prepared.py)."""
        return getattr(self, "_task_memory", None) or prepared(self.memory)

    def _probe(self, task: Task) -> list[Fit]:
        """The calls of memory's helpers that give every train output (run/stages/probe.py): with
        --helpers and --probe-helpers, for selection ps and all (`none` reads no memory)."""
        if not (self.config.helpers and self.config.probe_helpers and self.config.selection in PROBED):
            return []
        self.progress.step("trying memory's helpers on the train pairs")
        return probe(task, self._prepared(), self.sandbox)[0]

    def _fits_answered(self, earlier: TaskOutcome) -> list[Fit]:
        """The fits whose answers an earlier pass submitted (pass order goes on from it)."""
        return fits_from_calls(earlier.fit_answers, self._prepared()) if self.config.fits_as_answers else []

    def _fit_answers(self, task: Task, fits: list[Fit]) -> list:
        """--fits-as-answers: each fit as a candidate answer of its own, made by memory (probe.fit_attempts)."""
        if not (fits and self.config.fits_as_answers):
            return []
        self.progress.step("running memory's fitting calls as answers")
        return fit_attempts(task, fits, self._prepared(), self.sandbox)

    def _helpers_for(self, selection, fits: list[Fit]) -> MemoryHelpers | None:
        """The helpers offered with a selection's hint (None: --helpers off, or none to offer):
        the selected concepts' (the memory's best used first, then in the select model's
        order), or, when the probe found calls that give every train output, only theirs, in
        the probe's order: any other would be a guess, and a small model offered more helpers
        calls them all."""
        if not self.config.helpers:
            return None
        if fits:
            wanted, usage = [f.concept_id for f in fits], None
        else:
            wanted = list((selection.stats or {}).get("ranked_ids") or selection.concept_ids)   # ps: the model's order
            usage = self.memory.usage(concept_ids=wanted) if wanted else None
        if not wanted:
            return None
        helpers = offer_helpers(self._prepared(), wanted, helper_limit(self.llm, self.config.max_helpers), usage)
        if helpers is not None:
            helpers.fits = [f.call for f in fits if f.helper in set(helpers.names())]
        return helpers

    def _reselector(self, task: Task, p: int, t: int, meter: MeteredLLM, made: list[dict[str, Any]],
                    fits: list[Fit]):
        """--reselect-on-retry: selection run again with a failed try's feedback, recorded like the
        first (selections.jsonl, with its retry) and listed in `made`; the solver shows its hint
        (and offers its helpers) with the feedback."""
        lock = threading.Lock()

        def reselect(feedback: str, retry: int, sample: int) -> Hint | None:
            settings = dataclasses.replace(self.config.selection_settings(p, t), retry_feedback=feedback)
            selection = select(task, self.memory, settings, meter)
            helpers = None if selection.fallback else self._helpers_for(selection, fits)
            with lock:
                self.rundir.append_selection(selection_record(task.id, p, selection, self._prepared().names,
                                                              thread=t, retry=retry))
                made.append({"retry": retry, "sample": sample, "selected": list(selection.concept_ids),
                             "level": selection_level(selection), "fallback": bool(selection.fallback),
                             "helpers": helpers.names() if helpers is not None else []})
            self._say_if_degraded(selection)
            if selection.fallback:
                return None
            return Hint(text=selection.hint, concept_ids=list(selection.concept_ids), mode=selection.mode,
                        helpers=helpers)

        return reselect

    def _say_if_degraded(self, selection) -> None:
        """Once per run and level: the select model did not see the whole memory in full."""
        level = selection_level(selection)
        if level in (None, "full", selection.stats.get("view")):     # what the protocol asked for is no degradation
            return
        if level in self._said_levels:          # a race between tasks in flight at worst says it twice
            return
        self._said_levels.add(level)
        stats = selection.stats
        self.progress.note(f"selection degraded: the memory ({stats.get('memory_size')} concepts) does not fit the "
                           f"select prompt's budget of {stats.get('budget')} tokens in full; shown {level} "
                           f"({DEGRADED[level]}). Each task's level is in `arcmemo runs selections` and the "
                           "summary; --token-budget raises the budget")

    def _say_if_nothing_matched(self, task_id: str, selection) -> None:
        """A selection that named only things not in memory shows memory doing nothing: say so."""
        again = selection.stats.get("asked_again")
        if again is None:
            return
        named = ", ".join(repr(n) for n in again["unmatched"][:5])
        self.progress.note(f"{task_id}: the select model named nothing in memory ({named}); asked again with "
                           f"the memory's names listed: {again['matched']} matched")

    def _write_back(self, block: list[TaskOutcome], p: int) -> None:
        """MEMWRITE: the block's tasks not written yet, in task order, as the memory method sees
        them (`_experience`), to its write (which chooses what it learns from: ArcMemo's methods,
        the programs that passed every train pair)."""
        pending = []
        for outcome in block:
            experience = self._experience(outcome, p)
            if experience is None or (p, outcome.task_id) in self._writes_done():
                continue
            event = self._recovered_write(outcome.task_id, p)
            if event is None:
                pending.append(experience)
                continue
            self.rundir.append(event)
            self.write_events.append(event)
        if pending:
            self._write(pending, p)

    @property
    def method(self):
        """The run's memory method (arcmemo.methods)."""
        return load_method(self.config.selection)

    def _experience(self, outcome: TaskOutcome, p: int) -> Experience | None:
        """The task as the memory method may see it (train pairs only: methods/experience.py). arcmemo's
        protocol hands every task to the method, which chooses what it learns from; the released
        code's (write_when=strict, or pass order) only a task its own rule writes (`_to_write`),
        with the program that rule chose."""
        task = next(t for t in self.tasks if t.id == outcome.task_id)
        experience = experience_of(task, {**outcome.event(), "threads": model_steps(outcome.threads)})
        if self.config.protocol.write_when == "train" and not self._pass_order:
            return experience
        code = self._to_write(outcome, p)
        return None if code is None else dataclasses.replace(experience, program=code, passed_train=True)

    def _to_write(self, outcome: TaskOutcome, p: int) -> str | None:
        """The program a continual run writes from a task's outcome in pass p, or None. arcmemo's
        rule: its best program, if any program passed every train pair. write_when=strict (the
        released code): a program also right on every test input (so the run is test-informed).
        In pass order only the steps made in this pass count (the earlier ones had their pass)."""
        protocol = self.config.protocol
        if protocol.write_when == "train" and not self._pass_order:
            return outcome.code if outcome.passed_train else None
        depth = p - 1 if self._pass_order else None
        steps = [s for t in model_steps(outcome.threads) for s in t["steps"] if depth is None or s["round"] == depth]
        fits = [s["code"] for s in steps if s["code"] and s["passed_train"]
                and (protocol.write_when == "train" or (s.get("test_correct") and all(s["test_correct"])))]
        return outcome.code if outcome.code in fits else next(iter(fits), None)

    def _writes_done(self) -> set[tuple[int, str]]:
        return {(e["pass_index"], e["task_id"]) for e in self.write_events}

    def _recovered_write(self, task_id: str, p: int) -> dict[str, Any] | None:
        """A write for this task that reached the store before a kill lost its event, rebuilt from
        the store's own records (revisions, or the recorded failure) so it is not done twice. A
        write lost to the endpoint is tried again (its failure record is not a finished write).
        Only a resumed run can have one: within a session every write's event follows it."""
        if not self._resumed:
            return None
        if any(q < p and t == task_id for q, t in self._writes_done()):
            return None     # an earlier pass wrote it too: the store cannot tell that pass's writes from this one's
        write = self.memory.writes_of(self.rundir.run_id, task_id)
        if write is None or (write.failed and (p, task_id) in self.writes_lost):
            return None
        return {"type": "write", "pass_index": p, "task_id": task_id, "recovered": True, "added": write.added,
                "extended": write.extended, "removed": write.removed, "failed": write.failed, "error": write.error,
                "usage": Usage().to_dict()}

    def _write(self, experiences: list[Experience], p: int) -> None:
        """One call of the method's write for `experiences`, each task's write then recorded in task
        order with its own usage (TaskMeters): as written, skipped for the budget, or lost to the
        endpoint (`--resume` writes it again); a fatal endpoint fault ends the run here."""
        meters = TaskMeters(self.llm)
        skipped: set[str] = set()

        def proceed(task_id: str) -> bool:
            if meters.fatal is not None:
                return False
            if self._over_budget(writing=[m.usage.to_dict() for m in meters.meters.values()]):
                skipped.add(task_id)
                return False
            meters.start(task_id)
            return True

        ctx = self._write_context(p, proceed)
        try:
            events = list(self.method.write(experiences, self.memory, meters, ctx) or [])
        except INTERRUPTS:
            raise
        except Exception as exc:        # a method broke its contract: its block's writes failed, the run goes on
            error = f"memory method {self.config.selection!r}: its write raised {describe(exc)}"
            events = [WriteEvent(e.task_id, failed=True, error=error) for e in experiences]
        given = {e.task_id: e for e in events if isinstance(e, WriteEvent)}
        for experience in experiences:
            task_id = experience.task_id
            if task_id in skipped:
                self.rundir.append({"type": "write_skipped", "pass_index": p, "task_id": task_id, "reason": "budget"})
                continue
            meter = meters.meters.get(task_id)
            event = given.get(task_id) or (WriteEvent(task_id) if meter is not None else None)
            if event is None:               # the method learned nothing from this task (and asked nothing)
                continue
            if meter is not None and meter.fault is not None and event.failed:
                self._lost(p, task_id, meter, kind="write_lost")
                continue
            usage = meter.usage if meter is not None else Usage()
            record = {"type": "write", "pass_index": p, **event.record(), "usage": usage.to_dict()}
            self.progress.note(f"{task_id} {_write_line(record)}")
            self.rundir.append(record)
            self.write_events.append(record)

    def _write_context(self, p: int, proceed: Callable[[str], bool]) -> WriteContext:
        run_id = self.rundir.run_id

        def verifier(task: Task):
            return write_verifier(self.sandbox, self.memory, task, self.config.source, run_id) if self.config.helpers \
                else None

        def judge(task_id: str, verdicts: dict[int, str]) -> None:
            self.memory.record_judgement(run_id=run_id, pass_index=p, task_id=task_id, verdicts=verdicts)

        return WriteContext(run_id=run_id, pass_index=p, memory_format=self.config.memory_format,
                            memory_tokens=self.settings.abstraction_memory_tokens, examples=lambda: self.examples,
                            verifier=verifier, model_params=dict(self.config.protocol.curation_params() or {}),
                            options=dict(self.config.method_options), progress=self.progress.step, proceed=proceed,
                            judge=judge)

    def _over_budget(self, in_flight: Collection[Future] = (), writing: Collection[dict] = ()) -> bool:
        """Stop before a task or write whose expected cost (the dearest so far) would exceed the budget,
        counting each task still in flight (or finished, not yet committed) at that cost too, and the
        usage of writes made but not yet recorded (`writing`)."""
        if self.config.budget_usd is None:
            return False
        costs = [o.usage.get("cost_usd", 0) for o in self.done.values()]
        costs += [e.get("usage", {}).get("cost_usd", 0) for e in self.write_events]
        costs += [u.get("cost_usd", 0) for u in writing]
        spent = sum(costs) + sum(u.get("cost_usd", 0) for u in self.lost_usage)
        expected = max(costs, default=0)
        return spent >= self.config.budget_usd or spent + expected * (len(in_flight) + 1) > self.config.budget_usd

    # ------------------------------------------------------------------ scores
    def _pass_scores(self, p: int, latest: dict[str, TaskOutcome]) -> dict[str, Any]:
        return {"pass": p, "tasks": len(latest),
                **outcome_scores(latest.values(), self.config.threads, self.config.retries, table=False)}

    def _summary(self, latest, done, per_pass, stopped, wall) -> dict[str, Any]:
        usage = total_usage([o.usage for o in done.values()] + [e.get("usage", {}) for e in self.write_events]
                            + self.lost_usage)
        added = sorted({name for e in self.write_events for name in e.get("added", [])})
        extended = sorted({name for e in self.write_events for name in e.get("extended", [])})
        return {
            "run_id": self.rundir.run_id,
            "tasks": len(latest),
            "tasks_planned": len(self.tasks),
            **outcome_scores(latest.values(), self.config.threads, self.config.retries),  # scoring/runscore.py
            "scored": bool(self.answers),     # False: no test outputs (or --no-score); scores are None
            "passes": per_pass,
            "passed_train": sorted(t for t, o in latest.items() if o.passed_train),
            "solved": sorted(t for t, o in latest.items() if o.scores.get("oracle2") == 1),
            "per_task": per_task_scores(latest, self.config.threads, self.config.retries),
            "concepts_selected_per_task": round(sum(len(o.selected) for o in done.values()) / (len(done) or 1), 2),
            "selection_fallbacks": sum(o.selection_fallback for o in done.values()),
            "concept_use": {name: sum(row.get(name, 0) for o in done.values() for row in o.concept_use)
                            for name in COUNTERS},
            "probe_fit_tasks": sorted(t for t, o in latest.items() if o.helper_fits),
            "fit_answer_tasks": sorted(t for t, o in latest.items() if o.fit_answers),
            "selection_levels": _level_counts(latest.values()),
            "threads": self.config.threads,
            "retries": self.config.retries,
            "concepts_added": added,
            "concepts_extended": extended,
            "writes": len(self.write_events),
            "write_failures": sum(bool(e.get("failed")) for e in self.write_events),
            **failure_lesson_counts(self.memory, self.write_events, done.values(), self.config.method_options),
            "tasks_lost": sorted({t for _, t in self.lost}),
            "writes_lost": sorted({t for (q, t) in self.writes_lost if (q, t) not in self._writes_done()}),
            "usage": usage.to_dict(),
            "memory_revision_end": self.memory.revision(),
            "stopped": stopped,
            "wall_time_s": round(wall, 2),
        }


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


def _level_counts(outcomes) -> dict[str, int]:
    """How many tasks got each selection level (the tasks whose selection had a model step)."""
    counts: dict[str, int] = {}
    for o in outcomes:
        if o.selection_level is not None:
            counts[o.selection_level] = counts.get(o.selection_level, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: LEVELS.index(kv[0]) if kv[0] in LEVELS else len(LEVELS)))


def _strict_variants(outcomes, config: RunConfig) -> dict[str, Any]:
    """The released driver's strict score (train and test, last step; scoring/strict.py) beside
    the table's test-only, any-step one, and which of the two the run's protocol headlines.
    None when it cannot be computed (not scored, or recorded without steps)."""
    outcomes = list(outcomes)
    puzzles = [steps_from_records(o.threads, config.retries) for o in outcomes]
    scored = outcomes and all(o.scores and p is not None and len(p) == config.threads for o, p in zip(outcomes, puzzles))
    table = last_step_table(puzzles, config.threads, config.retries).to_dict() if scored else None
    return {"strict_variant": config.protocol.strict_variant, "strict_train_test_last_step": table}


def _outcome_line(outcome: TaskOutcome) -> str:
    if not outcome.scores:
        verdict = "passed train pairs (not scored)" if outcome.passed_train else "failed train pairs (not scored)"
    else:
        verdict = ("solved" if outcome.scores["oracle2"] == 1 else
                   "passed train pairs, wrong on test" if outcome.passed_train else "not solved")
    answered = f" · answered by memory's fit {', '.join(outcome.fit_answers)}" if outcome.fit_answers else ""
    return f"{verdict} · {len(outcome.selected)} concepts offered{answered}"


def _write_line(event: dict[str, Any]) -> str:
    if event.get("failed"):
        return f"memory write failed: {event.get('error')}"
    dropped, removed = event.get("types_dropped"), event.get("removed")
    return (f"memory: {len(event['added'])} added, {len(event['extended'])} extended"
            + (f", {len(removed)} removed" if removed else "")
            + (f"; {len(dropped)} custom type(s) not created (over the cap per write)" if dropped else ""))


REDACTED = "***"


def memory_url_for_record(url: str) -> str:
    """A memory URL as the run directory keeps it: a SQLite path made absolute (so a resume from
    another directory finds it), a password replaced by ***."""
    if "://" not in url:
        return os.path.abspath(url)
    if "@" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        if ":" in creds:
            return f"{scheme}://{creds.split(':', 1)[0]}:{REDACTED}@{host}"
    return url


def load_run_tasks(config: RunConfig) -> TaskSet:
    """The run's tasks: a split or path, narrowed to `task_ids` (looked up across both splits of
    the dataset when the source is `all`)."""
    return load_tasks(config.source, ids=config.task_ids, solutions=config.solutions)


def fit_budgets(config: RunConfig, llm: Any) -> RunConfig:
    """The config with the budgets left open filled in for the run's models (budgets_for, and
    how many helpers a task is offered: offer.helper_limit)."""
    token_budget, hint_budget = budgets_for(llm, config.token_budget, config.hint_budget)
    return dataclasses.replace(config, token_budget=token_budget, hint_budget=hint_budget,
                               max_helpers=helper_limit(llm, config.max_helpers))


def check_protocol_fits(config: RunConfig, answers: dict, executor: Executor | None) -> None:
    """ProtocolError, before a run directory exists, when the run's protocol needs what this run
    lacks: test outputs to decide retries on, or (pass order) the driver's own process, where
    each thread's conversation waits between passes."""
    check(config.protocol, continual=config.continual, passes=config.passes, selection=config.selection,
          scored=bool(answers))
    check_executor(config, executor)


def check_executor(config: RunConfig, executor: Executor | None) -> None:
    """Pass order hands each thread's earlier conversations from the driver's state to the task:
    only an executor in this process can take them."""
    if config.continual and config.protocol.continual_order == "pass" and not isinstance(executor, (InProcess,
                                                                                                    type(None))):
        raise ProtocolError(f"continual_order=pass (protocol {config.protocol.name}) keeps each thread's "
                            "conversation in this process between passes: run it without --executor ray")


def new_runner(config: RunConfig, *, memory: Memory, make_llm: Callable[[str], Any], sandbox: Any, solver: Any,
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
    runner.rundir.write_config(runner.resolved_config())
    return runner


def resume_runner(rundir: RunDir, *, memory: Memory, make_llm: Callable[[str], Any], sandbox: Any, solver: Any,
                  settings: Settings | None = None, progress: Reporter | None = None,
                  executor: Executor | None = None) -> Runner:
    """Continue a run from its directory: same settings, same tasks in the same order."""
    recorded = rundir.config()
    if recorded.get("kind", "solve") != "solve":
        raise RunDirError(f"run {rundir.run_id} is a {recorded['kind']} run; only solve runs resume")
    try:
        config = RunConfig.from_dict({**recorded["settings"], PROTOCOL_KEY: recorded.get(PROTOCOL_KEY)})
        task_ids = list(recorded["task_ids"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RunDirError(f"{rundir.path}/config.json: not a run config arcmemo can resume ({exc})") from None
    taskset = load_run_tasks(dataclasses.replace(config, task_ids=task_ids))
    tasks = [taskset.by_id(t) for t in task_ids]
    llm = make_llm(rundir.run_id)
    return Runner(config=fit_budgets(config, llm), tasks=tasks, answers=taskset.answers_for_scoring(config.score),
                  memory=memory, llm=llm, sandbox=sandbox, solver=solver, rundir=rundir,
                  settings=settings or Settings.load(), progress=progress, executor=executor)
