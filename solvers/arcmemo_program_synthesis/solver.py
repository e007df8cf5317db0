"""The program-synthesis solver: ArcMemo's evaluation loop.

n = settings.attempts independent samples run in parallel through the bounded client;
each asks for a `transform(grid)` program given the puzzle and the memory hint, runs it
in the sandbox on every train pair (and on the test inputs), and, while it fails a train
pair, retries up to settings.retries times in the same conversation with execution
feedback (feedback.py). Every answer is an Attempt; the ranked attempts give the top-2
distinct predictions per test input (arcmemo.solving).

A program that passes all train pairs but crashes on a test input is also retried (the
feedback says only that it crashed there: test outputs are never known to the solver).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from arcmemo.gridtext import format_task
from arcmemo.llm.client import LLMError
from arcmemo.parsing import ParseError, extract_code
from arcmemo.plugins import (
    Attempt, Hint, SolveContext, SolveResult, Trace, rank_attempts, run_program,
    select_predictions, usage_of,
)
from arcmemo.tasks import Task

from arcmemo.feedback import program_feedback
from arcmemo_program_synthesis.templates import render


@dataclass
class _Sample:
    index: int
    messages: list[dict] = field(default_factory=list)    # what the model sees: role + content
    transcript: list[dict] = field(default_factory=list)  # the same, annotated (round, reasoning)
    attempts: list[Attempt] = field(default_factory=list)
    completions: list = field(default_factory=list)

    def say(self, role: str, content: str, rnd: int, reasoning: str | None = None) -> None:
        self.messages.append({"role": role, "content": content})
        entry = {"role": role, "content": content, "round": rnd}
        if reasoning:
            entry["reasoning"] = reasoning
        self.transcript.append(entry)


def build_messages(task: Task, hint: Hint) -> list[dict]:
    """The opening conversation: system instructions, then the puzzle and the hint."""
    hint_text = (hint.text or "").strip() if hint is not None else ""
    hint_section = render("hint", hint=hint_text) + "\n" if hint_text else ""
    user = render("solve", puzzle=format_task(task), hint_section="\n" + hint_section)
    return [{"role": "system", "content": render("system")}, {"role": "user", "content": user}]


def _answer_text(completion) -> str:
    reasoning = (getattr(completion, "reasoning", None) or "").strip()
    return f"{reasoning}\n\n{completion.text}" if reasoning else completion.text


class ProgramSynthesisSolver:
    name = "program-synthesis"

    def solve(self, task: Task, hint: Hint, ctx: SolveContext) -> SolveResult:
        n = max(1, int(ctx.settings.attempts))
        retries = max(0, int(ctx.settings.retries))
        opening = build_messages(task, hint)
        params = ctx.settings.llm_params()
        samples = [_Sample(i, messages=[dict(m) for m in opening],
                           transcript=[dict(m, round=0) for m in opening]) for i in range(n)]

        async def run_all():
            return await asyncio.gather(
                *(self._run_sample(s, task, ctx, params, retries) for s in samples),
                return_exceptions=True)

        try:
            outcomes = ctx.llm.run(run_all())
        except LLMError as exc:           # e.g. the client was closed under us
            outcomes = [exc] * n
        errors = [f"sample {s.index}: {type(o).__name__}: {o}"
                  for s, o in zip(samples, outcomes) if isinstance(o, BaseException)]
        return self._result(task, samples, errors)

    async def _run_sample(self, sample: _Sample, task: Task, ctx: SolveContext,
                          params: dict, retries: int) -> None:
        n_train, n_test = len(task.train), len(task.test_inputs)
        for rnd in range(retries + 1):
            try:
                completion = await ctx.llm.achat(list(sample.messages), role="solver", step="solve",
                                                 sample=sample.index, task_id=task.id, **params)
            except LLMError as exc:
                sample.attempts.append(Attempt(
                    sample=sample.index, round=rnd, code=None, raw="",
                    train_correct=[False] * n_train, test_outputs=[None] * n_test,
                    error=f"llm: {exc}"))
                return
            sample.completions.append(completion)
            sample.say("assistant", completion.text, rnd, reasoning=completion.reasoning)
            try:
                code = extract_code(completion.text)
            except ParseError as exc:
                sample.attempts.append(Attempt(
                    sample=sample.index, round=rnd, code=None, raw=completion.text,
                    train_correct=[False] * n_train, test_outputs=[None] * n_test,
                    error=f"format: {exc}", reasoning=completion.reasoning))
                if rnd < retries:
                    sample.say("user", render("format_feedback", problem=str(exc)), rnd + 1)
                continue
            run = await asyncio.to_thread(run_program, ctx.sandbox, task, code)
            if not run.passed_train:
                error = run.error or "wrong_output"
            elif not run.test_complete:
                failed = [o.error for o in run.test_outcomes if not o.ok]
                error = f"test_{failed[0] if failed else 'no_output'}"
            else:
                error = None
            sample.attempts.append(Attempt(
                sample=sample.index, round=rnd, code=code, raw=completion.text,
                train_correct=run.train_correct, train_cell_accuracy=run.mean_accuracy,
                test_outputs=run.test_outputs, error=error, reasoning=completion.reasoning))
            if error is None:
                return
            if rnd < retries:
                sample.say("user", program_feedback(task, run, closing=render("feedback_closing")), rnd + 1)

    def _result(self, task: Task, samples: list[_Sample], errors: list[str]) -> SolveResult:
        attempts = [a for s in samples for a in s.attempts]
        order = rank_attempts(attempts)
        best = attempts[order[0]] if order else None
        passing = next((i for i in order if attempts[i].passed_train), None)
        if best is not None:
            owner = samples[best.sample]
            completion = next((c for c, a in zip(owner.completions, owner.attempts)
                               if a is best), None)
            trace = Trace(
                reasoning=_answer_text(completion) if completion is not None else best.raw,
                final_code=best.code,
                passing_attempt=passing,
                transcript=owner.transcript,
            )
        else:
            trace = Trace()
        return SolveResult(
            attempts=attempts,
            predictions=select_predictions(attempts, len(task.test_inputs)),
            trace=trace,
            usage=usage_of(c for s in samples for c in s.completions),
            solver=self.name,
            error="; ".join(errors) or None,
        )
