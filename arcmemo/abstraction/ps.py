"""The PS memory write: solution -> pseudocode + summary -> typed, parameterised concepts -> store.

The abstraction prompt carries the current memory in compressed form (one line per
concept) so the model reuses and extends existing names, and the hand-annotated seeds
as worked examples. Concepts merge into the store by exact name (a name differing only
in case or spacing from an existing one is taken as that one), all of a task's writes
in one transaction; `name := definition` typings become custom types.

The memory shown is held to `memory_tokens` tokens of the aux model (arcmemo.llm.counting;
default 3,000; the run layer passes the `abstraction_memory_tokens` setting).
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
from arcmemo.core.estimate import with_number
from arcmemo.core.parsing import ParseError, parse_yaml_block
from arcmemo.llm.counting import ESTIMATE, OVERESTIMATE, TokenCounter, counter_for
from arcmemo.memory.schema.merge_rule import ConceptDataError, normalize
from arcmemo.memory.views.fitting import largest_fit
from arcmemo.memory.views.library import ALL_TYPES, COMPRESSED, Library, library
from arcmemo.prompts import render_prompt

STEP = "ps_abstract"
STORE_STEP = "ps_store"
EMPTY_REPOSITORY = "(empty: no concepts recorded yet)"
NONE_SHOWN = "(none: not even one concept fits in the space given to this list)"
DEFAULT_MEMORY_TOKENS = 3000


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


def repository_section(lib: Library, query: str, limit: int, count: TokenCounter = ESTIMATE) -> tuple[str, str]:
    """(note, concept list) for the prompt, together within `limit` tokens of `count`.

    The whole memory compressed, with no note, when it fits; otherwise the concepts that
    rank first for `query` (Library.rank), as many as fit, rendered in the same form with
    the custom types they need, and a note saying only they are shown. Planned in the
    estimate from the library's kept parts, counted with `count` when it is not the estimate.
    """
    newline = lib.tokens("\n")                                      # strip() drops the listing's last one
    whole_size = lib.size_within((limit if count.estimate else OVERESTIMATE * limit) + newline, COMPRESSED, ALL_TYPES)
    if whole_size is not None:
        whole = lib.text(None, COMPRESSED, ALL_TYPES).strip()
        if (whole_size - newline if count.estimate else count(whole)) <= limit:
            return "", whole or EMPTY_REPOSITORY
    ranked = lib.rank(query)
    sizes = lib.sizes(ranked, COMPRESSED)

    def note(n: int) -> str:
        return render_prompt("ps_abstract_partial", total=len(lib), shown=n)

    def section(n: int) -> tuple[str, str]:
        return note(n), lib.text(ranked[:n], COMPRESSED).strip() or NONE_SHOWN

    note_at_zero = lib.tokens(note(0))

    def planned(n: int) -> int:
        return with_number(note_at_zero, n) + (sizes(n) - newline if n else lib.tokens(NONE_SHOWN))

    n, _ = largest_fit(len(ranked), planned, limit, None if count.estimate else lambda n: count("".join(section(n))))
    return section(n)


def abstraction_prompt(lib: Library, summary: str, pseudocode: str, examples: list[fewshot.Example], task_id: str,
                       n: int = 2, *, code: str = "", limit: int = DEFAULT_MEMORY_TOKENS,
                       count: TokenCounter = ESTIMATE) -> str:
    """The ps_abstract prompt; the memory part held to `limit` tokens (module docstring)."""
    note, repository = repository_section(lib, "\n".join((summary, pseudocode, code)), limit, count)
    return render_prompt(
        "ps_abstract",
        examples=fewshot.concept_examples(examples, exclude=task_id, n=n),
        repository_note=note,
        concept_list=repository,
        summary=summary,
        pseudocode=pseudocode.strip(),
    )


def write_ps(memory, llm, solution: SolutionInput, *, run_id: str | None = None,
             examples: list[fewshot.Example] | None = None,
             memory_tokens: int = DEFAULT_MEMORY_TOKENS, verify_helpers: helpers.Verify | None = None) -> WriteResult:
    """Abstract one verified solution into PS concepts, showing at most `memory_tokens` of the
    memory. Never raises for model trouble: a failure is recorded (WriteFailure with the raw
    answer) and returned as failed.

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
        stored = library(memory, "ps")
        existing = [c.name for c in stored.concepts]
        prompt = abstraction_prompt(stored, summary, pseudocode, job.examples, job.task_id, fewshot.example_count(llm),
                                    code=solution.code, limit=memory_tokens, count=counter_for(llm, "aux"))
        concepts, types = job.ask(prompt, lambda text: parse_concepts(text, existing), step=STEP)
    except StepFailed as exc:
        return job.failed(exc)
    outcome = _with_helpers(job, concepts, list(stored.concepts), verify_helpers) if verify_helpers is not None else None
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
    library = {c.helper.name: c.helper for c in stored if c.helper}
    names = [name for _, name, _ in todo]
    try:
        proposal = job.ask(helpers.helpers_prompt(job.solution.code, todo, library),
                           lambda text: helpers.parse_helpers(text, names), step=helpers.STEP)
    except StepFailed as exc:
        return helpers.HelperOutcome(concepts, [], [f"helpers {', '.join(names)}: {exc.error}"])
    return helpers.attach_helpers(proposal, concepts, todo, library, verify)
