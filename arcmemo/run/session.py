"""Wiring for a run: open the memory, the model client, the sandbox and the solver plugin.

Kept apart from the loop (runner.py) so tests can hand the runner their own parts, and
apart from the CLI so the CLI stays parsing and printing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from arcmemo.core.settings import as_number, db_url, setting
from arcmemo.llm.client import LLM, LLMSettings
from arcmemo.memory.store import Memory
from arcmemo.run.rundir import RunDir
from arcmemo.run.runner import REDACTED, RunConfig, Runner, memory_url_for_record, new_runner, resume_runner
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver


def shared_sandbox():
    """The process's sandbox pool, sized by the settings `sandbox_workers`, `sandbox_timeout_s`
    and `sandbox_memory_mb`."""
    workers = setting("sandbox_workers", None, None)
    return get_sandbox(
        workers=as_number(workers, "sandbox_workers", int, 1) if workers else None,
        timeout_s=as_number(setting("sandbox_timeout_s", None, 2.0), "sandbox_timeout_s", float, 0.01),
        memory_mb=as_number(setting("sandbox_memory_mb", None, 1024), "sandbox_memory_mb", int, 16),
    )


class RunSession:
    def __init__(self, *, db: str | None = None, base_url=None, solver_model=None, aux_model=None,
                 select_model=None, concurrency=None, no_cache: bool = False, api_key=None,
                 require_isolation: str | None = None):
        self.db = db
        self.flags = dict(base_url=base_url, api_key=api_key, solver_model=solver_model, aux_model=aux_model,
                          select_model=select_model, concurrency=concurrency, cache=False if no_cache else None)
        self.sandbox = shared_sandbox()
        if require_isolation:  # SandboxIsolationError when this machine falls short
            self.sandbox.check_isolation(require_isolation)
        self.memory: Memory | None = None
        self.llms: list[LLM] = []

    def _open_memory(self, url: str) -> Memory:
        self.memory = Memory(url)
        return self.memory

    def _make_llm(self, recorded: dict[str, Any] | None = None):
        """Flags win; on resume the run's recorded endpoint and requested model names fill the rest,
        so a resumed run talks to the same models (and hits the same cache) as before."""
        flags = dict(self.flags)
        recorded = recorded or {}
        for role, model in (recorded.get("models_requested") or {}).items():
            flags[f"{role}_model"] = flags.get(f"{role}_model") or model
        flags["base_url"] = flags.get("base_url") or recorded.get("base_url")
        settings = LLMSettings.resolve(**flags)
        self.sandbox.add_secrets([settings.api_key])  # never echoed back in execution feedback

        def make(run_id: str) -> LLM:
            llm = LLM(settings, run_id=run_id)
            self.llms.append(llm)
            return llm

        return make

    def new(self, config: RunConfig, *, runs_root: str, progress=None) -> Runner:
        return new_runner(config, memory=self._open_memory(db_url(self.db)), make_llm=self._make_llm(),
                          sandbox=self.sandbox, solver=load_solver(config.solver), runs_root=runs_root,
                          progress=progress)

    def resume(self, rundir: RunDir, *, progress=None) -> Runner:
        recorded = rundir.config()
        memory = self._open_memory(resume_memory_url(recorded.get("memory_url"), self.db, rundir))
        return resume_runner(rundir, memory=memory, make_llm=self._make_llm(recorded), sandbox=self.sandbox,
                             solver=load_solver(recorded["settings"]["solver"]), progress=progress)

    def close(self) -> None:
        for llm in self.llms:
            llm.close()


def resume_memory_url(recorded: str | None, flag: str | None, rundir: RunDir) -> str:
    """The memory a resumed run must keep writing to: the recorded one, or --db when it names
    the same memory (a password the record hides has to come back through --db)."""
    if flag is None:
        if not recorded or REDACTED in recorded:
            raise ValueError(f"run {rundir.run_id} was made with a database whose URL is not on record in full: "
                             "pass the same --db to resume it")
        return recorded
    if recorded and memory_url_for_record(flag) != recorded:
        raise ValueError(f"run {rundir.run_id} wrote to {recorded}, not {memory_url_for_record(flag)}: "
                         "resume it with the same memory (or without --db)")
    return flag


@contextmanager
def open_session(**kwargs: Any) -> Iterator[RunSession]:
    session = RunSession(**kwargs)
    try:
        yield session
    finally:
        session.close()


def run_with_progress(runner: Runner, *, quiet: bool = False) -> dict:
    """Run with a progress bar showing the running oracle@2, tokens and cost."""
    from tqdm import tqdm

    total = len(runner.tasks)
    bar = tqdm(total=total, disable=quiet, unit="task", dynamic_ncols=True)
    totals = {"tokens": 0, "cost": 0.0}

    def progress(kind: str, info: dict) -> None:
        if kind != "task":
            return
        outcome, latest = info["outcome"], info["latest"]
        totals["tokens"] += int(outcome.usage.get("prompt_tokens", 0) + outcome.usage.get("completion_tokens", 0))
        totals["cost"] += outcome.usage.get("cost_usd", 0)
        if info["pass"] == 1:
            bar.update(1)
        score = 100 * sum(o.scores["oracle2"] for o in latest.values()) / max(len(latest), 1)
        bar.set_postfix_str(f"pass {info['pass']} oracle@2 {score:.1f} tokens {totals['tokens']} "
                            f"${totals['cost']:.3f}")

    runner.progress = progress
    try:
        return runner.run()
    finally:
        bar.close()


__all__ = ["RunSession", "open_session", "run_with_progress"]
