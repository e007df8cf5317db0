"""The solve loop (the ArcMemo paper's Algorithm 1): read memory, solve, score, write back.

    for each pass p:                       # pass 1: every task; pass p>1: tasks no attempt solved on train
        for i, task in enumerate(tasks):
            hint   = select(task, memory)  # MEMREAD
            result = solver.solve(task, hint)
            score the predictions          # the only place test outputs are read
            if continual and (i + 1) % k == 0:
                for r in the block: if r passed every TRAIN pair: MEMWRITE(memory, r)

Decisions that change memory or control the loop use train pairs only; test outputs are
read by scoring and reported, never fed back. Every finished task and every write is an
event in the run directory, so `resume` replays the log instead of redoing work: finished
tasks are not re-solved, and a write already committed (found in the store's revision
history by run and task) is not repeated.
"""

from __future__ import annotations

import dataclasses
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arcmemo import __version__
from arcmemo.abstraction import SolutionInput, write_oe, write_ps
from arcmemo.abstraction.fewshot import default_seeds_dir
from arcmemo.abstraction.ps import memory_tokens as abstraction_memory_tokens
from arcmemo.core.settings import SELECTION_MODES
from arcmemo.core.tasks import Task, TaskSet, load_tasks
from arcmemo.llm.catalog import ROLES
from arcmemo.memory.store import Memory
from arcmemo.memory.usage import COUNTERS
from arcmemo.prompts import keep_tail, template_hashes
from arcmemo.run.helpercheck import write_verifier
from arcmemo.run.offer import helper_limit, helper_use, offer_helpers
from arcmemo.run.rundir import RunDir, new_run_id
from arcmemo.run.submission_metadata import newest_call_id, submission_metadata
from arcmemo.scoring import attempts_from_predictions, score_task, write_submission
from arcmemo.selection import SelectionSettings, select, update_cheatsheet
from arcmemo.selection.budget import budgets_for
from arcmemo.selection.types import MIN_HINT_BUDGET, MIN_TOKEN_BUDGET
from arcmemo.solverkit import Hint, SolveContext, SolveResult, SolverSettings, Trace

USAGE_FIELDS = ("calls", "cache_hits", "errors", "prompt_tokens", "completion_tokens", "reasoning_tokens", "cost_usd")


def _own_fields(cls, data: dict[str, Any]) -> dict[str, Any]:
    """The entries of `data` that are fields of dataclass `cls` (records may carry more)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass
class RunConfig:
    """Everything that shapes a run; stored in the run directory's config.json."""

    source: str = "training"          # a task source (arcmemo.core.tasks.load_tasks)
    task_ids: list[str] | None = None
    solutions: str | None = None      # test outputs for a challenges-file source
    score: bool = True                # False: solve without scoring (the summary's score is unknown)
    limit: int | None = None
    solver: str = "program-synthesis"
    selection: str = "ps"
    memory_format: str | None = None  # ps | oe; defaults from the selection mode
    top_k: int = 5
    expand: bool = False
    token_budget: int | None = None  # None: sized to the run's models (selection.budget.budgets_for)
    hint_budget: int | None = None
    attempts: int = 1
    retries: int = 2
    max_tokens: int | None = None
    temperature: float | None = None
    passes: int = 1
    continual: bool = False
    k: int = 10
    order: str = "as-given"  # as-given | shuffled
    seed: int = 0
    budget_usd: float | None = None
    model_seed: int | None = None     # the models' sampling seed (sample i of a task: model_seed + i)
    helpers: bool = True              # offer the selected concepts' helpers to the solver's programs
    max_helpers: int | None = None    # at most this many per task; None: sized to the solver model (offer.py)

    def __post_init__(self) -> None:
        if self.selection not in SELECTION_MODES:
            raise ValueError(f"--selection must be one of {', '.join(SELECTION_MODES)}, not {self.selection!r}")
        if self.memory_format is None:
            self.memory_format = "oe" if self.selection == "oe" else "ps"
        if self.memory_format not in ("ps", "oe"):
            raise ValueError(f"--memory-format must be ps or oe, not {self.memory_format!r}")
        if self.order not in ("as-given", "shuffled"):
            raise ValueError(f"--order must be as-given or shuffled, not {self.order!r}")
        for name in ("k", "passes", "attempts"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name} must be at least 1")
        if self.retries < 0:
            raise ValueError("--retries must be 0 or more")
        if self.max_helpers is not None and self.max_helpers < 0:
            raise ValueError("--max-helpers must be 0 or more")
        if self.token_budget is not None and self.token_budget < MIN_TOKEN_BUDGET:
            raise ValueError(f"--token-budget must be at least {MIN_TOKEN_BUDGET} (estimated tokens), "
                             f"got {self.token_budget}")
        if self.hint_budget is not None and self.hint_budget < MIN_HINT_BUDGET:
            raise ValueError(f"--hint-budget must be at least {MIN_HINT_BUDGET} (estimated tokens), "
                             f"got {self.hint_budget}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        return cls(**_own_fields(cls, data))


@dataclass
class TaskOutcome:
    """One task solved in one pass, as recorded in the event log."""

    task_id: str
    pass_index: int
    predictions: list[list[Any]]
    passed_train: bool
    code: str | None
    reasoning: str
    scores: dict[str, float]
    usage: dict[str, float]
    selected: list[int]
    selection_fallback: bool
    error: str | None = None
    notes: list[str] = field(default_factory=list)   # the solver's remarks (e.g. views dropped for length)
    helpers_offered: list[str] = field(default_factory=list)   # helper functions the solver was offered
    concept_use: list[dict] = field(default_factory=list)      # per concept: id, name and its Usage counters

    def event(self) -> dict[str, Any]:
        return {"type": "task", **dataclasses.asdict(self)}

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> TaskOutcome:
        return cls(**_own_fields(cls, event))


def order_tasks(taskset: TaskSet, config: RunConfig) -> list[Task]:
    tasks = list(taskset.tasks)
    if config.order == "shuffled":
        random.Random(config.seed).shuffle(tasks)
    if config.limit is not None:
        tasks = tasks[: config.limit]
    return tasks


def usage_dict(usage: Any) -> dict[str, float]:
    """A Usage (or None) as a plain dict with every field present."""
    return {name: getattr(usage, name, 0) or 0 for name in USAGE_FIELDS}


def usage_since(llm: Any, before: dict[str, float]) -> dict[str, float]:
    """What the client spent since `before` (calls, failed calls included, cache hits, tokens, cost).

    Tasks run one after another, so the client's running totals, read before and after,
    are exactly a task's (or a write's) usage, also for calls that failed and so returned
    no completion to count."""
    now = usage_dict(llm.usage())
    return {name: now[name] - before.get(name, 0) for name in USAGE_FIELDS}


def add_usage(total: dict[str, float], usage: dict[str, float]) -> None:
    for name in USAGE_FIELDS:
        total[name] = total.get(name, 0) + usage.get(name, 0)


class Runner:
    """Runs (or resumes) one run. Components are passed in so tests can swap the model."""

    def __init__(self, *, config: RunConfig, tasks: list[Task], answers: dict, memory: Memory, llm: Any,
                 sandbox: Any, solver: Any, rundir: RunDir, progress: Callable[[str, dict], None] | None = None):
        self.config = config
        self.tasks = tasks
        self.answers = answers
        self.memory, self.llm, self.sandbox, self.solver = memory, llm, sandbox, solver
        self.rundir = rundir
        self.progress = progress or (lambda kind, info: None)
        self.solver_settings = SolverSettings(
            attempts=config.attempts, retries=config.retries,
            max_tokens=config.max_tokens, temperature=config.temperature,
            extra={} if config.model_seed is None else {"seed": config.model_seed},
        )

    # ------------------------------------------------------------------ config
    def resolved_config(self) -> dict[str, Any]:
        return {
            "run_id": self.rundir.run_id,
            "arcmemo_version": __version__,
            "settings": dataclasses.asdict(self.config),
            "abstraction_memory_tokens": abstraction_memory_tokens(),  # settings, checked at the start
            "fewshot_examples": str(default_seeds_dir() or "packaged"),
            "task_ids": [t.id for t in self.tasks],
            "models": {role: self.llm.model_for(role) for role in ROLES},
            "models_requested": {role: self.llm.settings.model(role) for role in ROLES},
            "base_url": self.llm.settings.base_url,
            "memory_url": memory_url_for_record(str(self.memory.url)),
            "memory_revision_start": self.memory.revision(),
            "prompt_templates": template_hashes(),
            "solver_templates": self.solver.template_hashes() if hasattr(self.solver, "template_hashes") else {},
            "solver": getattr(self.solver, "name", type(self.solver).__name__),
            "sandbox_isolation": self.sandbox.check_isolation(),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }

    # ------------------------------------------------------------------ loop
    def run(self) -> dict[str, Any]:
        """Run every pass to the end (or to the budget), replaying what the log already holds."""
        started = time.monotonic()
        events = list(self.rundir.events())
        if not events:
            config = self.resolved_config()
            self.rundir.write_config(config)
            self._record_run(status="running", config=config, memory_revision_start=config["memory_revision_start"])
        self.done = done = {(e["pass_index"], e["task_id"]): TaskOutcome.from_event(e)
                            for e in events if e["type"] == "task"}
        self.write_events = [e for e in events if e["type"] == "write"]
        previous_wall = sum(e.get("wall_time_s", 0) for e in events if e["type"] == "session_end")
        self.rundir.append({"type": "session_start", "resumed": bool(events)})

        latest: dict[str, TaskOutcome] = {}
        per_pass: list[dict[str, Any]] = []
        stopped = None
        for p in range(1, self.config.passes + 1):
            todo = self.tasks if p == 1 else [t for t in self.tasks if not latest[t.id].passed_train]
            if not todo:
                break
            block: list[TaskOutcome] = []
            for i, task in enumerate(todo):
                outcome = done.get((p, task.id))
                if outcome is None:
                    if self._over_budget():
                        stopped = "budget"
                        self.rundir.append({"type": "budget_stop", "pass_index": p, "task_id": task.id})
                        break
                    outcome = self._solve(task, p)
                    self.rundir.append(outcome.event())
                    done[(p, task.id)] = outcome
                latest[task.id] = outcome
                block.append(outcome)
                self.progress("task", {"pass": p, "outcome": outcome, "latest": latest, "done": done})
                if self.config.continual and (i + 1) % self.config.k == 0:
                    self._write_back(block, p)
                    block = []
            if self.config.continual and block:
                self._write_back(block, p)
            per_pass.append(self._pass_scores(p, latest))
            if stopped:
                break

        wall = previous_wall + time.monotonic() - started
        self.rundir.append({"type": "session_end", "wall_time_s": round(time.monotonic() - started, 3)})
        summary = self._summary(latest, done, per_pass, stopped, wall)
        self.rundir.write_summary(summary)
        self._record_run(status=f"stopped: {stopped}" if stopped else "done",
                         memory_revision_end=summary["memory_revision_end"])
        return summary

    def _record_run(self, **fields: Any) -> None:
        """The store's own record of the run, so revisions' run ids lead somewhere."""
        self.memory.record_run(self.rundir.run_id, kind="solve", **fields)

    def _solve(self, task: Task, p: int) -> TaskOutcome:
        before = usage_dict(self.llm.usage())
        started, first_call = time.time(), newest_call_id(self.llm)
        selection = select(task, self.memory, SelectionSettings(
            mode=self.config.selection, top_k=self.config.top_k, expand=self.config.expand,
            token_budget=self.config.token_budget, hint_budget=self.config.hint_budget,
            run_id=self.rundir.run_id, pass_index=p, record=True,
            memory_format=self.config.memory_format,
            select_params={} if self.config.model_seed is None else {"seed": self.config.model_seed},
        ), self.llm)
        concepts = self.memory.list("ps") if selection.concept_ids else []
        helpers = None
        if self.config.helpers and concepts:
            wanted = (selection.stats or {}).get("ranked_ids") or selection.concept_ids   # ps: the model's order
            helpers = offer_helpers(concepts, wanted, helper_limit(self.llm, self.config.max_helpers),
                                    self.memory.usage(concept_ids=selection.concept_ids))
        hint = Hint(text=selection.hint, concept_ids=list(selection.concept_ids), mode=selection.mode,
                    helpers=helpers)
        settings = dataclasses.replace(self.solver_settings, sample_offset=(p - 1) * self.config.attempts)
        ctx = SolveContext(llm=self.llm, sandbox=self.sandbox, settings=settings, run_id=self.rundir.run_id)
        try:
            result = self.solver.solve(task, hint, ctx)
        except Exception as exc:  # a plugin broke its contract; one task must not end the run
            result = SolveResult(attempts=[], predictions=[[] for _ in task.test_inputs],
                                 trace=Trace(reasoning="", final_code=None, passing_attempt=None, transcript=[]),
                                 usage=None)
            solver_error = f"solver raised {type(exc).__name__}: {exc}"
        else:
            solver_error = None
        predictions = [[_plain(g) for g in per_test] for per_test in result.predictions]
        # Scoring is the only reader of test outputs; its result never feeds back into the loop.
        answers = self.answers.get(task.id)     # none: the run solves without scoring
        score = score_task(attempts_from_predictions(predictions), answers) if answers else None
        write_submission(self.rundir.submissions, task.id, predictions, submission_metadata(
            self.llm, task.id, first_call, result.attempts, predictions, started=started,
            extra={"run_id": self.rundir.run_id, "test_id": self.rundir.run_id, "pass": p,
                   "solver": self.config.solver}))
        usage = usage_since(self.llm, before)
        errors = [a.error for a in result.attempts if a.error]
        used = helper_use(result.attempts, selection.concept_ids, concepts,
                          solved=bool(score is not None and score.oracle2 == 1))
        if used:
            self.memory.record_usage(run_id=self.rundir.run_id, pass_index=p, task_id=task.id, used=used)
        names = {c.id: c.name for c in concepts}
        return TaskOutcome(
            task_id=task.id, pass_index=p, predictions=predictions, passed_train=bool(result.passed_train),
            code=result.trace.final_code, reasoning=(result.trace.reasoning or "")[-4000:],
            scores={"oracle1": score.oracle1, "oracle2": score.oracle2, "strict": score.strict} if score else {},
            usage=usage, selected=list(selection.concept_ids), selection_fallback=bool(selection.fallback),
            error=solver_error or (errors[-1] if errors and not result.passed_train else None),
            notes=list(getattr(result.trace, "notes", []) or []) + ([result.error] if result.error else []),
            helpers_offered=helpers.names() if helpers else [],
            concept_use=[{"id": cid, "name": names.get(cid), **counts.as_dict()} for cid, counts in used.items()],
        )

    def _write_back(self, block: list[TaskOutcome], p: int) -> None:
        """MEMWRITE for the block's tasks whose program passed every train pair."""
        for outcome in block:
            key = (p, outcome.task_id)
            if not outcome.passed_train or not outcome.code or key in self._writes_done():
                continue
            event = self._recovered_write(outcome.task_id, p)
            if event is None:
                if self._over_budget():
                    self.rundir.append({"type": "write_skipped", "pass_index": p, "task_id": outcome.task_id,
                                        "reason": "budget"})
                    continue
                event = self._write_one(outcome, p)
            self.rundir.append(event)
            self.write_events.append(event)
            self.progress("write", event)

    def _writes_done(self) -> set[tuple[int, str]]:
        return {(e["pass_index"], e["task_id"]) for e in self.write_events}

    def _recovered_write(self, task_id: str, p: int) -> dict[str, Any] | None:
        """A write for this task that reached the store before a kill lost its event, rebuilt from
        the store's own records (revisions, or the recorded failure) so it is not done twice."""
        write = self.memory.writes_of(self.rundir.run_id, task_id)
        if write is None:
            return None
        return {"type": "write", "pass_index": p, "task_id": task_id, "recovered": True, "added": write.added,
                "extended": write.extended, "failed": write.failed, "error": write.error,
                "usage": usage_dict(None)}

    def _write_one(self, outcome: TaskOutcome, p: int) -> dict[str, Any]:
        before = usage_dict(self.llm.usage())
        task = next(t for t in self.tasks if t.id == outcome.task_id)
        run_id = self.rundir.run_id
        if self.config.selection == "cheatsheet":
            update = update_cheatsheet(self.memory, self.llm, task, _trace_text(outcome), run_id=run_id)
            return {"type": "write", "pass_index": p, "task_id": task.id, "added": [],
                    "extended": ["cheatsheet"] if update.updated else [], "failed": update.error is not None,
                    "error": update.error, "usage": usage_since(self.llm, before)}
        solution = SolutionInput(task=task, code=outcome.code, origin="self", reasoning=outcome.reasoning)
        if self.config.memory_format == "oe":
            result = write_oe(self.memory, self.llm, solution, run_id=run_id)
        else:
            verify = (write_verifier(self.sandbox, self.memory, task, self.config.source, run_id)
                      if self.config.helpers else None)
            result = write_ps(self.memory, self.llm, solution, run_id=run_id, verify_helpers=verify)
        return {"type": "write", "pass_index": p, "task_id": task.id, "added": list(result.added),
                "extended": list(result.extended), "failed": bool(result.failed), "error": result.error,
                "helpers": list(result.helpers), "helper_problems": list(result.helper_problems),
                "usage": usage_since(self.llm, before)}

    def _over_budget(self) -> bool:
        """Stop before a task or write whose expected cost (the dearest so far) would exceed the budget."""
        if self.config.budget_usd is None:
            return False
        costs = [o.usage.get("cost_usd", 0) for o in self.done.values()]
        costs += [e.get("usage", {}).get("cost_usd", 0) for e in self.write_events]
        spent = sum(costs)
        return spent >= self.config.budget_usd or spent + max(costs, default=0) > self.config.budget_usd

    # ------------------------------------------------------------------ scores
    @staticmethod
    def _pass_scores(p: int, latest: dict[str, TaskOutcome]) -> dict[str, Any]:
        return {"pass": p, "tasks": len(latest), **_mean_scores(latest.values())}

    def _summary(self, latest, done, per_pass, stopped, wall) -> dict[str, Any]:
        usage: dict[str, float] = {}
        for outcome in done.values():
            add_usage(usage, outcome.usage)
        for event in self.write_events:
            add_usage(usage, event.get("usage", {}))
        added = sorted({name for e in self.write_events for name in e.get("added", [])})
        extended = sorted({name for e in self.write_events for name in e.get("extended", [])})
        return {
            "run_id": self.rundir.run_id,
            "tasks": len(latest),
            "tasks_planned": len(self.tasks),
            **_mean_scores(latest.values()),
            "scored": bool(self.answers),     # False: no test outputs (or --no-score); scores are None
            "passes": per_pass,
            "passed_train": sorted(t for t, o in latest.items() if o.passed_train),
            "solved": sorted(t for t, o in latest.items() if o.scores.get("oracle2") == 1),
            "per_task": {t: {**o.scores, "passed_train": o.passed_train, "pass": o.pass_index,
                             "selected": len(o.selected)} for t, o in sorted(latest.items())},
            "concepts_selected_per_task": round(sum(len(o.selected) for o in done.values()) / (len(done) or 1), 2),
            "concept_use": {name: sum(row[name] for o in done.values() for row in o.concept_use) for name in COUNTERS},
            "selection_fallbacks": sum(o.selection_fallback for o in done.values()),
            "concepts_added": added,
            "concepts_extended": extended,
            "writes": len(self.write_events),
            "write_failures": sum(bool(e.get("failed")) for e in self.write_events),
            "usage": {k: (round(v, 6) if k == "cost_usd" else int(v)) for k, v in usage.items()},
            "memory_revision_end": self.memory.revision(),
            "stopped": stopped,
            "wall_time_s": round(wall, 2),
        }


def _mean_scores(outcomes) -> dict[str, float | None]:
    """Mean oracle@1, oracle@2 and strict in percent; None (unknown) when a task was not scored."""
    outcomes = list(outcomes)
    if any(not o.scores for o in outcomes):
        return {name: None for name in ("oracle1", "oracle2", "strict")}
    n = len(outcomes) or 1
    return {name: round(100 * sum(o.scores[name] for o in outcomes) / n, 2) for name in ("oracle1", "oracle2", "strict")}


def _trace_text(outcome: TaskOutcome) -> str:
    """What the cheatsheet curator reads: the program whole, the end of the reasoning."""
    return (f"Task {outcome.task_id} was solved by this program:\n{outcome.code}\n\n"
            f"Reasoning:\n{keep_tail(outcome.reasoning or '')}")


def _plain(grid: Any) -> Any:
    if grid is None:
        return None
    return [list(map(int, row)) for row in grid]


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


def new_runner(config: RunConfig, *, memory: Memory, make_llm: Callable[[str], Any], sandbox: Any, solver: Any,
               runs_root: str, progress=None) -> Runner:
    """A fresh run: tasks ordered and limited once, a new run directory."""
    taskset = load_run_tasks(config)
    tasks = order_tasks(taskset, config)
    rundir = RunDir.create(runs_root, new_run_id())
    llm = make_llm(rundir.run_id)
    return Runner(config=fit_budgets(config, llm), tasks=tasks, answers=taskset.answers_for_scoring(config.score),
                  memory=memory, llm=llm, sandbox=sandbox, solver=solver, rundir=rundir, progress=progress)


def resume_runner(rundir: RunDir, *, memory: Memory, make_llm: Callable[[str], Any], sandbox: Any, solver: Any,
                  progress=None) -> Runner:
    """Continue a run from its directory: same settings, same tasks in the same order."""
    recorded = rundir.config()
    config = RunConfig.from_dict(recorded["settings"])
    taskset = load_run_tasks(dataclasses.replace(config, task_ids=recorded["task_ids"]))
    tasks = [taskset.by_id(t) for t in recorded["task_ids"]]
    llm = make_llm(rundir.run_id)
    return Runner(config=fit_budgets(config, llm), tasks=tasks, answers=taskset.answers_for_scoring(config.score),
                  memory=memory, llm=llm, sandbox=sandbox, solver=solver, rundir=rundir, progress=progress)
