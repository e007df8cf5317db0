"""The solver plugin contract: what a solver is given and what it returns.

A solver turns a puzzle and a memory hint into candidate programs and predictions:
`solve(task, hint, ctx) -> SolveResult`. It gets the LLM client, the sandbox and its
settings through `ctx`; it never sees test outputs (`Task` has none) and never touches
the store. `solve` never raises for model or program problems: failures are recorded
as failed `Attempt`s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from arcmemo.core.tasks import Grid, Task, as_grid, to_lists
from arcmemo.llm.client import Usage
from arcmemo.solverkit.helpers import MemoryHelpers

if TYPE_CHECKING:
    from arcmemo.llm.client import LLM
    from arcmemo.sandbox import Sandbox
from arcmemo.solverkit.reading import ANSWER_READINGS


@dataclass
class Hint:
    """What memory selection hands the solver. `text == ""` means no memory; `helpers` are the
    offered concepts' verified helpers, importable by the solver's programs (None: none)."""

    text: str = ""
    concept_ids: list[int] = field(default_factory=list)
    mode: str = "none"
    helpers: MemoryHelpers | None = None

    @classmethod
    def none(cls) -> Hint:
        return cls(text="", concept_ids=[], mode="none")


@dataclass
class SolverSettings:
    """attempts = parallel samples (or agents), retries = feedback rounds per sample."""

    attempts: int = 1
    retries: int = 2
    max_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None     # for reasoning models (low, medium, high)
    extra: dict[str, Any] = field(default_factory=dict)
    # Index of the first sample. Later passes over a task start past the earlier passes'
    # samples, so the model is asked afresh instead of the call cache replaying old answers.
    sample_offset: int = 0
    # What a retry shows (the run's protocol): "conversation" goes on with execution feedback
    # (at most two diffs); "last-attempt" shows the opening prompt again with the last answer and
    # every mismatched output, as the ArcMemo authors' released code does.
    feedback: str = "conversation"
    # How an answer becomes a program and its output a grid (the run's protocol; solverkit/reading.py):
    # "arcmemo" or "released", as the ArcMemo authors' released code reads one. A solver passes it
    # to `read_program` / `program_of`; `converse` runs the programs with it.
    answer_reading: str = "arcmemo"

    FEEDBACK_FORMS = ("conversation", "last-attempt")

    def __post_init__(self) -> None:
        if self.feedback not in self.FEEDBACK_FORMS:
            raise ValueError(f"feedback must be one of {', '.join(self.FEEDBACK_FORMS)}, not {self.feedback!r}")
        if self.answer_reading not in ANSWER_READINGS:
            raise ValueError(f"answer_reading must be one of {', '.join(ANSWER_READINGS)}, "
                             f"not {self.answer_reading!r}")

    # SolverSettings.extra keys passed through to the model call.
    LLM_PARAMS = ("reasoning_effort", "max_completion_tokens", "seed", "temperature", "max_tokens")

    def llm_params(self) -> dict[str, Any]:
        """The model-call parameters these settings ask for (max_tokens, temperature,
        reasoning_effort, extras); the client puts them in the form the model takes."""
        params = {k: v for k, v in (self.extra or {}).items() if k in self.LLM_PARAMS and v is not None}
        for name in ("max_tokens", "temperature", "reasoning_effort"):
            if getattr(self, name) is not None:
                params[name] = getattr(self, name)
        return params


def _silent(text: str) -> None:
    """The default progress callback: says nothing."""


@dataclass
class SolveContext:
    llm: LLM
    sandbox: Sandbox
    settings: SolverSettings = field(default_factory=SolverSettings)
    run_id: str | None = None
    # What the solver is doing now, in a few words ("attempt 2 of 3, retry 1"): the run layer
    # shows it on its progress line. A solver never prints; `converse` calls this itself.
    progress: Callable[[str], None] = _silent
    # Re-selection before a retry (--reselect-on-retry): `reselect(feedback, retry, sample)` is
    # called (off the event loop) with the failed try's feedback and returns the hint to show
    # with it, or None. `converse` does this itself; None: no re-selection.
    reselect: Callable[[str, int, int], Hint | None] | None = None
    # Whether an attempt's thread retries, when the run decides it (the released code's protocol:
    # retry while a *test* output is wrong). The run scores the attempt's test outputs itself and
    # hands back only yes or no; the solver never sees a test output. None: retry while a train
    # pair fails or the program crashes on a test input. `converse` asks it itself.
    wants_retry: Callable[[Attempt], bool] | None = None
    # The conversations of this thread as an earlier pass left them (SolveResult.state), to go on
    # from (a continual run in pass order: one retry depth per pass). `converse` restores them
    # itself, by sample index, when the solver opens them as it did then; None: start afresh.
    resume: list[dict] | None = None


@dataclass
class Attempt:
    """One candidate program: a sample's answer in one round (round 0 = first answer).

    `code` is None when the model gave no usable program (then `raw` keeps its text and
    `error` says why). `train_correct[i]` is the verdict on train pair i;
    `test_outputs[j]` the program's output on test input j (None if it failed there).
    """

    sample: int
    round: int
    code: str | None
    raw: str
    train_correct: list[bool] = field(default_factory=list)
    train_cell_accuracy: float = 0.0
    test_outputs: list[Grid | None] = field(default_factory=list)
    error: str | None = None
    reasoning: str | None = None          # the model's reasoning text, if it gave any
    label: str = ""                       # which agent/variant produced it (multi-agent solvers)
    modules: dict[str, str] = field(default_factory=dict)  # sandbox modules the code imports
    helpers_called: list[str] = field(default_factory=list)   # memory helpers the program called
    helpers_rebound: list[str] = field(default_factory=list)  # ones it redefined (memory's were used)
    cut: bool = False                     # the answer ended at the token limit (max_tokens), unfinished

    @property
    def passed_train(self) -> bool:
        return bool(self.train_correct) and all(self.train_correct)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["test_outputs"] = [None if g is None else to_lists(g) for g in self.test_outputs]
        data["passed_train"] = self.passed_train
        data["modules"] = sorted(self.modules)      # names only; sources are in the solver
        return data

    @classmethod
    def from_dict(cls, data: dict, modules: dict[str, str] | None = None) -> Attempt:
        """An attempt as `to_dict` wrote it; its modules' sources are taken from `modules` by name."""
        own = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in own}
        values["test_outputs"] = [None if g is None else as_grid(g) for g in data.get("test_outputs") or []]
        values["modules"] = {n: (modules or {})[n] for n in data.get("modules") or [] if n in (modules or {})}
        return cls(**values)


@dataclass
class Trace:
    """What the abstraction step learns from: reasoning and code of the best attempt."""

    reasoning: str = ""
    final_code: str | None = None
    passing_attempt: int | None = None    # index into SolveResult.attempts, None if none passed
    transcript: list[dict] = field(default_factory=list)   # the best sample's conversation
    modules: dict[str, str] = field(default_factory=dict)  # modules final_code imports
    notes: list[str] = field(default_factory=list)         # solver remarks worth keeping

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SolveResult:
    attempts: list[Attempt]
    predictions: list[list[Grid]]         # per test input: up to 2 distinct grids, best first
    trace: Trace
    usage: Usage
    solver: str = ""
    error: str | None = None              # a solver-level failure (attempts may still exist)
    # Each conversation as it ended (Conversation.state), for a later pass to go on from
    # (SolveContext.resume); empty for a solver that cannot continue one.
    state: list[dict] = field(default_factory=list)

    @property
    def passed_train(self) -> bool:
        return any(a.passed_train for a in self.attempts)

    def to_dict(self) -> dict:
        return {
            "solver": self.solver,
            "passed_train": self.passed_train,
            "predictions": [[to_lists(g) for g in grids] for grids in self.predictions],
            "attempts": [a.to_dict() for a in self.attempts],
            "trace": self.trace.to_dict(),
            "usage": asdict(self.usage),
            "error": self.error,
        }


@runtime_checkable
class Solver(Protocol):
    name: str

    def solve(self, task: Task, hint: Hint, ctx: SolveContext) -> SolveResult:
        """Never raises for model or program problems."""
