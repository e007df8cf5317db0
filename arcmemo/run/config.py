"""What shapes a solve run (`RunConfig`), as config.json records it, and the values derived from it
once: the selection's and the solver's settings, the budgets sized to the run's models.

Every choice a run makes is resolved here, when the run starts, and recorded: the memory
method's options with their defaults, whether memory's helpers are probed (the method's
default unless given), the protocol. A resumed run reads the same value back
(`RunConfig.from_dict`), so views and resume never guess a default of their own.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.config import REDACTED, memory_url_for_record
from arcmemo.core.gridtext import DEFAULT_GRID_TEXT, check_grid_text
from arcmemo.core.tasks import Task, TaskSet, load_tasks
from arcmemo.memory.store.scoped import MethodMemory, method_memory
from arcmemo.methods.contract import check_options
from arcmemo.methods.discovery import MODES, load_method
from arcmemo.run.protocol import PROTOCOL_KEY, Protocol, check, from_record
from arcmemo.selection import SelectionSettings
from arcmemo.selection.budget import budgets_for
from arcmemo.selection.types import DEFAULT_HINT_BUDGET, DEFAULT_TOKEN_BUDGET
from arcmemo.solverkit import SolverSettings

ORDERS = ("as-given", "shuffled")


def own_fields(cls, data: dict[str, Any]) -> dict[str, Any]:
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
    ps_caption: bool = False          # ps over budget: caption the puzzle (aux) for the pre-filter
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
    # Which repeat of its configuration this run is (0: the first): each draws new samples, its own
    # cache keys and seeds (run/repeats.py), so `runs compare --mean` averages independent runs.
    repeat: int = 0
    helpers: bool = True              # offer memory's verified helpers to the solver's programs
    max_helpers: int | None = None    # at most this many per task; None: sized to the solver model (offer.py)
    # Try memory's helpers on the train pairs (stages/probe.py): a stage every method can use;
    # None: the method's default (`probes_by_default`), resolved when the config is made.
    probe_helpers: bool | None = None
    fits_as_answers: bool = True      # each fit is also a candidate answer of its own, made by memory (probe.py)
    # The paper's protocol (issue 13): independent threads per task, its hint, re-selection.
    threads: int = 1                  # each a selection plus a sample and its retry chain
    other_names: bool = True          # ps: the hint also names the concepts not selected (the paper's)
    reselect_on_retry: bool = False   # read again with a failed try's feedback before its retry (methods that can)
    config_file: str | None = None    # the run configuration file its settings came from, if any
    prompts_dir: str | None = None    # the user's templates, in force before the shipped ones (run/prompting.py)
    grid_text: str = DEFAULT_GRID_TEXT  # how prompts write grids (core/gridtext.py)
    # Where arcmemo and the released code differ (run/protocol.py): a Protocol, or a profile name or
    # recorded mapping (resolved here); config.json keeps it apart from the settings, under "protocol".
    protocol: Protocol = field(default_factory=Protocol)
    # The memory method's own settings: every option with its value once resolved, the defaults included.
    method_options: dict[str, Any] = field(default_factory=dict)
    consolidate_every: int | None = None  # --continual: consolidate memory every N blocks (run/jobs/consolidating.py)

    def __post_init__(self) -> None:
        if self.selection not in MODES:
            raise ValueError(f"selection must name an installed memory method ({', '.join(MODES)}; "
                             f"`arcmemo methods list`), not {self.selection!r}")
        method = load_method(self.selection)
        check_options(method, self.method_options)
        self.method_options = method.option_values(self.method_options)
        if self.probe_helpers is None:
            self.probe_helpers = bool(method.probes_by_default)
        self.protocol = from_record(self.protocol)
        check(self.protocol, continual=self.continual, passes=self.passes, method=method, scored=self.score)
        if self.memory_format is None:
            self.memory_format = next((f for f in method.formats if f in ("ps", "oe")), "ps")    # the method's own
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {self.order!r}")
        for name in ("k", "passes", "attempts", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.repeat < 0:
            raise ValueError(f"repeat must be 0 or more, got {self.repeat}")
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

    @property
    def writes_memory(self) -> bool:
        """Whether this run writes memory: --continual, with a method that learns (`none` does not)."""
        return self.continual and load_method(self.selection).writes_memory

    @property
    def pass_order(self) -> bool:
        """continual_order=pass: pass p runs retry depth p - 1 of every task that still retries."""
        return self.continual and self.protocol.continual_order == "pass"

    def stream(self, pass_index: int, thread: int) -> int:
        """Which (pass, thread) this is, counted from 0: each gets samples of its own, so the
        model is asked afresh (the call cache keys on the sample index)."""
        return (pass_index - 1) * self.threads + thread

    def selection_settings(self, pass_index: int, thread: int = 0) -> SelectionSettings:
        return SelectionSettings(
            mode=self.selection, top_k=self.top_k, expand=self.expand, ps_caption=self.ps_caption,
            memory_format=self.memory_format,
            token_budget=self.token_budget or DEFAULT_TOKEN_BUDGET, hint_budget=self.hint_budget or DEFAULT_HINT_BUDGET,
            pass_index=self.stream(pass_index, thread) + 1, other_names=self.other_names,
            select_params=self._seed_params(), view=self.protocol.selector_view, hint_form=self.protocol.hint_form,
            caption_image="puzzle" if self.protocol.oe_caption == "per-puzzle" else "pairs",
            options=dict(self.method_options))

    def solver_settings(self, pass_index: int, thread: int = 0) -> SolverSettings:
        """Thread t's solver settings in pass p: later passes and other threads start past the
        earlier ones' samples; in pass order, pass p is one thread going on to retry depth p - 1
        (its samples are the first pass's)."""
        if self.pass_order:
            return dataclasses.replace(self._solver_settings(1, thread), retries=pass_index - 1)
        return self._solver_settings(pass_index, thread)

    def _solver_settings(self, pass_index: int, thread: int) -> SolverSettings:
        return SolverSettings(attempts=self.attempts, retries=self.retries, max_tokens=self.max_tokens,
                              temperature=self.temperature, reasoning_effort=self.reasoning_effort,
                              sample_offset=self.stream(pass_index, thread) * self.attempts,
                              extra=self._seed_params(), feedback=self.protocol.feedback,
                              answer_reading=self.protocol.answer_reading)

    def _seed_params(self) -> dict[str, Any]:
        """The models' seed: a repeat's starts past every sample of the repeats before it."""
        if self.model_seed is None:
            return {}
        return {"seed": self.model_seed + self.repeat * self.passes * self.threads * self.attempts}

    def items(self, memory: Any) -> MethodMemory:
        """`memory` as the run's method sees it: its own items, and those its `reads_from` option names."""
        return method_memory(memory, load_method(self.selection).owner(self.memory_format),
                             self.method_options.get("reads_from") or ())

    def settings_record(self) -> dict[str, Any]:
        """config.json's "settings": every field but the protocol (kept apart, under "protocol")."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "protocol"}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        # a run recorded before the probe (or fits as answers) existed resumes as it started: without it
        return cls(**{"probe_helpers": False, "fits_as_answers": False, **own_fields(cls, data)})




def order_tasks(taskset: TaskSet, config: RunConfig) -> list[Task]:
    tasks = list(taskset.tasks)
    if config.order == "shuffled":
        random.Random(config.seed).shuffle(tasks)
    if config.limit is not None:
        tasks = tasks[: config.limit]
    return tasks


def memory_start(items: MethodMemory, method: Any) -> dict[str, Any]:
    """What a run's method starts from (its own items, of its formats, when the run starts): empty,
    or how many, and how many came from human-written solutions (`arcmemo seed --method`)."""
    from arcmemo.memory.views.library import library

    found = [c for fmt in method.formats for c in library(items, fmt).concepts]
    return {"method": items.owner, "items": len(found), "from_seeds": sum(c.source == "human" for c in found),
            "empty": not found}


def load_run_tasks(config: RunConfig) -> TaskSet:
    """The run's tasks: a split or path, narrowed to `task_ids` (looked up across both splits of
    the dataset when the source is `all`)."""
    return load_tasks(config.source, ids=config.task_ids, solutions=config.solutions)


def fit_budgets(config: RunConfig, llm: Any) -> RunConfig:
    """The config with the budgets left open filled in for the run's models (budgets_for, and
    how many helpers a task is offered: offer.helper_limit)."""
    from arcmemo.run.stages.offer import helper_limit

    token_budget, hint_budget = budgets_for(llm, config.token_budget, config.hint_budget)
    return dataclasses.replace(config, token_budget=token_budget, hint_budget=hint_budget,
                               max_helpers=helper_limit(llm, config.max_helpers))


def answers_record(config: RunConfig, llm: Any) -> dict[str, Any]:
    """The part of a run's config.json that shapes its model answers (settings, protocol, models,
    call defaults): written by the loop, compared by records/likeness.py and run/progress/fromcache.py."""
    from arcmemo.llm import ROLES

    return {"settings": config.settings_record(), PROTOCOL_KEY: config.protocol.record(continual=config.continual),
            "models": {role: llm.model_for(role) for role in ROLES},
            "call_defaults": {role: llm.settings.call_defaults(role) for role in ROLES}}


__all__ = ["RunConfig", "ORDERS", "REDACTED", "memory_url_for_record", "load_run_tasks", "fit_budgets", "own_fields",
           "order_tasks", "memory_start", "answers_record"]
