"""The Dynamic Cheatsheet baseline, cumulative mode (DC-Cu): the memory method `cheatsheet`.

One evolving text: a Concept of format "sheet", whose description is the whole sheet. A
memory may hold several, each under its name (the option `sheet`; default "cheatsheet"):
`arcmemo cheatsheet build --name` curates one, and a run reads and writes the one its
configuration names (the released build's is "cheatsheet-released"). Each rewrite by the
curator model is a revision in the store (op "add" the first time, "edit" afterwards, with
run, task and model), so the sheet as of any earlier run can be read back. The whole sheet
is the hint for every task; there is no selection. A continual run's write asks the curator
to rewrite it after every task, as Dynamic Cheatsheet's curator runs after every query and
judges the answer itself: it reads the solver's own answer (its program, the end of its
reasoning, the feedback it was shown after running it on the examples), never the run's
verdict (`trace_text`). The option `train_gate` (off by default) keeps to the tasks whose
program passed every train pair, as arcmemo did before. `arcmemo cheatsheet build`
(run/jobs/curating.py) curates it from seed solutions beforehand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arcmemo.core.estimate import estimate_tokens
from arcmemo.core.gridtext import format_task
from arcmemo.core.parsing import ParseError, extract_tag
from arcmemo.memory.views.render import render_sheet
from arcmemo.methods.arcmemo.write import passed_train
from arcmemo.methods.contract import Experience, MethodBase, WriteEvent, each_experience, guarded
from arcmemo.methods.options import MethodOptionError
from arcmemo.prompts import keep_tail, render_prompt
from arcmemo.selection.conversation import ask, sum_usage
from arcmemo.selection.types import Selection, SelectionSettings

SHEET_NAME = "cheatsheet"
ACTOR = "cheatsheet-curator"
EMPTY_SHEET = "(empty: nothing recorded yet)"
CHARS_PER_WORD = 12   # a sheet within its word limit but longer than this per word is junk, not words


@dataclass(frozen=True)
class SheetOptions:
    """The method's own settings (--method-option KEY=VALUE)."""

    sheet: str = SHEET_NAME           # the name of the sheet a run reads (and, with --continual, rewrites)
    train_gate: bool = False          # rewrite only after a task whose program passed every train pair


def sheet_name(options: Mapping[str, Any] | None) -> str:
    """The sheet a run's method options name (MethodOptionError for a blank name)."""
    name = str((options or {}).get("sheet", SHEET_NAME)).strip()
    if not name:
        raise MethodOptionError("option sheet must name a sheet, not be blank")
    return name


def current_sheet(memory, name: str = SHEET_NAME):
    return memory.get(name, format="sheet")


def select_cheatsheet(task, memory, settings: SelectionSettings, llm=None) -> Selection:
    sheet = current_sheet(memory, sheet_name(settings.options))
    if sheet is None or not (sheet.description or "").strip():
        return Selection(mode="cheatsheet", stats={"memory_size": 0})
    return Selection(mode="cheatsheet", concept_ids=[sheet.id], hint=render_sheet([sheet]),
                     stats={"memory_size": 1, "hint_tokens_est": estimate_tokens(sheet.description)})


@dataclass
class CheatsheetUpdate:
    updated: bool
    error: str | None = None
    usage: object = None


def _parser(max_words: int):
    limit = int(max_words * 1.5)  # the prompt asks for max_words; reject only clear overruns
    max_chars = limit * CHARS_PER_WORD

    def parse(text: str) -> str:
        sheet = extract_tag(text, "cheatsheet")
        words = len(sheet.split())
        if words > limit or len(sheet) > max_chars:
            raise ParseError(f"the cheatsheet has {words} words ({len(sheet):,} characters); "
                             f"keep it under {max_words} words")
        return sheet

    return parse


def update_cheatsheet(memory, llm, task, trace_text: str, *, run_id: str | None,
                      max_words: int = 1500, model_params: dict | None = None,
                      source: str = "self", name: str = SHEET_NAME) -> CheatsheetUpdate:
    """Ask the curator (role aux, step cheatsheet) to rewrite the sheet `name` after a solved task
    (`source` "self": a run's own solve; "human": a seed solution, `arcmemo cheatsheet build`).

    Never raises for model problems: a failed rewrite leaves the sheet as it was and is
    recorded as a WriteFailure (step "cheatsheet").
    """
    sheet = current_sheet(memory, name)
    old = (sheet.description or "").strip() if sheet is not None else ""
    messages = [{"role": "user", "content": render_prompt(
        "cheatsheet", sheet=old or EMPTY_SHEET, puzzle=format_task(task),
        trace=(trace_text or "").strip() or "(no trace recorded)", max_words=max_words)}]
    # a rewrite that failed before for this task is asked for afresh, not replayed from the call cache
    sample = memory.count_write_failures(task.id, ("cheatsheet",))
    outcome = ask(llm, messages, role="aux", step="cheatsheet", parse=_parser(max_words), task_id=task.id,
                  params=model_params, sample=sample)
    usage = sum_usage(outcome.completions)
    model = outcome.completions[-1].model if outcome.completions else llm.model_for("aux")
    if not outcome.ok:
        memory.record_write_failure(run_id=run_id, task_id=task.id, step="cheatsheet", model=model,
                       error=outcome.error or "unknown error", raw=outcome.raw)
        return CheatsheetUpdate(False, outcome.error, usage)
    text = outcome.value
    if text == old:
        return CheatsheetUpdate(False, None, usage)
    # merge, not edit: a sheet's newest description replaces the old one, and the revision
    # keeps run_id, task_id and model; op says what happened ("add" first, then "edit").
    memory.merge({"format": "sheet", "name": name, "description": text, "used_in": [task.id]},
                 actor=ACTOR, reason=f"curator rewrite after task {task.id}", run_id=run_id,
                 task_id=task.id, source=source, model=model, op="add" if sheet is None else "edit")
    return CheatsheetUpdate(True, None, usage)


FEEDBACK_CHARS = 1_200      # the end of the last feedback the solver was shown


def trace_text(experience: Experience) -> str:
    """What the curator reads of a task: the solver's own answer, for the curator to judge (Dynamic
    Cheatsheet's curator sees the answer, not a verdict): its program whole, the end of its
    reasoning, and the feedback it was shown after running its program on the examples."""
    program = experience.program or "(its answer held no usable program)"
    feedback = next((a.feedback for a in reversed(experience.attempts) if a.feedback), None)
    return (f"The solver's final program:\n{program}\n\nIts reasoning (the end):\n"
            f"{keep_tail(experience.reasoning or '') or '(none recorded)'}"
            + (f"\n\nWhat it was told after running a program on the examples:\n"
               f"{keep_tail(feedback.strip(), FEEDBACK_CHARS)}" if feedback else ""))


class Cheatsheet(MethodBase):
    name = "cheatsheet"
    description = ("Dynamic Cheatsheet, cumulative (DC-Cu): one curated sheet, rewritten after every task by a curator "
                   "that judges the solver's answer itself, shown whole")
    formats = ("sheet",)
    write_roles = ("aux",)
    Options = SheetOptions
    departures = ("the curator is the run's aux model, not the solver itself; it reads the solver's program, the end "
                  "of its reasoning and its feedback from the examples",)

    def options(self, given):
        chosen = super().options(given)
        sheet_name({"sheet": chosen.sheet})          # a blank name is refused when the run is set up
        return chosen

    def read(self, task, memory, settings, llm):
        return select_cheatsheet(task, memory, settings, llm)

    def write(self, experiences, memory, llm, ctx):
        name = sheet_name(ctx.options)

        def write_one(experience: Experience) -> WriteEvent:
            update = update_cheatsheet(memory, llm, experience.task, trace_text(experience), run_id=ctx.run_id,
                                       model_params=ctx.model_params or None, name=name)
            return WriteEvent(experience.task_id, extended=[name] if update.updated else [],
                              failed=update.error is not None, error=update.error)

        learns_from = passed_train if self.options(ctx.options).train_gate else (lambda e: True)
        return [guarded(write_one, experience, memory, step="cheatsheet", run_id=ctx.run_id)
                for experience in each_experience(experiences, ctx, learns_from=learns_from)]

    def check(self, memory, *, continual: bool, options: Mapping[str, Any] | None = None) -> str | None:
        """The paper's cheatsheet baseline reads a sheet built beforehand: without --continual (which
        grows one from the run's own solves) a memory without the sheet the run names would make it
        the no-memory baseline in disguise."""
        name = sheet_name(options)
        if continual or current_sheet(memory, name) is not None:
            return None
        held = sorted(c.name for c in memory.list("sheet"))
        build = "`arcmemo cheatsheet build seeds/" + (f" --name {name}" if name != SHEET_NAME else "") + "`"
        return (f"{memory.url}: holds no cheatsheet named {name!r} for --selection cheatsheet to show"
                + (f" (it holds {', '.join(map(repr, held))}: --method-option sheet=NAME reads one)" if held else "")
                + f"; build it with {build} (or add --continual to grow one from this run's solves)")
