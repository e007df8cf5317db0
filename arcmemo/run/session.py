"""What every command that runs something opens, the same way: settings, memory, models, sandbox.

Solve and seed share it: the settings object (built once at start-up and passed down),
the memory (opened once), model clients (one per run, with the run's id for the call
log; the embedded model started in view of the user), the shared sandbox pool (sized by
the settings), and the progress reporter. Kept apart from the loops (loop.py,
seeding.py) so tests can hand those their own parts, and apart from the CLI so the CLI
stays parsing and printing.

Order of a fresh solve, so that a bad input fails before anything exists: settings and
flags (the CLI), the tasks, the solver plugin, the model client and the embedded model's
files, the executor (Ray installed, reachable, given a memory its workers can open), the
memory, and only then the run directory.

A solve begins its start-up in the background first (run/warmup.py): the sandbox's first
worker and the endpoint client's library; the session waits for the worker only where the
run's config reports its isolation.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arcmemo.core.settings import Settings
from arcmemo.llm import LLM, LLMSettings
from arcmemo.memory.errors import StoreError
from arcmemo.memory.store import Memory
from arcmemo.memory.store.reader import sqlite_file
from arcmemo.run.config import REDACTED, RunConfig, load_run_tasks, memory_url_for_record
from arcmemo.run.executors.local import Executor, InProcess
from arcmemo.run.loop import Runner, check_protocol_fits, new_runner, resume_runner
from arcmemo.run.progress.reporter import Reporter
from arcmemo.run.records.reader import find_run
from arcmemo.run.records.rundir import RunDir, RunDirError, new_run_id
from arcmemo.run.warmup import sandbox_started, shared_sandbox, warm_up

DEFAULT_TASKS_IN_FLIGHT = 8     # an endpoint's tasks are latency-bound: several at once cost nothing extra
EXECUTORS = ("local", "ray")


@dataclass(frozen=True)
class Scale:
    """How a run's tasks are spread (not part of what the run is: a resume may change it)."""

    tasks_in_flight: int | None = None      # None: DEFAULT_TASKS_IN_FLIGHT, 1 for the embedded model
    executor: str = "local"                 # local | ray
    ray_address: str | None = None          # None: a local Ray instance


def roles_used(config: RunConfig) -> set[str]:
    """The model roles a solve run calls: the solver always, and what its memory method's read
    (and, for a continual run, its write) calls."""

    from arcmemo.methods import load_method

    method = load_method(config.selection)
    roles = {"solver", *method.read_roles}
    if config.writes_memory:
        roles.update(method.write_roles)
    return roles


def local_models(llm: LLM, roles: set[str]) -> list[str]:
    from arcmemo.llm.client import LOCAL_MODELS

    return sorted({llm.model_for(role) for role in roles} & set(LOCAL_MODELS))


def check_models(llm: LLM, roles: set[str]) -> None:
    """LocalModelError now, before a run directory exists, if an embedded model it needs cannot start."""
    from arcmemo.llm import local, weights

    for name in local_models(llm, roles):
        problem = local.unavailable(name)
        if problem:
            raise weights.LocalModelError(f"model {name!r} cannot start: {problem}")


def check_method(memory: Memory, config: RunConfig) -> None:
    """RunDirError, before a run directory exists, when the memory method finds the run pointless
    on this memory (the cheatsheet baseline without a sheet to show is the no-memory baseline
    in disguise)."""
    import inspect

    from arcmemo.methods import load_method

    method = load_method(config.selection)
    # a method's check may read its options (the cheatsheet: which sheet); one written before
    # checks took them is asked without
    takes_options = "options" in inspect.signature(method.check).parameters
    problem = method.check(config.items(memory), continual=config.continual,
                           **({"options": config.method_options} if takes_options else {}))
    if problem:
        raise RunDirError(problem)


def check_call_params(llm: LLM, config: RunConfig, roles: set[str]) -> None:
    """UnsupportedParameter now, before a run directory exists, if a model the run calls does not
    take a parameter it would be sent (reasoning_effort to a model that is not a reasoning model):
    the solver's from the run config, each role's own defaults (LLMSettings.call_defaults)."""
    solver = {"max_tokens": config.max_tokens, "temperature": config.temperature,
              "reasoning_effort": config.reasoning_effort}
    for role in sorted(roles):
        llm.check_params(role, **(solver if role == "solver" else {}))


def start_models(llm: LLM, roles: set[str], reporter: Reporter) -> None:
    """Start the embedded model(s) the run needs now, saying so (its one-time assembly as bytes)."""
    from arcmemo.llm import local, weights

    for name in local_models(llm, roles):
        reporter.note(f"loading the embedded model {name} ({weights.spec_for(name).title}) ...")
        started = time.monotonic()
        local.ensure_server(name, progress=lambda done, total: reporter.bytes(
            "assembling the model file (first use only)", done, total), settings=llm.settings)
        reporter.note(f"model {name} ready in {time.monotonic() - started:.1f}s")


def resolve_models(flags: dict[str, Any], recorded: dict[str, Any] | None = None) -> LLMSettings:
    """The model settings: flags > env > config file > (on resume) what the run recorded, so a
    resumed run talks to the same models (and hits the same cache) as before. The endpoint is
    the exception: a new --base-url or OPENAI_BASE_URL wins over the recorded one (the run
    logs the change), so a run stopped by an outage can go on elsewhere."""
    flags = dict(flags)
    recorded = recorded or {}
    from_record = {}
    for role, model in (recorded.get("models_requested") or {}).items():
        from_record[f"{role}_model"] = model
    for role, params in (recorded.get("call_defaults") or {}).items():
        for name, value in params.items():
            from_record[f"{role}_{name}"] = value
    from_record = {name: value for name, value in from_record.items() if flags.get(name) is None}
    settings = LLMSettings.resolve(**{**flags, **from_record})
    if settings.base_url is None and recorded.get("base_url"):
        from_record["base_url"] = recorded["base_url"]
        settings = LLMSettings.resolve(**{**flags, **from_record})
    if from_record:         # a value taken from the run's record is not the flag's
        settings = dataclasses.replace(settings, origins={**settings.origins,
                                                          **{name: "the run's record" for name in from_record}})
    return settings


def check_memory_exists(url: str, config: RunConfig) -> None:
    """A solve that reads memory without writing it needs one that exists: a mistyped --db (or a
    config file's relative path run from another directory) would otherwise read an empty memory
    made on the spot. --continual may start from nothing; --selection none reads nothing."""
    from arcmemo.methods import load_method

    if config.continual or not load_method(config.selection).reads_memory:
        return
    path = sqlite_file(url)
    if path is not None and not path.exists():
        raise StoreError(f"no memory database at {url}: a solve without --continual only reads memory (build one "
                         "with `arcmemo seed seeds/` or `arcmemo concepts import FILE --db PATH`, or pass --db)")


class RunSession:
    """Opens what a run needs, once, and closes it all at the end (`open_session`)."""

    def __init__(self, settings: Settings | None = None, *, reporter: Reporter | None = None,
                 require_isolation: str | None = None):
        self.settings = settings or Settings.load()
        self.reporter = reporter or Reporter()
        self.require_isolation = require_isolation
        self._memory: Memory | None = None
        self._sandbox = None
        self.llms: list[LLM] = []
        self.executors: list[Executor] = []
        self._prompts = ExitStack()

    # -- the parts ---------------------------------------------------------------------
    def memory(self, url: str | None = None) -> Memory:
        """The memory (the `db` setting unless `url` names another), opened once."""
        if self._memory is None:
            self._memory = Memory(url or self.settings.db)
        return self._memory

    @property
    def sandbox(self):
        """The process's sandbox pool, sized by the settings sandbox_workers/_timeout_s/_memory_mb;
        SandboxIsolationError when `require_isolation` names a level this machine falls short of."""
        if self._sandbox is None:
            sandbox = shared_sandbox(self.settings)
            if self.require_isolation:
                sandbox_started(sandbox)
                sandbox.check_isolation(self.require_isolation)
            self._sandbox = sandbox
        return self._sandbox

    def llm(self, run_id: str, models: LLMSettings) -> LLM:
        """A model client for one run (its calls logged under the run id); its API key is never
        echoed back to the model in a program's output."""
        self.sandbox.add_secrets([models.api_key])
        llm = LLM(models, run_id=run_id)
        self.llms.append(llm)
        return llm

    def use_prompts(self, prompts_dir: str | Path | None, grid_text: str):
        """Check the user's templates and the grid text style (PromptError now, before anything is
        opened), and put them in force until the session closes (run/prompting.py)."""
        from arcmemo.run.prompting import PromptSetup

        return self._prompts.enter_context(PromptSetup(prompts_dir, grid_text))

    def close(self) -> None:
        self.reporter.close()
        for executor in self.executors:
            executor.close()
        for llm in self.llms:
            llm.close()
        if self._memory is not None:
            self._memory.close()
        self._prompts.close()

    # -- solve ---------------------------------------------------------------------------
    def executor(self, llm: LLM, config: RunConfig, memory_url: str, scale: Scale) -> Executor:
        """Where the run's tasks are solved: up to `scale.tasks_in_flight` at once (default:
        DEFAULT_TASKS_IN_FLIGHT for endpoints, 1 for the embedded model, whose server has few
        slots), in this process or on Ray (a RayUnavailable naming the fix when Ray cannot be
        used: raised before the run directory exists)."""
        slots = scale.tasks_in_flight
        if slots is None:
            slots = 1 if local_models(llm, roles_used(config)) else DEFAULT_TASKS_IN_FLIGHT
        if scale.executor == "ray":
            from arcmemo.run.executors.on_ray import RayExecutor, RayUnavailable

            if local_models(llm, roles_used(config)):
                raise RayUnavailable("the embedded model runs inside this process, not on Ray workers: "
                                  "use --executor ray with an endpoint (--base-url)")
            executor = RayExecutor(slots, address=scale.ray_address, memory_url=memory_url)
            self.executors.append(executor)
            return executor
        return InProcess(slots)

    def new_solve(self, config: RunConfig, models: LLMSettings, scale: Scale | None = None) -> Runner:
        """A fresh solve run, each part opened in the order of the module docstring."""
        from arcmemo.solverkit import load_solver

        warm_up(self.settings)          # begun already by the solve command; else now
        taskset = load_run_tasks(config)
        check_protocol_fits(config, taskset.answers_for_scoring(config.score), None)    # before any model starts
        solver = load_solver(config.solver)
        self.use_prompts(config.prompts_dir, config.grid_text)
        sandbox = self.sandbox
        check_memory_exists(self.settings.db, config)
        run_id = new_run_id()
        llm = self.llm(run_id, models)
        estimate = self._long_run(llm, config, taskset, solver)
        check_models(llm, roles_used(config))
        check_call_params(llm, config, roles_used(config))
        executor = self.executor(llm, config, self.settings.db, scale or Scale())
        memory = self.memory()
        check_method(memory, config)
        if estimate:                    # said once every check passed: no estimate before an error
            self.reporter.note(estimate)
        sandbox_started(sandbox)        # the run's config reports the sandbox's isolation
        return new_runner(config, memory=memory, make_llm=lambda _: llm, sandbox=sandbox, solver=solver,
                          runs_root=self.settings.runs_dir, settings=self.settings, progress=self.reporter,
                          run_id=run_id, taskset=taskset, executor=executor)

    def _long_run(self, llm: LLM, config: RunConfig, taskset, solver) -> str | None:
        """LongRunError when the run would take hours on the embedded model it did not name; else the
        estimate to say when it runs there by name (run/progress/longrun.py), counting only the
        calls the call log does not answer already (run/progress/fromcache.py)."""
        from arcmemo.run.config import order_tasks
        from arcmemo.run.progress.longrun import check_named, on_embedded_model, solve_job

        tasks = order_tasks(taskset, config)
        job = solve_job(len(tasks), config.threads, config.attempts, config.retries, config.passes)
        if llm.settings.cache and on_embedded_model(llm, job.role):
            from arcmemo.run.progress.fromcache import asked_before, from_cache

            earlier = asked_before(llm, config, [t.id for t in tasks], solver, self.settings.runs_dir,
                                   self.settings.db, lambda: self.memory().revision())
            job = from_cache(job, llm, earlier)
        return check_named(llm, job, "--solver-model")

    def _note_changed_templates(self, recorded: dict[str, Any], solver) -> None:
        """Say which templates differ from those the run started with (edited since, or a new arcmemo):
        the requests made from now on are not the ones recorded."""
        from arcmemo.prompts import template_hashes
        from arcmemo.run.prompting import changed_templates

        solver_now = solver.template_hashes() if hasattr(solver, "template_hashes") else {}
        changed = (changed_templates(recorded.get("prompt_templates") or {}, template_hashes())
                   + changed_templates(recorded.get("solver_templates") or {}, solver_now))
        if changed:
            self.reporter.note(f"prompt templates changed since the run started: {', '.join(changed)}")

    def resume_solve(self, ref: str, model_flags: dict[str, Any], scale: Scale | None = None) -> Runner:
        """Continue the run `ref` (id or path) with the memory, models and settings it recorded."""
        from arcmemo.solverkit import load_solver

        record = find_run(ref, self.settings.runs_dir)      # the reader every view uses
        record.check_resumable()
        rundir, recorded = record.rundir, record.recorded
        warm_up(self.settings)
        sandbox = self.sandbox
        explicit_db = self.settings.db if self.settings.origin("db").startswith(("flag", "env")) else None
        memory = self.memory(resume_memory_url(recorded.get("memory_url"), explicit_db, rundir))
        models = resolve_models(model_flags, recorded)
        solver = load_solver(record.config.solver)
        runner = resume_runner(rundir, memory=memory, make_llm=lambda run_id: self.llm(run_id, models),
                               sandbox=sandbox, solver=solver, settings=self.settings, progress=self.reporter)
        self.use_prompts(runner.config.prompts_dir, runner.config.grid_text)
        self._note_changed_templates(recorded, solver)
        check_models(runner.llm, roles_used(runner.config))
        check_call_params(runner.llm, runner.config, roles_used(runner.config))
        runner.executor = self.executor(runner.llm, runner.config, memory.url, scale or Scale())
        sandbox_started(sandbox)
        return runner

    def run(self, runner: Runner, *, resumed: bool = False) -> dict[str, Any]:
        """Run it to its end holding its directory (status, lock), saying what it does as it goes.
        Ctrl-C or a crash leaves the run recorded as interrupted or failed, ready for --resume."""
        with runner.rundir.hold():
            self.reporter.started(runner.rundir.run_id, runner.rundir.path, kind="solve", resumed=resumed)
            start_models(runner.llm, roles_used(runner.config), self.reporter)
            try:
                return runner.run()
            finally:
                self.reporter.close()


def resume_memory_url(recorded: str | None, flag: str | None, rundir: RunDir) -> str:
    """The memory a resumed run must keep writing to: the recorded one, or --db when it names
    the same memory (a password the record hides has to come back through --db)."""
    if flag is None:
        if not recorded or REDACTED in recorded:
            raise RunDirError(f"run {rundir.run_id} was made with a database whose URL is not on record in full: "
                              "pass the same --db to resume it")
        return recorded
    if recorded and memory_url_for_record(flag) != recorded:
        raise RunDirError(f"run {rundir.run_id} wrote to {recorded}, not {memory_url_for_record(flag)}: "
                          "resume it with the same memory (or without --db)")
    return flag


def resume_command(rundir: RunDir, settings: Settings) -> str:
    """The exact command that continues a run: by id when a plain `arcmemo solve` looks for runs
    where it is, else by path."""
    plain = not settings.origin("runs_dir").startswith("flag") and \
        rundir.path.parent.resolve() == Path(settings.runs_dir).resolve()
    return f"arcmemo solve --resume {rundir.run_id if plain else rundir.path}"


@contextmanager
def open_session(settings: Settings | None = None, *, reporter: Reporter | None = None,
                 require_isolation: str | None = None) -> Iterator[RunSession]:
    session = RunSession(settings, reporter=reporter, require_isolation=require_isolation)
    try:
        yield session
    finally:
        session.close()


__all__ = ["Scale", "RunSession", "open_session", "shared_sandbox", "resolve_models", "resume_memory_url",
           "resume_command", "roles_used"]
