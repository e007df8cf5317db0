"""Step 1 of the PS write: solution code -> <pseudocode> + one-line <summary> (the paper's preprocessing).

Pseudocode first keeps the abstraction step on the solution's ideas rather than its
implementation details (the paper's ablation shows it helps).
"""

from __future__ import annotations

from arcmemo.abstraction import fewshot
from arcmemo.abstraction.records import SolutionInput
from arcmemo.abstraction.steps import StepAnswer, ask
from arcmemo.core.answers import MAX_CARRIED_CHARS, MAX_LINE_CHARS
from arcmemo.core.parsing import extract_tag
from arcmemo.core.text import cap, clean_line
from arcmemo.prompts import render_prompt

STEP = "pseudocode"


def parse_pseudocode(text: str) -> tuple[str, str]:
    """(pseudocode, summary) from the tagged answer; ParseError if either is missing. Both go
    into the next prompt and the store, so they are capped (MAX_CARRIED_CHARS, MAX_LINE_CHARS)."""
    pseudocode = cap(extract_tag(text, "pseudocode"), MAX_CARRIED_CHARS)
    summary = clean_line(cap(extract_tag(text, "summary"), MAX_LINE_CHARS))
    return pseudocode, summary


def pseudocode_prompt(solution: SolutionInput, examples: list[fewshot.Example], n: int = 2) -> str:
    return render_prompt(
        "pseudocode",
        examples=fewshot.pseudocode_examples(examples, exclude=solution.task.id, n=n),
        solution=solution.code.strip(),
    )


def write_pseudocode(llm, solution: SolutionInput, examples: list[fewshot.Example], *,
                     sample: int = 0) -> StepAnswer:
    """Ask for pseudocode + summary; `.value` is (pseudocode, summary). Raises StepFailed."""
    prompt = pseudocode_prompt(solution, examples, fewshot.example_count(llm))
    return ask(llm, prompt, parse_pseudocode, step=STEP, task_id=solution.task.id, sample=sample)
