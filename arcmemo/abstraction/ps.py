"""The PS memory write: solution -> pseudocode + summary -> typed, parameterised concepts -> store.

The abstraction prompt carries the current memory in compressed form (one line per
concept) so the model reuses and extends existing names, and the hand-annotated seeds
as worked examples. Concepts merge into the store by exact name (a name differing only
in case or spacing from an existing one is taken as that one), all of a task's writes
in one transaction; `name := definition` typings become custom types.

The memory shown is held to the `abstraction_memory_tokens` setting (estimated tokens,
default 3,000; ARCMEMO_ABSTRACTION_MEMORY_TOKENS or config `abstraction_memory_tokens`).
A memory that fits is shown whole. A larger one (a long continual run, an imported
memory) is narrowed to the concepts whose words best match the solution's summary,
pseudocode and code, with the custom types they use, as many as fit; the prompt then
says that only that part of the memory is shown. A reused name still merges with the
stored concept even when it was not shown.
"""

from __future__ import annotations

from arcmemo.abstraction import fewshot, helpers
from arcmemo.abstraction.job import WriteJob
from arcmemo.abstraction.pseudocode import STEP as PSEUDOCODE_STEP
from arcmemo.abstraction.pseudocode import write_pseudocode
from arcmemo.abstraction.records import SolutionInput, WriteResult
from arcmemo.abstraction.steps import StepFailed
from arcmemo.abstraction.validate import name_key, split_custom_types, validate_concepts
from arcmemo.core.parsing import ParseError, parse_yaml_block
from arcmemo.core.settings import as_number, setting
from arcmemo.memory.data import ConceptDataError, normalize
from arcmemo.memory.render import render_ps
from arcmemo.prompts import render_prompt
from arcmemo.selection import budget
from arcmemo.selection.ps import needed_types

STEP = "ps_abstract"
STORE_STEP = "ps_store"
EMPTY_REPOSITORY = "(empty: no concepts recorded yet)"
NONE_SHOWN = "(none: not even one concept fits in the space given to this list)"
MEMORY_TOKENS = "abstraction_memory_tokens"
DEFAULT_MEMORY_TOKENS = 3000
MIN_MEMORY_TOKENS = 500


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


def memory_tokens() -> int:
    """The `abstraction_memory_tokens` setting: estimated tokens for the memory in the prompt."""
    return as_number(setting(MEMORY_TOKENS, None, DEFAULT_MEMORY_TOKENS), MEMORY_TOKENS, int, MIN_MEMORY_TOKENS)


def repository_section(concepts: list, custom_types: dict[str, str], query: str, limit: int) -> tuple[str, str]:
    """(note, concept list) for the prompt, together within `limit` estimated tokens.

    The whole memory compressed, with no note, when it fits; otherwise the concepts that
    rank_lexical puts first for `query`, as many as fit, rendered in the same form with
    the custom types they need, and a note saying only they are shown.
    """
    whole = render_ps(concepts, custom_types, compressed=True).strip()
    if budget.estimate_tokens(whole) <= limit:
        return "", whole or EMPTY_REPOSITORY

    def section(subset) -> tuple[str, str]:
        shown = budget.keep_order(subset, concepts)
        note = render_prompt("ps_abstract_partial", total=len(concepts), shown=len(shown))
        listed = render_ps(shown, needed_types(shown, custom_types), compressed=True).strip()
        return note, listed or NONE_SHOWN

    ranked = budget.rank_lexical(query, concepts)
    n = budget.fit_prefix(ranked, lambda subset: budget.estimate_tokens("".join(section(subset))) <= limit)
    return section(ranked[:n])


def abstraction_prompt(concepts: list, custom_types: dict[str, str], summary: str, pseudocode: str,
                       examples: list[fewshot.Example], task_id: str, n: int = 2, *, code: str = "",
                       limit: int | None = None) -> str:
    """The ps_abstract prompt; the memory part held to `limit` (default: the setting), see the module docstring."""
    note, repository = repository_section(concepts, custom_types, "\n".join((summary, pseudocode, code)),
                                          memory_tokens() if limit is None else limit)
    return render_prompt(
        "ps_abstract",
        examples=fewshot.concept_examples(examples, exclude=task_id, n=n),
        repository_note=note,
        concept_list=repository,
        summary=summary,
        pseudocode=pseudocode.strip(),
    )


def write_ps(memory, llm, solution: SolutionInput, *, run_id: str | None = None,
             examples: list[fewshot.Example] | None = None, verify_helpers: helpers.Verify | None = None) -> WriteResult:
    """Abstract one verified solution into PS concepts. Never raises for model trouble:
    a failure is recorded (WriteFailure with the raw answer) and returned as failed.

    With `verify_helpers` (the run layer's sandbox check, see helpers.py) the written
    routines without a helper get one when the model's helper and its rewrite of the
    solution verify; a helper that does not is dropped and recorded as a failure of the
    ps_helpers step, and the concepts are written without it."""
    job = WriteJob.start(memory, llm, solution, run_id=run_id, examples=examples,
                         steps=(PSEUDOCODE_STEP, STEP, STORE_STEP))
    try:
        if solution.pseudocode and solution.summary:
            pseudocode, summary = solution.pseudocode, solution.summary
        else:
            pseudocode, summary = job.took(write_pseudocode(llm, solution, job.examples, sample=job.sample))
        stored = memory.list("ps")
        existing = [c.name for c in stored]
        prompt = abstraction_prompt(stored, memory.custom_types(), summary, pseudocode, job.examples, job.task_id,
                                    fewshot.example_count(llm), code=solution.code)
        concepts, types = job.ask(prompt, lambda text: parse_concepts(text, existing), step=STEP)
    except StepFailed as exc:
        return job.failed(exc)
    outcome = _with_helpers(job, concepts, stored, verify_helpers) if verify_helpers is not None else None
    store = dict(step=STORE_STEP, types=types, pseudocode=pseudocode, summary=summary)
    result = job.store(outcome.concepts if outcome else concepts, **store)
    if result.failed and outcome and outcome.kept:     # the store refused a helper: the concepts go in without
        problems = [f"helpers {', '.join(outcome.kept)}: the store refused them: {result.error}"]
        result, outcome = job.store(concepts, **store), helpers.HelperOutcome(concepts, [], problems)
    if outcome is not None:
        result.helpers, result.helper_problems = outcome.kept, outcome.dropped
        for problem in outcome.dropped:
            memory.record_write_failure(run_id=run_id, task_id=job.task_id, step=helpers.STEP, model=job.model,
                                        error=problem, raw=job.raw)
    return result


def _with_helpers(job: WriteJob, concepts: list[dict], stored: list, verify: helpers.Verify) -> helpers.HelperOutcome:
    """The helper step (helpers.py) for the concepts just written; a model failure only drops the helpers."""
    todo = helpers.wanted(concepts, stored)
    if not todo:
        return helpers.HelperOutcome(concepts)
    library = {c.helper["name"]: c.helper for c in stored if c.helper}
    names = [name for _, name, _ in todo]
    try:
        proposal = job.ask(helpers.helpers_prompt(job.solution.code, todo, library),
                           lambda text: helpers.parse_helpers(text, names), step=helpers.STEP)
    except StepFailed as exc:
        return helpers.HelperOutcome(concepts, [], [f"helpers {', '.join(names)}: {exc.error}"])
    return helpers.attach_helpers(proposal, concepts, todo, library, verify)
