"""The program-synthesis solver: ArcMemo's evaluation loop.

n = settings.attempts independent samples run in parallel through the bounded client;
each asks for a `transform(grid)` program given the puzzle and the memory hint, runs it
in the sandbox on every train pair (and on the test inputs), and, while it fails a train
pair, retries up to settings.retries times in the same conversation with execution
feedback (feedback.py). The hint's helpers from memory, if any, are listed after it and
importable by the programs as `memory_helpers`. Every answer is an Attempt; the ranked attempts give the top-2
distinct predictions per test input (arcmemo.solverkit.programs).

A program that passes all train pairs but crashes on a test input is also retried (the
feedback says only that it crashed there: test outputs are never known to the solver).
"""

from __future__ import annotations

import asyncio
from functools import partial

from arcmemo.solverkit import (
    Conversation,
    Hint,
    LLMError,
    Program,
    SolveContext,
    SolveResult,
    Task,
    converse,
    format_task,
    memory_section,
    program_feedback,
    read_program,
    solve_result,
)
from arcmemo_program_synthesis.templates import render


def build_messages(task: Task, hint: Hint) -> list[dict]:
    """The opening conversation: system instructions, then the puzzle, the hint and the helpers
    from memory it offers."""
    section = memory_section(hint, lambda text: render("hint", hint=text))
    user = render("solve", puzzle=format_task(task), hint_section=section)
    return [{"role": "system", "content": render("system")}, {"role": "user", "content": user}]


def parse_answer(text: str, reading: str = "arcmemo") -> Program:
    """The program of an answer, read as the run's protocol says (SolverSettings.answer_reading)."""
    return Program(read_program(text, reading))


def execution_feedback(task: Task, run) -> str:
    return program_feedback(task, run, closing=render("feedback_closing"))


def format_feedback(problem: str) -> str:
    return render("format_feedback", problem=problem)


class ProgramSynthesisSolver:
    name = "program-synthesis"

    def template_hashes(self) -> dict[str, str]:
        """Which prompt texts this solver used, for the run's config."""
        from arcmemo_program_synthesis.templates import template_hashes

        return template_hashes()

    def solve(self, task: Task, hint: Hint, ctx: SolveContext) -> SolveResult:
        n = max(1, int(ctx.settings.attempts))
        retries = max(0, int(ctx.settings.retries))
        opening = build_messages(task, hint)
        params = ctx.settings.llm_params()
        first = ctx.settings.sample_offset
        parse = partial(parse_answer, reading=ctx.settings.answer_reading)
        samples = [Conversation(first + i, messages=[dict(m) for m in opening],
                                transcript=[dict(m, round=0) for m in opening]) for i in range(n)]

        async def run_all():
            return await asyncio.gather(
                *(converse(s, task, ctx, step="solve", retries=retries, params=params,
                           parse=parse,
                           execution_feedback=execution_feedback, format_feedback=format_feedback,
                           helpers=hint.helpers if hint is not None else None)
                  for s in samples),
                return_exceptions=True)

        try:
            outcomes = ctx.llm.run(run_all())
        except LLMError as exc:           # e.g. the client was closed under us
            outcomes = [exc] * n
        errors = [f"sample {s.index}: {type(o).__name__}: {o}"
                  for s, o in zip(samples, outcomes) if isinstance(o, BaseException)]
        return solve_result(task, samples, solver=self.name, errors=errors)
