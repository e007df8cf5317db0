"""How a model answer is read: which code it gives, what runs, and what counts as its output.

A run's protocol chooses the reading once (`answer_reading`, `SolverSettings.answer_reading`);
a solver reads its answers with `read_program(text, reading)` (or `program_of(code, reading)`
for a program its answer gives apart, as a JSON field), and `converse` runs the programs with
the same reading (`run_program(..., reading=...)`: the sandbox's execution of it).

- "arcmemo": the last ```python (or ```py, or untagged) block that defines a function; the
  top-level test code models append to it is cut (`definitions_only`), the rest runs once per
  program; `transform` may return a numpy array or a list (or tuple) of lists of colours. An
  answer cut at the token limit (`cut`: the call's finish reason was "length") inside that
  block, after a complete `transform`, is read with the block closed after its last complete
  statement (`parsing.close_cut_block`): the model was still writing its test prints.
- "released": the ArcMemo authors' released code's reading (matt-seb-ho/arc_memo, as its
  solve drivers `evaluation/driver.py` and `continual_driver.py` score an answer:
  `score_tree.parse_code_solution`, `exec_transform.execute_transforms`): the first
  ```python block, else the first ``` block (`parsing.first_code_block`), taken as it is; in
  the sandbox the whole program, top-level code included, runs for each grid as their
  template runs it, and `transform` must return a 2-D numpy array of values 0-9. A block a cut
  left open is no block to it.

tests/test_answer_reading.py checks the released reading against the released code's own
verdicts on a corpus of answer shapes (tests/answer_shapes.py).
"""

from __future__ import annotations

from arcmemo.core.parsing import close_cut_block, definitions_only, extract_code, first_code_block

ARCMEMO, RELEASED = "arcmemo", "released"
ANSWER_READINGS = (ARCMEMO, RELEASED)


def read_program(text: str, reading: str = ARCMEMO, *, cut: bool = False) -> str:
    """The program a model answer gives, read as `reading` says (ParseError when it gives none);
    `cut`: the answer ended at the token limit."""
    if _checked(reading) == RELEASED:
        return first_code_block(text)
    return definitions_only(extract_code(answer_text(text, reading, cut=cut)))


def answer_text(text: str, reading: str = ARCMEMO, *, cut: bool = False) -> str:
    """The answer as `reading` reads it: under arcmemo's, one cut at the token limit has the
    block the cut left open closed after a complete `transform` (module docstring); otherwise,
    and under the released reading, the answer as it came. A solver's own parser reads this
    (`converse` hands it over so)."""
    if cut and _checked(reading) == ARCMEMO:
        return close_cut_block(text) or text
    return text


def program_of(code: str, reading: str = ARCMEMO) -> str:
    """A program an answer gives apart (a JSON field), made ready to run as `reading` says: the
    released code runs it as it is."""
    return code if _checked(reading) == RELEASED else definitions_only(code)


def _checked(reading: str) -> str:
    if reading not in ANSWER_READINGS:
        raise ValueError(f"answer reading must be one of {', '.join(ANSWER_READINGS)}, not {reading!r}")
    return reading


__all__ = ["ANSWER_READINGS", "ARCMEMO", "RELEASED", "answer_text", "read_program", "program_of"]
