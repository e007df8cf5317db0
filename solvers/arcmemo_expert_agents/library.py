"""The helper library as the model and the sandbox see it.

`helper_source()` is primitives.py's text, given to the sandbox as the module
`arc_helpers`; `describe_helpers()` builds the prompt's helper list from the same file's
docstrings (signature, summary, one example), so the description cannot drift from the code.
"""

from __future__ import annotations

import ast
import inspect
from functools import cache
from importlib import resources

from arcmemo_expert_agents import primitives

MODULE_NAME = "arc_helpers"


@cache
def helper_source() -> str:
    return resources.files("arcmemo_expert_agents").joinpath("primitives.py").read_text()


def helper_modules() -> dict[str, str]:
    """The `modules=` mapping for Sandbox.run / run_program."""
    return {MODULE_NAME: helper_source()}


def helper_functions() -> list[str]:
    """Names of the public helper functions, in the order of primitives.__all__."""
    return [n for n in primitives.__all__ if callable(getattr(primitives, n))]


def _doc_parts(name: str) -> tuple[list[str], str]:
    """(summary lines, example line) of a helper's docstring; raises if either is missing."""
    doc = inspect.getdoc(getattr(primitives, name)) or ""
    lines = [line.strip() for line in doc.split("\n") if line.strip()]
    examples = [line for line in lines if line.startswith("Example:")]
    summary = [line for line in lines if not line.startswith("Example:")]
    if not summary or len(examples) != 1:
        raise ValueError(f"primitives.{name}: the docstring needs a summary and exactly one "
                         f"'Example: call -> result' line")
    return summary, examples[0][len("Example:"):].strip()


def helper_example(name: str) -> tuple[str, str]:
    """(call, expected result) of a helper's docstring example, both Python expressions."""
    _, example = _doc_parts(name)
    call, sep, expected = example.rpartition(" -> ")
    if not sep:
        raise ValueError(f"primitives.{name}: example {example!r} has no ' -> '")
    ast.parse(call, mode="eval")
    ast.parse(expected, mode="eval")
    return call.strip(), expected.strip()


def describe_helpers() -> str:
    """One entry per helper: `name(signature)`: summary, then its example."""
    entries = []
    for name in helper_functions():
        summary, example = _doc_parts(name)
        sig = str(inspect.signature(getattr(primitives, name))).split(" -> ")[0]
        entries.append(f"- {name}{sig}: {' '.join(summary)}\n    e.g. {example}")
    return "\n".join(entries)
