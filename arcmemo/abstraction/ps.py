"""The PS memory write: solution -> pseudocode + summary -> typed, parameterised concepts -> store.

The abstraction prompt carries the current memory in compressed form (one line per
concept) so the model reuses and extends existing names, and the hand-annotated seeds
as worked examples. Concepts merge into the store by exact name (a name differing only
in case or spacing from an existing one is taken as that one), all of a task's writes
in one transaction; `name := definition` typings become custom types.
"""

from __future__ import annotations

from arcmemo.abstraction import fewshot
from arcmemo.abstraction.failures import failed_write, previous_failures
from arcmemo.abstraction.pseudocode import write_pseudocode
from arcmemo.abstraction.records import SolutionInput, WriteResult
from arcmemo.abstraction.steps import StepFailed, ask
from arcmemo.abstraction.validate import name_key, split_custom_types, validate_concepts
from arcmemo.llm.client import Usage
from arcmemo.memory.data import ConceptDataError, normalize
from arcmemo.memory.render import render_ps
from arcmemo.parsing import ParseError, parse_yaml_block
from arcmemo.prompts import render_prompt

STEP = "ps_abstract"
EMPTY_REPOSITORY = "(empty: no concepts recorded yet)"


def parse_concepts(text: str, existing_names: list[str]) -> tuple[list[dict], dict[str, str]]:
    """Concepts (store data shape) and custom types from an answer's fenced YAML; ParseError if malformed."""
    known = {name_key(n): n for n in existing_names}
    value = parse_yaml_block(text)
    concepts = validate_concepts(value, exists=lambda name: name_key(name) in known)
    for concept in concepts:
        concept["name"] = known.get(name_key(concept["name"]), concept["name"])
    types = split_custom_types(concepts)
    for i, concept in enumerate(concepts):
        try:
            normalize(concept, source="self")       # whatever the store would refuse, refuse now
        except ConceptDataError as exc:
            raise ParseError(f"concepts[{i}] ({concept['name']!r}): {exc}") from None
    return concepts, types


def abstraction_prompt(memory, summary: str, pseudocode: str, examples: list[fewshot.Example],
                       task_id: str, n: int = 2) -> str:
    repository = render_ps(memory.list("ps"), memory.custom_types(), compressed=True).strip()
    return render_prompt(
        "ps_abstract",
        examples=fewshot.concept_examples(examples, exclude=task_id, n=n),
        concept_list=repository or EMPTY_REPOSITORY,
        summary=summary,
        pseudocode=pseudocode.strip(),
    )


def solution_actor(solution: SolutionInput, llm) -> str:
    return "human" if solution.origin == "human" else llm.model_for("solver")


def write_ps(memory, llm, solution: SolutionInput, *, run_id: str | None = None,
             examples: list[fewshot.Example] | None = None) -> WriteResult:
    """Abstract one verified solution into PS concepts. Never raises for model trouble:
    a failure is recorded (WriteFailure with the raw answer) and returned as failed."""
    task_id = solution.task.id
    model = llm.model_for("aux")
    examples = fewshot.load_examples() if examples is None else examples
    usage = Usage()
    raw = None
    sample = previous_failures(memory, task_id, ("pseudocode", STEP, "ps_store"))
    try:
        if solution.pseudocode and solution.summary:
            pseudocode, summary = solution.pseudocode, solution.summary
        else:
            answer = write_pseudocode(llm, solution, examples, sample=sample)
            usage = usage + answer.usage
            pseudocode, summary = answer.value
        existing = [c.name for c in memory.list("ps")]
        answer = ask(llm, abstraction_prompt(memory, summary, pseudocode, examples, task_id,
                                        fewshot.example_count(llm)),
                     lambda text: parse_concepts(text, existing), step=STEP, task_id=task_id,
                     sample=sample)
        usage = usage + answer.usage
        raw = answer.text
        concepts, types = answer.value
    except StepFailed as exc:
        return failed_write(memory, run_id=run_id, task_id=task_id, step=exc.step, model=model, error=exc.error,
                            raw=exc.raw, usage=usage + exc.usage, message=str(exc))

    result = WriteResult(task_id, usage=usage)
    log = dict(actor=model, run_id=run_id, task_id=task_id, source="self", model=model)
    try:
        with memory.transaction():
            known = memory.custom_types()
            for name, definition in types.items():
                if name not in known:
                    memory.add_custom_type(name, definition, actor=model, run_id=run_id,
                                           task_id=task_id, model=model)
            for concept in concepts:
                merged = memory.merge(concept, **log)
                {"added": result.added, "extended": result.extended}.get(
                    merged.action, result.unchanged).append(merged.concept.name)
            memory.add_solution(task_id, solution.code, pseudocode=pseudocode, summary=summary,
                                origin=solution.origin, verified=True,
                                actor=solution_actor(solution, llm), run_id=run_id)
    except (ValueError, LookupError) as exc:      # the store refused; the transaction rolled back
        return failed_write(memory, run_id=run_id, task_id=task_id, step="ps_store", model=model, error=str(exc),
                            raw=raw, usage=usage, message=f"store: {exc}")
    return result
