"""`--protocol NAME` and one flag per protocol choice (arcmemo.run.protocol), for `solve`.

The options reach the command as one value, `protocol_request`: the profile named (None:
not given) and the choices given (by a flag or a run configuration's key), which
`arcmemo.run.protocol.resolve` turns into the run's protocol.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

from arcmemo.run.protocol import CHOICES, PROFILES


@dataclass(frozen=True)
class ProtocolRequest:
    """What the command line (and --config) asked for: a profile and choices, None where not given."""

    name: str | None
    choices: dict[str, Any]

    def given(self) -> bool:
        return self.name is not None or any(v is not None for v in self.choices.values())


def _choice(name: str, help: str) -> Callable:
    return click.option(f"--{name.replace('_', '-')}", name, type=click.Choice(CHOICES[name]), default=None,
                        help=help)


OPTIONS = [
    click.option("--protocol", "protocol", type=click.Choice(list(PROFILES)), default=None,
                 help="The named set of choices below: arcmemo (default; the paper's text: retries and writes "
                      "decided on train pairs) or released-code (the authors' released code, test-informed: "
                      "retries decided on test outputs, only train-and-test-correct solutions written). A choice "
                      "flag overrides its choice and names the run's protocol after both "
                      "(released-code+retry_when=train-fails)."),
    _choice("retry_when", "What makes a thread retry: a failed train pair (arcmemo), or a wrong test output "
                          "(the released code; marks the run test-informed)."),
    click.option("--select-once/--no-select-once", "select_once", default=None,
                 help="ps, oe: select once per puzzle and share it with the puzzle's threads (the released "
                      "code), instead of once per thread."),
    _choice("selector_view", "ps: what the select model reads: every concept in full (arcmemo), or concepts "
                             "used in two or more puzzles in full without parameter descriptions and the rest "
                             "by name (the released code)."),
    _choice("hint_form", "ps: the solver's hint: the custom types the selected concepts need and one list of "
                         "the other names (arcmemo), or every custom type and the other names by section "
                         "(the released code)."),
    _choice("oe_caption", "oe: caption in every thread from one picture per pair (arcmemo), or once per puzzle "
                          "from one picture of the whole puzzle (the released code)."),
    _choice("continual_order", "--continual: a task's retries inside its block (arcmemo), or each retry depth "
                               "a pass over all puzzles, writing memory every -k puzzles within a pass (the "
                               "released code)."),
    _choice("write_when", "--continual: write programs that passed every train pair (arcmemo), or only those "
                          "also correct on the test inputs (the released code; marks the run test-informed)."),
    _choice("feedback", "A retry's feedback: the conversation with at most two diffs (arcmemo), or the opening "
                        "prompt with the last attempt and every mismatched output (the released code)."),
    _choice("strict_variant", "The strict score the run headlines (both are computed): one step solving every "
                              "test input (arcmemo), or a thread's last step right on every train and test "
                              "pair (the released code)."),
    _choice("answer_reading", "How an answer is read: its last python block, top-level test code cut, a list "
                              "of lists accepted as a grid (arcmemo); or its first python block, top-level code "
                              "run with the program, only a numpy array accepted (the released code)."),
]
# grid_text is the prompt renderer's own setting (--grid-text): a profile sets it, no flag here does
FLAGGED = [c for c in CHOICES if c != "grid_text"]


def protocol_options(fn: Callable) -> Callable:
    """Add the protocol options to a command; it receives them as `protocol_request`."""
    @functools.wraps(fn)
    def command(*args: Any, **kwargs: Any) -> Any:
        name = kwargs.pop("protocol")
        choices = {c: kwargs.pop(c) for c in FLAGGED}
        return fn(*args, protocol_request=ProtocolRequest(name, choices), **kwargs)

    for option in reversed(OPTIONS):
        command = option(command)
    return command


__all__ = ["protocol_options", "ProtocolRequest", "FLAGGED"]
