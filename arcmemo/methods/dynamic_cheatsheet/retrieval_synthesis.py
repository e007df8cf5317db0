"""Dynamic Cheatsheet, retrieval and synthesis (DC-RS; Suzgun et al., "Dynamic Cheatsheet") as a
memory method: `dc-rs`.

Memory holds every past problem with the solver's whole answer to it, as DC-RS keeps each
input with the model's output: cases (format "case": named by the task id, the puzzle's
profile as description (what retrieval matches), the puzzle itself as situation, the
solver's answer (the end of its reasoning) as suggestion and its program in
`implementation`); the option `train_gate` (off by default) keeps only tasks whose program
passed every train pair. And the newest synthesised sheet (format "sheet", named "dc-rs",
revisioned; not DC-Cu's "cheatsheet").

Read: the k cases whose puzzle is most like this one (lexical similarity of profiles,
task_profile.py: the paper embeds the inputs, arcmemo has no embedding model offline), as
many of them as fit the option `case_tokens`, and
the newest sheet go to the curator model (role aux), which sees those past puzzles with the
answers given to them and synthesises a sheet for this puzzle; the solver is shown that
sheet alone. With neither a case nor a sheet in memory
nothing is asked and nothing shown.

Write (after each block): the block's experiences become cases, and the sheet
synthesised for the block's last task (the newest, in task order) is kept as the next
read's previous sheet. That sheet is the one its read showed: the read remembers what it
synthesised (in this process), and otherwise the same request is asked again, which the
call cache answers as before; it is planned before the block's cases are added, so it sees
the memory its read saw. Every task of a block reads the memory as it was at the block's
start, so "the previous sheet" is the one kept after the last block (the paper, one
problem at a time, is the case k=1).

DC-Cu (`cheatsheet`) differs: one sheet, rewritten after each solve and shown whole to every
puzzle; DC-RS writes a sheet per puzzle from what is most like it.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from arcmemo.core.estimate import estimate_tokens
from arcmemo.core.gridtext import format_task
from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.schema.rules import MAX_ITEM
from arcmemo.methods.arcmemo.write import passed_train
from arcmemo.methods.contract import Experience, MethodBase, WriteEvent, each_experience, guarded
from arcmemo.methods.dynamic_cheatsheet.cumulative import EMPTY_SHEET, _parser
from arcmemo.methods.retrieval import most_similar
from arcmemo.methods.task_profile import task_profile
from arcmemo.prompts import keep_tail, render_prompt
from arcmemo.selection.conversation import Outcome, ask, sum_usage
from arcmemo.selection.types import Selection

NAME = SHEET_NAME = "dc-rs"
STEP = "dc_rs_sheet"
CASE_STEP = "dc_rs_case"
ACTOR = "dc-rs-curator"
REMEMBERED = 256            # sheets a process keeps between a read and its block's write
ANSWER_CHARS = 3_000        # of the solver's reasoning a case keeps


@dataclass(frozen=True)
class RSOptions:
    top_k: int = field(default=3, metadata={"min": 1, "max": 20})             # past cases retrieved
    max_words: int = field(default=600, metadata={"min": 50, "max": 5000})    # the synthesised sheet's length
    case_tokens: int = field(default=3000, metadata={"min": 200, "max": 100_000})  # the curator's share for cases
    train_gate: bool = False     # keep as cases only tasks whose program passed every train pair


@dataclass(frozen=True)
class Synthesis:
    """What one puzzle's sheet is made from: the newest kept sheet and the most similar cases."""

    previous: Concept | None
    cases: list[tuple[Concept, float]]
    memory_size: int                    # cases in memory

    @property
    def empty(self) -> bool:
        return not self.cases and not (self.previous is not None and (self.previous.description or "").strip())

    @property
    def ids(self) -> list[int]:
        return ([self.previous.id] if self.previous is not None else []) + [case.id for case, _ in self.cases]


def case_text(case) -> str:
    return case.description or ""


def plan(task, memory, options: RSOptions) -> Synthesis:
    found, size = most_similar(memory, "case", task_profile(task), options.top_k, case_text, key="description")
    return Synthesis(memory.get(SHEET_NAME, format="sheet"), within(found, options.case_tokens), size)


def within(cases: list[tuple[Concept, float]], tokens: int) -> list[tuple[Concept, float]]:
    """The most similar cases whose blocks fit `tokens` together, in order: a past puzzle too big
    for what is left is passed over, so the curator's prompt stays within the model's context
    (ARC puzzles run to thousands of tokens each)."""
    kept, used = [], 0
    for case in cases:
        cost = estimate_tokens(case_block(len(kept) + 1, case[0]))
        if used + cost <= tokens:
            kept.append(case)
            used += cost
    return kept


def case_block(n: int, case: Concept) -> str:
    """Past puzzle `n` as the curator sees it: the puzzle, then the answer given to it."""
    program = case.implementation[0] if case.implementation else "(none: the answer held no usable program)"
    answer = f"The solver's answer (its end):\n{case.suggestion.strip()}\n\n" if case.suggestion else ""
    return (f"## {n}. Puzzle {case.name}\n{case.situation or case.description or ''}\n\n{answer}"
            f"Its program:\n```python\n{program}\n```")


def render_cases(cases: list[tuple[Concept, float]]) -> str:
    """The past puzzles as the curator sees them (`case_block`)."""
    if not cases:
        return "(none yet)"
    return "\n\n".join(case_block(n, case) for n, (case, _) in enumerate(cases, 1))


def sheet_messages(task, synthesis: Synthesis, options: RSOptions) -> list[dict]:
    previous = (synthesis.previous.description or "").strip() if synthesis.previous is not None else ""
    return [{"role": "user", "content": render_prompt(
        "dc_rs_sheet", sheet=previous or EMPTY_SHEET, cases=render_cases(synthesis.cases),
        puzzle=format_task(task, with_test=False), max_words=options.max_words)}]


def render_hint(sheet: str) -> str:
    return f"A cheatsheet written for this puzzle from similar puzzles solved before:\n\n{sheet.strip()}\n"


def case_data(experience: Experience) -> dict:
    """A past problem with the solver's whole answer (its program, the end of its reasoning)."""
    return {"format": "case", "name": experience.task_id, "description": task_profile(experience.task),
            "situation": format_task(experience.task, with_test=False),
            "suggestion": keep_tail((experience.reasoning or "").strip(), ANSWER_CHARS) or None,
            "implementation": [experience.program] if experience.program else []}


class DynamicCheatsheetRS(MethodBase):
    name = NAME
    description = ("Dynamic Cheatsheet, retrieval & synthesis (DC-RS): a sheet written per puzzle from the most similar "
                   "past puzzles and the answers given to them")
    formats = ("case", "sheet")
    read_roles = ("aux",)
    write_roles = ("aux",)
    Options = RSOptions
    departures = ("similar past puzzles are found by word overlap of their profiles, not by embeddings",
                  "the curator is the run's aux model, not the solver itself",
                  "the similar past puzzles shown are those that fit case_tokens (default 3000), most similar first")

    def __init__(self):
        # (task, request) -> {sample: (sheet, model)}: what this process's reads showed
        self._shown: OrderedDict[tuple[str, str], dict[int, tuple[str, str | None]]] = OrderedDict()
        self._lock = threading.Lock()

    def _synthesise(self, task, synthesis: Synthesis, options: RSOptions, llm, sample: int, *,
                    reuse: bool) -> Outcome:
        """The sheet for `task` and the model that wrote it (Outcome.value). `reuse`: the sheet this
        process's read showed for the same request, if any (the lowest sample: the first thread's),
        instead of asking again."""
        messages = sheet_messages(task, synthesis, options)
        key = (task.id, hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest())
        if reuse:
            with self._lock:
                shown = self._shown.get(key)
            if shown:
                return Outcome(value=shown[min(shown)])
        outcome = ask(llm, messages, role="aux", step=STEP, parse=_parser(options.max_words), task_id=task.id,
                      sample=sample)
        if outcome.ok:
            outcome.value = (outcome.value, outcome.completions[-1].model)
            if not reuse:
                with self._lock:
                    self._shown.setdefault(key, {})[sample] = outcome.value
                    self._shown.move_to_end(key)
                    while len(self._shown) > REMEMBERED:
                        self._shown.popitem(last=False)
        return outcome

    def read(self, task, memory, settings, llm):
        options = self.options(settings.options)
        synthesis = plan(task, memory, options)
        stats = {"memory_size": synthesis.memory_size, "retrieved": len(synthesis.cases),
                 "scores": [round(s, 3) for _, s in synthesis.cases]}
        if synthesis.empty:
            return Selection(mode=NAME, stats={**stats, "shown": 0})
        outcome = self._synthesise(task, synthesis, options, llm, settings.pass_index, reuse=False)
        if not outcome.ok:
            return Selection(mode=NAME, fallback=True, error=outcome.error, reasoning=outcome.raw,
                             usage=sum_usage(outcome.completions), stats=stats)
        hint = render_hint(outcome.value[0])
        return Selection(mode=NAME, concept_ids=synthesis.ids, hint=hint, usage=sum_usage(outcome.completions),
                         stats={**stats, "shown": len(synthesis.ids), "hint_tokens_est": estimate_tokens(hint)})

    def write(self, experiences, memory, llm, ctx):
        options = self.options(ctx.options)
        newest = experiences[-1] if experiences else None
        # planned before anything is written: the memory the newest task's read saw
        synthesis = plan(newest.task, memory, options) if newest is not None else None

        def keeps_sheet(experience: Experience) -> bool:
            return experience is newest and synthesis is not None and not synthesis.empty

        def keeps_case(experience: Experience) -> bool:
            return passed_train(experience) or not options.train_gate

        def write_one(experience: Experience) -> WriteEvent:
            event = WriteEvent(experience.task_id)
            if keeps_case(experience):
                self._keep_case(experience, memory, event, run_id=ctx.run_id)
            if keeps_sheet(experience):
                self._keep_sheet(experience, synthesis, options, memory, llm, event, ctx)
            return event

        return [guarded(write_one, experience, memory, step=NAME, run_id=ctx.run_id)
                for experience in each_experience(experiences, ctx,
                                                  learns_from=lambda e: keeps_case(e) or keeps_sheet(e))]

    @staticmethod
    def _keep_case(experience: Experience, memory, event: WriteEvent, *, run_id) -> None:
        if len(experience.program or "") > MAX_ITEM:
            error = (f"{CASE_STEP}: the program has {len(experience.program):,} characters; a case keeps at most "
                     f"{MAX_ITEM:,}")
            memory.record_write_failure(run_id=run_id, task_id=experience.task_id, step=CASE_STEP, model=None,
                                        error=error, raw=None)
            event.failed, event.error = True, error
            return
        verdict = "passed every train pair" if passed_train(experience) else "did not pass every train pair"
        result = memory.merge(case_data(experience), actor=NAME, run_id=run_id, task_id=experience.task_id,
                              source="self", reason=f"task {experience.task_id}: the solver's answer ({verdict})")
        if result.action == "added":
            event.added.append(result.concept.name)
        elif result.action == "extended":
            event.extended.append(result.concept.name)

    def _keep_sheet(self, experience: Experience, synthesis: Synthesis, options: RSOptions, memory, llm,
                    event: WriteEvent, ctx) -> None:
        task = experience.task
        outcome = self._synthesise(task, synthesis, options, llm, ctx.pass_index, reuse=True)
        if not outcome.ok:
            model = outcome.completions[-1].model if outcome.completions else llm.model_for("aux")
            memory.record_write_failure(run_id=ctx.run_id, task_id=task.id, step=STEP, model=model,
                                        error=outcome.error or "unknown error", raw=outcome.raw)
            event.failed, event.error = True, outcome.error
            return
        sheet, model = outcome.value
        previous = synthesis.previous
        if previous is not None and (previous.description or "").strip() == sheet.strip():
            return
        memory.merge({"format": "sheet", "name": SHEET_NAME, "description": sheet, "used_in": [task.id]},
                     actor=ACTOR, reason=f"the sheet synthesised for task {task.id}", run_id=ctx.run_id,
                     task_id=task.id, source="self", model=model, op="add" if previous is None else "edit")
        event.extended.append(SHEET_NAME)


    def check(self, memory, *, continual: bool) -> str | None:
        """Without --continual nothing is added, so a memory with no case and no sheet shows nothing."""
        if continual or memory.list("case") or memory.get(SHEET_NAME, format="sheet") is not None:
            return None
        return (f"{memory.url}: holds no DC-RS cases or sheet for --method dc-rs to read; add --continual to keep "
                "them from this run's solved tasks")


__all__ = ["DynamicCheatsheetRS", "RSOptions", "Synthesis", "plan", "within", "case_block", "render_cases",
           "sheet_messages", "case_data"]
