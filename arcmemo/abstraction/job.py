"""One memory write in progress: what the PS and OE writers share around their own model steps.

Both writers take a verified solution through a few model steps (each may raise
StepFailed), then store what the steps gave in one transaction. A WriteJob holds what
every step needs (the aux model, the worked examples, the sample index after earlier
failures of the writer's steps), adds up the usage, keeps the latest raw answer for a
failure record, and turns either kind of failure (a step, or the store refusing) into a
recorded failed WriteResult.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arcmemo.abstraction import fewshot
from arcmemo.abstraction.failures import failed_write, previous_failures
from arcmemo.abstraction.records import SolutionInput, WriteResult
from arcmemo.abstraction.steps import StepAnswer, StepFailed, ask
from arcmemo.llm.client import Usage


@dataclass
class WriteJob:
    memory: Any
    llm: Any
    solution: SolutionInput
    run_id: str | None
    examples: list[fewshot.Example]
    model: str                     # the aux model: it writes, so it is the actor of every revision
    sample: int                    # sample index of every call (see previous_failures)
    usage: Usage = field(default_factory=Usage)
    raw: str | None = None         # the latest step's answer, kept if the store refuses

    @classmethod
    def start(cls, memory, llm, solution: SolutionInput, *, run_id: str | None,
              examples: list[fewshot.Example] | None, steps: tuple[str, ...]) -> WriteJob:
        """A job for `solution`; `steps` are the writer's step names (store included), whose
        earlier recorded failures for this task make every call a fresh sample."""
        return cls(memory, llm, solution, run_id,
                   examples=fewshot.load_examples() if examples is None else examples,
                   model=llm.model_for("aux"),
                   sample=previous_failures(memory, solution.task.id, steps))

    @property
    def task_id(self) -> str:
        return self.solution.task.id

    def took(self, answer: StepAnswer) -> Any:
        """Count one step's answer (usage, raw text) and return its parsed value."""
        self.usage = self.usage + answer.usage
        self.raw = answer.text
        return answer.value

    def ask(self, prompt: str, parse: Callable[[str], Any], *, step: str) -> Any:
        """One aux step (steps.ask: strict parse, one retry); its parsed value. Raises StepFailed."""
        return self.took(ask(self.llm, prompt, parse, step=step, task_id=self.task_id, sample=self.sample))

    def failed(self, exc: StepFailed) -> WriteResult:
        """A step gave no usable answer: recorded (with its raw answers) and returned as failed."""
        return failed_write(self.memory, run_id=self.run_id, task_id=self.task_id, step=exc.step, model=self.model,
                            error=exc.error, raw=exc.raw, usage=self.usage + exc.usage, message=str(exc))

    def store(self, items: list[dict], *, step: str, pseudocode: str | None, summary: str | None,
              types: dict[str, str] | None = None) -> WriteResult:
        """In one transaction: the custom types the store lacks, every item merged (tallied as
        added / extended / unchanged), and the solution. If the store refuses anything, all of
        it rolls back and the refusal is a recorded failure of `step`. Custom types past the
        write's cap (Memory.transaction) are not created: listed in `types_dropped`."""
        result = WriteResult(self.task_id, usage=self.usage)
        log = dict(actor=self.model, run_id=self.run_id, task_id=self.task_id, model=self.model)
        try:
            with self.memory.transaction() as write:
                known = self.memory.custom_types()
                for name, definition in (types or {}).items():
                    if name not in known:
                        self.memory.add_custom_type(name, definition, **log)
                for item in items:
                    merged = self.memory.merge(item, source="self", **log)
                    {"added": result.added, "extended": result.extended}.get(
                        merged.action, result.unchanged).append(merged.concept.name)
                self.memory.add_solution(self.task_id, self.solution.code, pseudocode=pseudocode, summary=summary,
                                         origin=self.solution.origin, verified=True,
                                         actor=self.solution_actor(), run_id=self.run_id)
        except (ValueError, LookupError) as exc:      # the store refused; the transaction rolled back
            return failed_write(self.memory, run_id=self.run_id, task_id=self.task_id, step=step, model=self.model,
                                error=str(exc), raw=self.raw, usage=self.usage, message=f"store: {exc}")
        result.types_dropped = list(write.dropped)
        return result

    def solution_actor(self) -> str:
        """Who wrote the solution: a human (seeds) or the solver model."""
        return "human" if self.solution.origin == "human" else self.llm.model_for("solver")
