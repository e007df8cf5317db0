"""The retry-with-feedback conversation every program-writing solver runs.

One conversation: ask the model, parse its answer into a program, run the program on the
train pairs and test inputs in the sandbox, and, while it fails, answer back with
execution feedback (or, for an unusable answer, with a request for the format) for up to
`retries` more rounds. Each answer becomes an Attempt; nothing here raises for a model or
program problem. Solvers differ only in how they open the conversation, parse an answer
and word their feedback, which they pass in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arcmemo.core.answers import MAX_ANSWER_CHARS, MAX_CARRIED_CHARS, quoted, read_answer
from arcmemo.core.choice import WRONG_OUTPUT
from arcmemo.core.parsing import ParseError
from arcmemo.core.tasks import Task
from arcmemo.core.text import clean_text
from arcmemo.llm.client import LLMError
from arcmemo.prompts import render_prompt
from arcmemo.solverkit.feedback import last_attempt_feedback
from arcmemo.solverkit.helpers import MemoryHelpers, memory_section, sandbox_modules
from arcmemo.solverkit.programs import ProgramRun, rank_attempts, run_program, select_predictions, usage_of
from arcmemo.solverkit.reading import ARCMEMO, answer_text

if TYPE_CHECKING:
    from arcmemo.solverkit.contract import Attempt, Hint, SolveContext


@dataclass
class Program:
    """What a solver's parser takes out of one model answer."""

    code: str
    reasoning: str | None = None     # the answer's own account of the rule, if it has one


SOLVED, ERROR, STOPPED = "solved", "error", "stopped"     # why a conversation finished


@dataclass
class Conversation:
    index: int                       # the sample index (also the model cache's sample key)
    label: str = ""                  # which agent or variant this is
    messages: list[dict] = field(default_factory=list)    # what the model sees: role + content
    transcript: list[dict] = field(default_factory=list)  # the same, annotated (round, reasoning)
    attempts: list = field(default_factory=list)          # arcmemo.solverkit.Attempt, one per answer
    completions: list = field(default_factory=list)
    # Kept so a later pass can go on (state/restore): the messages the solver opened with, the
    # next round's feedback not yet sent, and why the conversation ended (None: it may go on).
    opening: list[dict] = field(default_factory=list)
    pending: str | None = None
    finished: str | None = None
    _opened_transcript: int = 0

    def say(self, role: str, content: str, rnd: int, reasoning: str | None = None) -> None:
        self.messages.append({"role": role, "content": content})
        self._note(role, content, rnd, reasoning)

    def restart(self, content: str, rnd: int) -> None:
        """A retry that shows the opening prompt again with `content` after it, instead of the
        conversation so far (feedback "last-attempt"); the transcript keeps `content` alone."""
        *head, last = self.opening
        opened = last["content"]
        joined = (f"{opened}\n\n{content}" if isinstance(opened, str) else
                  [*opened, {"type": "text", "text": content}])
        self.messages = [*head, {**last, "content": joined}]
        self._note("user", content, rnd)

    def _note(self, role: str, content: str, rnd: int, reasoning: str | None = None) -> None:
        entry = {"role": role, "content": content, "round": rnd}
        if self.label:
            entry["agent"] = self.label
        if reasoning:
            entry["reasoning"] = reasoning
        self.transcript.append(entry)

    def open(self) -> None:
        """Mark where the solver's opening ends (converse does, before the first round)."""
        self.opening = [dict(m) for m in self.messages]
        self._opened_transcript = len(self.transcript)

    def state(self) -> dict[str, Any]:
        """What a later pass needs to go on from here (JSON): everything past the opening, which
        the solver rebuilds from the task and hint as it did."""
        tail = self.messages[len(self.opening):] if self.messages[:len(self.opening)] == self.opening else []
        return {"index": self.index, "label": self.label, "messages": tail,
                "transcript": self.transcript[self._opened_transcript:],
                "attempts": [a.to_dict() for a in self.attempts], "pending": self.pending,
                "finished": self.finished}

    def restore(self, state: dict[str, Any], modules: dict[str, str]) -> None:
        """Go on from `state` (an earlier pass's `state()` of this conversation), after `open()`."""
        from arcmemo.solverkit.contract import Attempt

        self.messages = [*self.opening, *state.get("messages", [])]
        self.transcript = [*self.transcript[:self._opened_transcript], *state.get("transcript", [])]
        self.attempts = [Attempt.from_dict(a, modules) for a in state.get("attempts", [])]
        self.pending, self.finished = state.get("pending"), state.get("finished")


CUT = "cut"                       # the error class of an answer the token limit ended before its program
CUT_ADVICE = "; keep the reasoning short, so that the whole program fits"     # told to the model after a cut


def cut_problem(completion: Any) -> str:
    """Why a cut answer gave no program (the record's words; the model's feedback adds CUT_ADVICE)."""
    return (f"the answer was cut at the token limit after {completion.completion_tokens:,} tokens, before it "
            "gave a complete program")


def attempt_error(run: ProgramRun) -> str | None:
    """Why a program is not done: a failed train pair, or a crash on a test input."""
    if not run.passed_train:
        return run.error or WRONG_OUTPUT
    if not run.test_complete:
        failed = [o.error for o in run.test_outcomes if not o.ok]
        return f"test_{failed[0] if failed else 'no_output'}"
    return None


def _overflowed(exc: LLMError) -> bool:
    """The server refused the request for its length (llama.cpp, vLLM and OpenAI all say "context")."""
    return "context" in str(exc).lower()


async def _ask(conv: Conversation, ctx: SolveContext, *, step: str, task: Task, params: dict):
    """One model turn. If a long conversation overflows the model's context, continue from its
    opening (instructions and puzzle) and the latest exchange only, and ask once more. A
    sampling `seed` is offset by the sample index, so samples differ and each repeats."""
    if params.get("seed") is not None:
        params = {**params, "seed": int(params["seed"]) + conv.index}
    try:
        return await ctx.llm.achat(list(conv.messages), role="solver", step=step, sample=conv.index,
                                   task_id=task.id, **params)
    except LLMError as exc:
        if not _overflowed(exc) or len(conv.messages) <= 4:
            raise
    conv.messages = conv.messages[:2] + conv.messages[-2:]
    conv.transcript.append({"role": "note", "content": "history cut to the opening and the latest exchange: "
                                                       "the whole conversation overflowed the model's context"})
    return await ctx.llm.achat(list(conv.messages), role="solver", step=step, sample=conv.index,
                               task_id=task.id, **params)


async def converse(conv: Conversation, task: Task, ctx: SolveContext, *, step: str, retries: int, params: dict,
                   parse: Callable[[str], Program], execution_feedback: Callable[[Task, ProgramRun], str],
                   format_feedback: Callable[[str], str], modules: dict[str, str] | None = None,
                   helpers: MemoryHelpers | None = None, solved: asyncio.Event | None = None) -> None:
    """Run one conversation to a program that passes, or until `retries` feedback rounds are
    used. `modules` are the solver's own importable modules, `helpers` the memory's (traced:
    each Attempt says which it called; a re-selection before a retry may offer others).
    `solved`, shared by parallel conversations, stops this one before its next round.

    Whether a program is done is the run's to say when it decides (`ctx.wants_retry`), else a
    program is done when it passes every train pair and gives every test input an output.
    A retry shows the feedback in the conversation, or, with `ctx.settings.feedback`
    "last-attempt", the opening prompt with the last answer and its mismatches. Programs run
    as `ctx.settings.answer_reading` says (reading.py; `parse` reads the answers with it). A conversation
    an earlier pass left (`ctx.resume`, by sample index) goes on from where it stopped."""
    from arcmemo.solverkit.contract import Attempt

    own = modules
    modules = sandbox_modules(helpers, own)
    traced = helpers.name if helpers is not None else None
    last_attempt = getattr(getattr(ctx, "settings", None), "feedback", "conversation") == "last-attempt"
    reading = getattr(getattr(ctx, "settings", None), "answer_reading", ARCMEMO)
    conv.open()
    earlier = next((s for s in getattr(ctx, "resume", None) or [] if s.get("index") == conv.index), None)
    if earlier is not None:
        conv.restore(earlier, modules)
    if conv.finished is not None:
        if conv.finished == SOLVED and solved is not None:
            solved.set()
        return

    n_train, n_test = len(task.train), len(task.test_inputs)

    def failed(rnd: int, raw: str, error: str, reasoning: str | None = None, cut: bool = False) -> Attempt:
        return Attempt(sample=conv.index, round=rnd, code=None, raw=raw, train_correct=[False] * n_train,
                       test_outputs=[None] * n_test, error=error, reasoning=reasoning, label=conv.label, cut=cut)

    for rnd in range(len(conv.attempts), retries + 1):
        if rnd > 0:
            if solved is not None and solved.is_set():
                conv.finished = STOPPED
                return
            message, hint = await _with_reselection(ctx, conv, conv.pending or "", rnd)
            if hint is not None and hint.helpers is not None:    # the retry's programs may call these instead
                modules, traced = sandbox_modules(hint.helpers, own), hint.helpers.name
            if last_attempt:
                conv.restart(message, rnd)
            else:
                conv.say("user", message, rnd)
            conv.pending = None
        _report(ctx, conv, rnd)
        try:
            completion = await _ask(conv, ctx, step=step, task=task, params=params)
        except LLMError as exc:
            conv.attempts.append(failed(rnd, "", f"llm: {exc}"))
            conv.finished = ERROR
            return
        conv.completions.append(completion)
        text = quoted(completion.text, MAX_ANSWER_CHARS)       # what the conversation and the attempt keep
        reasoning = quoted(completion.reasoning, MAX_CARRIED_CHARS) or None
        conv.say("assistant", text, rnd, reasoning=reasoning)
        cut = bool(getattr(completion, "cut", False))
        try:
            program = read_answer(_as_read(parse, reading, cut), completion.text)
            # a parser may decode escapes (JSON's "\\ud800"): what it gives is cleaned again
            program = Program(clean_text(program.code), quoted(program.reasoning, MAX_CARRIED_CHARS) or None)
        except ParseError as exc:
            problem = cut_problem(completion) if cut else str(exc)
            conv.attempts.append(failed(rnd, text, f"{CUT if cut else 'format'}: {problem}", reasoning, cut))
            told = problem + (CUT_ADVICE if cut else "")
            conv.pending = (last_attempt_feedback(task, rnd + 1, text, problem=told) if last_attempt
                            else format_feedback(told))
            continue
        run = await asyncio.to_thread(run_program, ctx.sandbox, task, program.code, modules=modules,
                                      helpers=traced, reading=reading)
        error = attempt_error(run)
        thoughts = "\n\n".join(t.strip() for t in (reasoning, program.reasoning) if t and t.strip())
        attempt = Attempt(
            sample=conv.index, round=rnd, code=program.code, raw=text,
            train_correct=run.train_correct, train_cell_accuracy=run.mean_accuracy,
            test_outputs=run.test_outputs, error=error, reasoning=thoughts or None,
            label=conv.label, modules=dict(modules), helpers_called=run.helpers_called,
            helpers_rebound=run.helpers_rebound, cut=cut)
        conv.attempts.append(attempt)
        if _done(ctx, attempt):
            conv.finished = SOLVED
            if solved is not None:
                solved.set()
            return
        conv.pending = (last_attempt_feedback(task, rnd + 1, text, run=run) if last_attempt
                        else execution_feedback(task, run))


def _as_read(parse: Callable[[str], Program], reading: str, cut: bool) -> Callable[[str], Program]:
    """The solver's parser over the answer as the run's reading reads it (a cut answer's block
    the cut left open closed under arcmemo's reading: reading.answer_text)."""
    return lambda answer: parse(answer_text(answer, reading, cut=cut))


def _done(ctx: SolveContext, attempt: Attempt) -> bool:
    """Whether the conversation stops at this attempt: the run's decision when it makes one
    (SolveContext.wants_retry), else a program that passes and answers every test input."""
    wants_retry = getattr(ctx, "wants_retry", None)
    if wants_retry is not None:
        return not wants_retry(attempt)
    return attempt.error is None


async def _with_reselection(ctx: SolveContext, conv: Conversation, feedback: str, rnd: int
                            ) -> tuple[str, Hint | None]:
    """The retry's message and the hint selected again for it: the feedback, after the concepts
    (and their helpers) chosen again with it when the run re-selects before a retry
    (SolveContext.reselect); the hint is None when nothing was chosen again."""
    reselect = getattr(ctx, "reselect", None)
    if reselect is None:
        return feedback, None
    hint = await asyncio.to_thread(reselect, feedback, rnd, conv.index)
    if hint is None or not (hint.text or "").strip():
        return feedback, None
    return render_prompt("reselected_hint", hint=memory_section(hint, str).strip()) + "\n\n" + feedback, hint


def _report(ctx: SolveContext, conv: Conversation, rnd: int) -> None:
    """Tell the run layer which attempt (and retry) is being asked for now."""
    report = getattr(ctx, "progress", None)
    if report is None:
        return
    settings = getattr(ctx, "settings", None)
    first, n = getattr(settings, "sample_offset", 0), getattr(settings, "attempts", 1)
    text = f"attempt {conv.index - first + 1} of {n}" + (f" ({conv.label})" if conv.label else "")
    report(text + (f", retry {rnd}" if rnd else ""))


def solve_result(task: Task, conversations: Sequence[Conversation], *, solver: str, errors: Sequence[str] = (),
                 notes: Sequence[str] = (), explain: Callable[[Conversation, Any], str] | None = None):
    """The SolveResult of a set of conversations: every attempt, ranked into the top-2 predictions
    per test input, and the trace of the best attempt (its reasoning via `explain(conversation,
    attempt)`, by default the model's reasoning and answer text), with usage summed."""
    from arcmemo.solverkit.contract import SolveResult, Trace

    attempts = [a for c in conversations for a in c.attempts]
    owners = [c for c in conversations for _ in c.attempts]
    order = rank_attempts(attempts)
    trace = Trace(notes=list(notes))
    if order:
        best, owner = attempts[order[0]], owners[order[0]]
        reasoning = (explain(owner, best) if explain else
                     "\n\n".join(t.strip() for t in (best.reasoning, best.raw) if t and t.strip()))
        trace = Trace(reasoning=reasoning, final_code=best.code,
                      passing_attempt=next((i for i in order if attempts[i].passed_train), None),
                      transcript=owner.transcript, modules=dict(best.modules) if best.code else {},
                      notes=list(notes))
    return SolveResult(attempts=attempts, predictions=select_predictions(attempts, len(task.test_inputs)),
                       trace=trace, usage=usage_of(c for conv in conversations for c in conv.completions),
                       solver=solver, error="; ".join(errors) or None, state=[c.state() for c in conversations])
