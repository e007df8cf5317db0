"""The OE memory write: solution -> post-hoc derivation -> situation/suggestion lessons -> store.

The derivation (observations and thoughts leading to the rule, reconstructed from the
puzzle and the program) links each idea to what calls for it; the lessons step turns it
into "when X, try Y" pairs told to generalise away the puzzle's colours and counts. As
in the paper, this write does not look at the existing memory; lessons merge by content.
"""

from __future__ import annotations

from arcmemo.abstraction import fewshot
from arcmemo.abstraction.failures import failed_write, previous_failures
from arcmemo.abstraction.ps import solution_actor
from arcmemo.abstraction.records import SolutionInput, WriteResult
from arcmemo.abstraction.steps import StepFailed, ask
from arcmemo.abstraction.validate import validate_lessons
from arcmemo.gridtext import format_task
from arcmemo.llm.client import Usage
from arcmemo.memory.data import ConceptDataError, normalize
from arcmemo.parsing import ParseError, extract_tag, parse_yaml_block
from arcmemo.prompts import render_prompt

DERIVE_STEP = "oe_derive"
LESSONS_STEP = "oe_lessons"
MAX_REASONING_CHARS = 8000


def parse_derivation(text: str) -> str:
    return extract_tag(text, "derivation")


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
        text = solution.reasoning.strip()
        if len(text) > MAX_REASONING_CHARS:
            text = "[...]\n" + text[-MAX_REASONING_CHARS:]
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
    task_id = solution.task.id
    model = llm.model_for("aux")
    examples = fewshot.load_examples() if examples is None else examples
    usage = Usage()
    raw = None
    sample = previous_failures(memory, task_id, (DERIVE_STEP, LESSONS_STEP, "oe_store"))
    try:
        derived = ask(llm, derive_prompt(solution), parse_derivation, step=DERIVE_STEP, task_id=task_id,
                      sample=sample)
        usage = usage + derived.usage
        answer = ask(llm, lessons_prompt(solution, derived.value, examples, fewshot.example_count(llm)),
                     parse_lessons,
                     step=LESSONS_STEP, task_id=task_id, sample=sample)
        usage = usage + answer.usage
        raw = answer.text
    except StepFailed as exc:
        return failed_write(memory, run_id=run_id, task_id=task_id, step=exc.step, model=model, error=exc.error,
                            raw=exc.raw, usage=usage + exc.usage, message=str(exc))

    result = WriteResult(task_id, usage=usage)
    try:
        with memory.transaction():
            for lesson in answer.value:
                merged = memory.merge(lesson, actor=model, run_id=run_id, task_id=task_id,
                                      source="self", model=model)
                {"added": result.added, "extended": result.extended}.get(
                    merged.action, result.unchanged).append(merged.concept.name)
            memory.add_solution(task_id, solution.code, summary=solution.summary, pseudocode=solution.pseudocode,
                                origin=solution.origin, verified=True,
                                actor=solution_actor(solution, llm), run_id=run_id)
    except (ValueError, LookupError) as exc:
        return failed_write(memory, run_id=run_id, task_id=task_id, step="oe_store", model=model, error=str(exc),
                            raw=raw, usage=usage, message=f"store: {exc}")
    return result
