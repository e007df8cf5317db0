"""A tokenizer-free count of the tokens a text takes: the fall-back of arcmemo.llm.tokens
when a model's tokenizer cannot be had, and the unit prompts are planned in
(arcmemo.memory.views.library, which sizes a prompt from kept sizes of its parts).

The text is split the way the Qwen2 and GPT-4o-style tokenizers pre-tokenize it: a word
with an optional leading space or mark (not `[`: `list[object]` is three tokens), digit
runs, runs of marks, each line break, runs of spaces; each piece is one token. A word
longer than 10 letters and a run of more than 3 marks are split into pieces of that length,
and a digit run into pieces of `digit_group` digits (1 for Qwen and unknown models, so an
ARC grid costs one token per cell and one per row; 3 for OpenAI's encodings). Measured
against Qwen2.5's own tokenizer on ARC puzzles, select prompts and rendered concept
libraries (the paper's and synthetic ones): +0.3% to +9%, mean +2.5%, never under
(benchmarks/token_counts.py and benchmarks/selection.py measure it again).

No piece spans a line break, so the estimate of texts joined at line ends is the sum of
their estimates.
"""

from __future__ import annotations

import re
from functools import lru_cache

WORD_LETTERS = 10           # letters of a word piece
MARKS = 3                   # marks of a piece of marks


@lru_cache(maxsize=8)
def _pieces(digit_group: int) -> re.Pattern:
    return re.compile(rf"(?:[^\n\w\[]|_)?[^\W\d_]{{1,{WORD_LETTERS}}}|\d{{1,{digit_group}}}"
                      rf"| ?(?:[^\s\w]|_){{1,{MARKS}}}|\n|[^\S\n]+(?!\S)|[^\S\n]+")


def estimate_tokens(text: str, digit_group: int = 1) -> int:
    """The estimate described in the module docstring: digit runs as pieces of `digit_group` digits."""
    return len(_pieces(digit_group).findall(text)) if text else 0


def with_number(estimate_at_zero: int, n: int) -> int:
    """The estimate of a text holding the whole number `n` (between non-digits), from that of
    the same text holding 0: a digit is a token of its own (digit_group 1, what plans count
    in), so each further digit adds one. A plan's note saying how many it shows is sized for
    every n the search tries without estimating it again."""
    return estimate_at_zero + len(str(abs(n))) - 1


__all__ = ["estimate_tokens", "with_number"]
