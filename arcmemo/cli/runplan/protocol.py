"""`--protocol NAME` and one flag per protocol choice (arcmemo.run.protocol), for `solve` (and the
choices that shape a read, for `select`: options.py).

A command gets them as parameters `protocol` and one per choice (None: not given), which the
run's builder (`run_config`, this package's __init__) turns into a `ProtocolRequest`, and
`arcmemo.run.protocol.resolve` into the run's protocol.
"""

from __future__ import annotations

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


# (choice, its option): each choice's help says arcmemo's way, then the released code's
OPTIONS: list[tuple[str, Callable]] = [
    ("protocol", click.option("--protocol", "protocol", type=click.Choice(list(PROFILES)), default=None,
                              help="A named set of the choices below: arcmemo (default) or released-code "
                                   "(test-informed).")),
    ("retry_when", _choice("retry_when", "A thread retries on a failed train pair, or on a wrong test output "
                                         "(released; test-informed).")),
    ("select_once", click.option("--select-once/--no-select-once", "select_once", default=None,
                                 help="ps, oe: read once per puzzle for all its threads (released), not once per "
                                      "thread.")),
    ("selector_view", _choice("selector_view", "ps: the select model reads every concept in full, or the released "
                                               "code's collapsed view.")),
    ("hint_form", _choice("hint_form", "ps: the hint's types and other names: the selected concepts', or all by "
                                       "section (released).")),
    ("oe_caption", _choice("oe_caption", "oe: a caption per thread from a picture per pair, or once per puzzle "
                                         "from one picture (released).")),
    ("continual_order", _choice("continual_order", "--continual: a task's retries within its block, or each retry "
                                                   "depth a pass over all puzzles (released).")),
    ("write_when", _choice("write_when", "--continual: write programs passing the train pairs, or also the test "
                                         "(released; test-informed).")),
    ("feedback", _choice("feedback", "A retry sees the conversation with up to two diffs, or the first prompt and "
                                     "every mismatch.")),
    ("strict_variant", _choice("strict_variant", "The strict score shown: a step solving all test inputs, or the last "
                                                 "step right on all pairs.")),
    ("answer_reading", _choice("answer_reading", "Read an answer's last python block, lists accepted, or its first "
                                                 "block, numpy arrays only (released).")),
]
# grid_text is the prompt renderer's own setting (--grid-text): a profile sets it, no flag here does
FLAGGED = [c for c in CHOICES if c != "grid_text"]


__all__ = ["OPTIONS", "ProtocolRequest", "FLAGGED"]
