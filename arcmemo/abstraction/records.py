"""What a memory write takes (a verified solution) and what it reports back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.tasks import Task


@dataclass(frozen=True)
class SolutionInput:
    """A solution that passed every train pair (for seeds: every train and test pair).

    `pseudocode`/`summary`, when given (hand annotations), skip the pseudocode step;
    `reasoning` (the solver's trace) feeds the OE derivation when there is one.
    """

    task: Task
    code: str
    origin: str = "self"           # human | self
    pseudocode: str | None = None
    summary: str | None = None
    reasoning: str | None = None

    def __post_init__(self):
        if self.origin not in ("human", "self"):
            raise ValueError(f"SolutionInput.origin must be 'human' or 'self', got {self.origin!r}")
        if not isinstance(self.code, str) or not self.code.strip():
            raise ValueError(f"SolutionInput for task {self.task.id}: code is empty")


@dataclass
class WriteResult:
    """The outcome of one write: names added/extended, or failed with the error."""

    task_id: str
    added: list[str] = field(default_factory=list)
    extended: list[str] = field(default_factory=list)
    failed: bool = False
    error: str | None = None
    usage: Any = None              # arcmemo.llm.client.Usage of the calls this write made
    step: str | None = None        # the step that failed, when failed
    unchanged: list[str] = field(default_factory=list)
    helpers: list[str] = field(default_factory=list)          # helpers written with their concepts
    helper_problems: list[str] = field(default_factory=list)  # helpers proposed but dropped, and why
    types_dropped: list[str] = field(default_factory=list)    # custom types not created: over the write's cap
