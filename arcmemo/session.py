"""Wiring for a run: open the memory, the model client, the sandbox and the solver plugin.

Kept apart from the loop (runner.py) so tests can hand the runner their own parts, and
apart from the CLI so the CLI stays parsing and printing.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from arcmemo.config import db_url
from arcmemo.llm.client import LLM, LLMSettings
from arcmemo.memory.store import Memory
from arcmemo.plugins import load_solver
from arcmemo.rundir import RunDir
from arcmemo.runner import RunConfig, Runner, new_runner, resume_runner
from arcmemo.sandbox import get_sandbox


class RunSession:
    def __init__(self, *, db: str | None = None, base_url=None, solver_model=None, aux_model=None,
                 select_model=None, concurrency=None, no_cache: bool = False, api_key=None):
        self.memory = Memory(db_url(db))
        self.flags = dict(base_url=base_url, api_key=api_key, solver_model=solver_model, aux_model=aux_model,
                          select_model=select_model, concurrency=concurrency, cache=False if no_cache else None)
        self.sandbox = get_sandbox()
        self.llms: list[LLM] = []

    def _make_llm(self, recorded_models: dict[str, str] | None = None):
        flags = dict(self.flags)
        for role, model in (recorded_models or {}).items():
            flags[f"{role}_model"] = flags.get(f"{role}_model") or model
        settings = LLMSettings.resolve(**flags)

        def make(run_id: str) -> LLM:
            llm = LLM(settings, run_id=run_id)
            self.llms.append(llm)
            return llm

        return make

    def new(self, config: RunConfig, *, runs_root: str, progress=None) -> Runner:
        return new_runner(config, memory=self.memory, make_llm=self._make_llm(), sandbox=self.sandbox,
                          solver=load_solver(config.solver), runs_root=runs_root, progress=progress)

    def resume(self, rundir: RunDir, *, progress=None) -> Runner:
        recorded = rundir.config()
        config = RunConfig.from_dict(recorded["settings"])
        return resume_runner(rundir, memory=self.memory, make_llm=self._make_llm(recorded.get("models")),
                             sandbox=self.sandbox, solver=load_solver(config.solver), progress=progress)

    def close(self) -> None:
        for llm in self.llms:
            llm.close()


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
