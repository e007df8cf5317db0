"""The memory method plugin contract: what a method is asked to do, what it is given, what it returns.

A memory method decides two things in the solve loop (the paper's Algorithm 1):

    read(task, memory, settings, llm) -> Selection       what the solver is shown for a task
    write(experiences, memory, llm, ctx) -> [WriteEvent]  what memory learns from a finished block

`read` is MEMREAD: it reads the store (and may ask the model), never writes, and returns a
`Selection` whose `hint` is exactly what the solver sees and whose `concept_ids` are the
items it stands for. `write` is MEMWRITE: it gets the block's `Experience`s in task order
and stores what it learned through the store's API (`Memory.add/merge/edit/delete`,
revisioned, one of the store's `FORMATS`, method-specific fields under `meta`); it returns
one `WriteEvent` per experience it acted on.

What a method can learn from is the `Experience`: the train-only view of a finished task.
It has the task (train pairs and test inputs; `Task` has no test outputs), the final
program, the reasoning, whether a program passed every train pair, every attempt's train
verdicts and the feedback the solver was shown, and the items the task was shown. It has
no score, no test output, no prediction and no `solved` flag, so no method can learn from a
test answer: not by mistake, not on purpose (tests/test_methods_contract.py walks every
field). Which experiences a method learns from is its own choice (ArcMemo writes from
passing programs only; a method may learn from failures too).

A write never raises for model problems: a failed step is recorded with
`memory.record_write_failure` and reported as a failed WriteEvent. Items a method stores are
checked by the store (`ConceptDataError` before anything is written), so nothing malformed
enters memory; `each_experience` turns such an error into a recorded write failure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from arcmemo.core.answers import INTERRUPTS, describe
from arcmemo.core.tasks import Task
from arcmemo.methods.options import MethodOptionError, option_names, read_options
from arcmemo.selection.types import Selection, SelectionSettings

if TYPE_CHECKING:
    from arcmemo.abstraction.helpers import Verify
    from arcmemo.llm.client import LLM
    from arcmemo.memory.store.memory import Memory

VERDICTS = ("helpful", "harmful", "neutral")      # a method's judgement of an item it showed a task


@dataclass(frozen=True)
class AttemptView:
    """One answer of a solve thread, as train pairs judged it: the program (None when the answer
    had no usable one), its verdict per train pair, the error that kept it from being done, and
    the feedback the solver was answered with after it (None: none was given or recorded)."""

    thread: int
    sample: int
    round: int
    program: str | None
    train_correct: tuple[bool, ...]
    train_cell_accuracy: float
    error: str | None = None
    feedback: str | None = None
    label: str = ""

    @property
    def passed_train(self) -> bool:
        return bool(self.train_correct) and all(self.train_correct)


@dataclass(frozen=True)
class Experience:
    """A finished task as a memory method may see it: train pairs only (module docstring)."""

    task: Task                          # train pairs and test inputs, no test outputs
    pass_index: int
    program: str | None                 # the final program (the best thread's best answer)
    reasoning: str                      # the end of its reasoning
    passed_train: bool                  # some program passed every train pair
    attempts: tuple[AttemptView, ...] = ()
    shown: tuple[int, ...] = ()         # ids of the items the task was shown (its selection, helpers offered)

    @property
    def task_id(self) -> str:
        return self.task.id


@dataclass
class WriteEvent:
    """What a write did for one experience: item names added, extended and removed, or failed
    with the error; `skipped` (e.g. "budget") when the run stopped it before it began."""

    task_id: str
    added: list[str] = field(default_factory=list)
    extended: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: bool = False
    error: str | None = None
    helpers: list[str] = field(default_factory=list)          # PS: helpers written with their concepts
    helper_problems: list[str] = field(default_factory=list)  # PS: helpers proposed but dropped, and why
    types_dropped: list[str] = field(default_factory=list)    # PS: custom types not created (over the write's cap)
    skipped: str | None = None

    def record(self) -> dict[str, Any]:
        """The event log's fields (the run adds type, pass and usage)."""
        return {"task_id": self.task_id, "added": list(self.added), "extended": list(self.extended),
                "removed": list(self.removed), "failed": bool(self.failed), "error": self.error,
                "helpers": list(self.helpers), "helper_problems": list(self.helper_problems),
                "types_dropped": list(self.types_dropped)}


def _silent(text: str) -> None:
    """The default progress callback: says nothing."""


def _always(task_id: str) -> bool:
    return True


def _unrecorded(task_id: str, verdicts: dict[int, str]) -> None:
    """The default judge: a write outside a run has no usage rows to mark."""


def _no_verifier(task: Task) -> None:
    return None


@dataclass
class WriteContext:
    """What the run gives a write besides memory and model (tests build one with the defaults).

    `proceed(task_id)` says whether to start the write for a task (False: the run's budget or a
    fatal endpoint fault stopped writing; `each_experience` asks it). `judge(task_id, {item id:
    verdict})` records the method's own verdict (VERDICTS) on items the task was shown, beside
    the run's train-pair counts (memory's usage rows). Model calls name the task they are for
    (`task_id=`), so the run can count each task's write on its own.
    """

    run_id: str | None = None
    pass_index: int = 1
    memory_format: str | None = None    # ArcMemo's write: ps | oe (--memory-format; None: the method's own)
    memory_tokens: int | None = None    # the abstraction prompt's budget for the memory it shows
    examples: Callable[[], list] = list           # the write prompts' worked examples (loaded when first asked)
    verifier: Callable[[Task], Verify | None] = _no_verifier  # a task's helper verifier (None: helpers are not written)
    model_params: dict[str, Any] = field(default_factory=dict)  # a curator's call settings (the run's protocol)
    options: dict[str, Any] = field(default_factory=dict)       # the method's own settings (--method-option)
    progress: Callable[[str], None] = _silent
    proceed: Callable[[str], bool] = _always
    judge: Callable[[str, dict[int, str]], None] = _unrecorded


@runtime_checkable
class MemoryMethod(Protocol):
    """A memory method (module docstring); `MethodBase` gives every member a default.

    `formats`: the store formats its items are kept in; `read_roles`/`write_roles`: the model
    roles its steps call (a run starts and checks those); `Options`: a dataclass of its own
    settings with their defaults (--method-option KEY=VALUE; None: it takes none). What the run
    may do with it, declared here and never inferred from its name: `shares_read` (one read may
    serve every thread of a puzzle: the protocol's select_once), `reselects` (its read takes a
    failed try's feedback, `SelectionSettings.retry_feedback`: --reselect-on-retry),
    `offers_helpers` (the items it selects may carry verified helpers, offered to the solver),
    `probes_by_default` (--probe-helpers's default for it), `protocol_choices` (the protocol's
    read choices it follows: a run refuses one given to a method that ignores it)."""

    name: str
    description: str
    formats: tuple[str, ...]
    read_roles: tuple[str, ...]
    write_roles: tuple[str, ...]
    reads_memory: bool
    writes_memory: bool
    Options: type | None
    shares_read: bool
    reselects: bool
    offers_helpers: bool
    probes_by_default: bool
    protocol_choices: tuple[str, ...]
    departures: tuple[str, ...]

    def read(self, task: Task, memory: Memory, settings: SelectionSettings, llm: LLM) -> Selection: ...

    def prepare_read(self, task: Task, memory: Memory, settings: SelectionSettings, llm: LLM) -> SelectionSettings:
        ...

    def write(self, experiences: Sequence[Experience], memory: Memory, llm: LLM, ctx: WriteContext
              ) -> list[WriteEvent]: ...

    def check(self, memory: Memory, *, continual: bool, options: Mapping[str, Any] | None = None) -> str | None: ...

    def owner(self, memory_format: str | None = None) -> str: ...

    def option_values(self, options: Mapping[str, Any] | None) -> dict[str, Any]: ...


class MethodBase:
    """Defaults a method may inherit: reads nothing, writes nothing, needs no model, takes no
    options, lets the run do nothing more with its reads, and `check` finds nothing that would
    make a run pointless."""

    name = ""
    description = ""
    formats: tuple[str, ...] = ()
    read_roles: tuple[str, ...] = ()
    write_roles: tuple[str, ...] = ()
    reads_memory = True                 # False: a run needs no memory to exist (none)
    writes_memory = True                # False: it learns nothing (none): --continual is refused
    Options: type | None = None         # a dataclass of its own settings, with their defaults
    shares_read = False
    reselects = False
    offers_helpers = False
    probes_by_default = False
    protocol_choices: tuple[str, ...] = ()
    departures: tuple[str, ...] = ()    # where it departs from its paper, a line each (`methods list`)

    @property
    def option_names(self) -> tuple[str, ...]:
        return (option_names(self.Options) if self.Options is not None else ()) + COMMON_OPTIONS

    def owner(self, memory_format: str | None = None) -> str:
        """The method whose items this one reads and writes (memory/store/scoped.py): its own; a
        method that ablates another's read names that one (`all`: the items of the format it writes)."""
        return self.name

    def options(self, given: Mapping[str, Any] | None) -> Any:
        """Its Options with `given` over the defaults (MethodOptionError naming a bad value)."""
        if self.Options is None:
            return None
        return read_options(self.Options, dict(given or {}))

    def option_values(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every option with its value, the defaults included: what a run records."""
        chosen = self.options(given)
        own = {} if chosen is None else dataclasses.asdict(chosen)
        return {**own, "reads_from": reads_from(given)}

    def read(self, task: Task, memory: Memory, settings: SelectionSettings, llm: LLM) -> Selection:
        return Selection(mode=self.name)

    def prepare_read(self, task: Task, memory: Memory, settings: SelectionSettings, llm: LLM) -> SelectionSettings:
        """What a puzzle's threads share before their reads (made once per puzzle, when the protocol
        shares one: OE's caption); the settings each thread's read then takes."""
        return settings

    def write(self, experiences: Sequence[Experience], memory: Memory, llm: LLM, ctx: WriteContext
              ) -> list[WriteEvent]:
        return []

    def check(self, memory: Memory, *, continual: bool, options: Mapping[str, Any] | None = None) -> str | None:
        """Why a run of this method on `memory` would be pointless (None: it would not); `options`:
        the run's method options (a check that declares no `options` is called without them)."""
        return None


# Options every method takes (the run applies them, not the method): `reads_from`, the other methods
# whose items it reads on purpose (a list, or names joined by commas); by default a method reads
# only its own items.
COMMON_OPTIONS = ("reads_from",)


def reads_from(given: Mapping[str, Any] | None) -> list[str]:
    """The `reads_from` option's method names, checked (MethodOptionError naming a bad value)."""
    value = (given or {}).get("reads_from") or []
    names = [n.strip() for n in value.split(",")] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise MethodOptionError(f"option reads_from must name memory methods (a list, or names joined by commas), "
                                f"got {value!r}")
    return sorted(set(names))


class ReadFailed(Exception):
    """A step a puzzle's threads share before their reads failed (`prepare_read`): each thread's
    read is then a fallback (no hint) with this error."""


def check_options(method: MemoryMethod, options: Any) -> None:
    """MethodOptionError naming what is wrong when `options` are not settings `method` takes."""
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise MethodOptionError(f"method options must map names to values, got {options!r}")
    takes = tuple(method.option_names)
    unknown = sorted(set(options) - set(takes))
    if unknown:
        raise MethodOptionError(f"memory method {method.name!r} takes no option {', '.join(map(repr, unknown))} "
                                f"({'its options: ' + ', '.join(takes) if takes else 'it takes none'})")
    try:
        method.option_values(options)
    except MethodOptionError as exc:
        raise MethodOptionError(f"memory method {method.name!r}: {exc}") from None


def each_experience(experiences: Sequence[Experience], ctx: WriteContext, *,
                    learns_from: Callable[[Experience], bool] = lambda e: True) -> Iterator[Experience]:
    """The experiences to write one by one, in task order: those `learns_from` accepts, each
    after the run said it may proceed (a task it stops is reported as skipped by the run)."""
    for experience in experiences:
        if not learns_from(experience):
            continue
        if not ctx.proceed(experience.task_id):
            continue
        ctx.progress(f"writing memory from {experience.task_id}")
        yield experience


def guarded(write_one: Callable[[Experience], WriteEvent | None], experience: Experience, memory: Memory, *,
            step: str, run_id: str | None, model: str | None = None) -> WriteEvent | None:
    """`write_one(experience)`, with anything it raises (a malformed item the store refused, a
    bug) recorded as a write failure of `step` instead of ending the run. Interrupts propagate."""
    try:
        return write_one(experience)
    except INTERRUPTS:
        raise
    except Exception as exc:
        error = f"{step}: {describe(exc)}"
        memory.record_write_failure(run_id=run_id, task_id=experience.task_id, step=step, model=model, error=error,
                                    raw=None)
        return WriteEvent(experience.task_id, failed=True, error=error)


__all__ = ["AttemptView", "Experience", "WriteEvent", "WriteContext", "MemoryMethod", "MethodBase", "VERDICTS",
           "MethodOptionError", "ReadFailed", "COMMON_OPTIONS", "check_options", "each_experience", "guarded",
           "reads_from"]
