"""Helpers for putting model text into prompts."""

from __future__ import annotations

from arcmemo.core.tasks import Task
from arcmemo.methods import Experience
from arcmemo.methods.dynamic_cheatsheet.cumulative import trace_text
from arcmemo.prompts import REASONING_CHARS, keep_tail


def test_keep_tail_keeps_short_text_and_the_end_of_long_text():
    assert keep_tail("short", 10) == "short"
    assert keep_tail("x" * 10, 10) == "x" * 10
    assert keep_tail("abcdefghij" + "END", 5) == "[...]\nijEND"


def test_the_curators_trace_keeps_the_program_whole_and_the_end_of_the_reasoning():
    program = "def transform(grid):\n    return grid[::-1]\n" * 50
    reasoning = "thinking " * 20_000 + "so the rule is a flip"
    experience = Experience(task=Task("t1", (), ()), pass_index=1, program=program, reasoning=reasoning,
                            passed_train=True)
    trace = trace_text(experience)
    assert program in trace and trace.endswith("so the rule is a flip")
    assert len(trace) < len(program) + REASONING_CHARS + 200
