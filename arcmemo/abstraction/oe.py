"""The OE memory write: solution -> post-hoc derivation -> situation/suggestion lessons -> store.

The derivation (observations and thoughts leading to the rule, reconstructed from the
puzzle and the program) links each idea to what calls for it; the lessons step turns it
into "when X, try Y" pairs told to generalise away the puzzle's colours and counts. As
in the paper, this write does not look at the existing memory; lessons merge by content.
"""

from __future__ import annotations

from arcmemo.abstraction import fewshot
from arcmemo.abstraction.job import WriteJob
from arcmemo.abstraction.records import SolutionInput, WriteResult
from arcmemo.abstraction.steps import StepFailed
from arcmemo.abstraction.validate import validate_lessons
from arcmemo.core.answers import MAX_CARRIED_CHARS
from arcmemo.core.gridtext import format_task
from arcmemo.core.parsing import ParseError, extract_tag, parse_yaml_block
from arcmemo.core.text import cap
from arcmemo.memory.schema.merge_rule import ConceptDataError, normalize
from arcmemo.prompts import keep_tail, render_prompt

DERIVE_STEP = "oe_derive"
LESSONS_STEP = "oe_lessons"
STORE_STEP = "oe_store"


def parse_derivation(text: str) -> str:
    """The derivation, for the lessons prompt (held to MAX_CARRIED_CHARS)."""
    return cap(extract_tag(text, "derivation"), MAX_CARRIED_CHARS)


def parse_lessons(text: str) -> list[dict]:
    lessons = validate_lessons(parse_yaml_block(text))
    for i, lesson in enumerate(lessons):
        try:
            normalize(lesson, format="oe", source="self")
        except ConceptDataError as exc:
            raise ParseError(f"lessons[{i}]: {exc}") from None
    return lessons


def derive_prompt(solution: SolutionInput) -> str:
    reasoning = ""
    if solution.reasoning and solution.reasoning.strip():
        text = keep_tail(solution.reasoning.strip())
        reasoning = f"\n# The solver's own notes (may be partial)\n{text}\n"
    return render_prompt("oe_derive", puzzle=format_task(solution.task, with_test=False),
                         solution=solution.code.strip(), reasoning=reasoning)


def lessons_prompt(solution: SolutionInput, derivation: str, examples: list[fewshot.Example],
                   n: int = 2) -> str:
    rule = f"Rule: {solution.summary.strip()}\n\n" if solution.summary else ""
    return render_prompt("oe_lessons", examples=fewshot.lesson_examples(examples, exclude=solution.task.id, n=n),
                         rule=rule, derivation=derivation, solution=solution.code.strip())


def write_oe(memory, llm, solution: SolutionInput, *, run_id: str | None = None,
             examples: list[fewshot.Example] | None = None) -> WriteResult:
    """Derive OE lessons from one verified solution. Never raises for model trouble:
    a failure is recorded (WriteFailure with the raw answer) and returned as failed."""
    job = WriteJob.start(memory, llm, solution, run_id=run_id, examples=examples,
                         steps=(DERIVE_STEP, LESSONS_STEP, STORE_STEP))
    try:
        derivation = job.ask(derive_prompt(solution), parse_derivation, step=DERIVE_STEP)
        lessons = job.ask(lessons_prompt(solution, derivation, job.examples, fewshot.example_count(llm)),
                          parse_lessons, step=LESSONS_STEP)
    except StepFailed as exc:
        return job.failed(exc)
    return job.store(lessons, step=STORE_STEP, pseudocode=solution.pseudocode, summary=solution.summary)
