"""The expert-agents solver, after "LLM as a System of Multiple Expert Agents".

Each agent is a combination of views (agents.py). Agents run in parallel batches through
the bounded client; each answers in JSON (reflection, pixel/object changes, helpers,
overall pattern, plan, program), its `transform(grid)` program runs in the sandbox with
the helper library importable as `arc_helpers` (and the hint's helpers from memory as
`memory_helpers`), and while it fails a train pair (or
crashes on a test input) it gets up to settings.retries (at most 3) feedback rounds in
the same conversation. Batches stop as soon as an agent's program passes every train
pair; otherwise settings.attempts agents are tried (the default order cycles through
DEFAULT_AGENTS). Every answer is an Attempt; the ranked attempts give the top-2
predictions per test input.

settings.extra keys: context_tokens (the model's context, default 8000), answer_tokens
(room kept for the answer, default 1500), batch_size (agents per parallel batch, default
4), agents (agent names to use instead of the default order), plus the model parameters
the program-synthesis solver passes through (reasoning_effort, seed, ...).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial

from arcmemo.solverkit import (
    Conversation,
    Hint,
    Program,
    SolveContext,
    SolveResult,
    Task,
    Trace,
    Usage,
    converse,
    estimate_tokens,
    memory_section,
    program_feedback,
    program_of,
    solve_result,
)
from arcmemo_expert_agents.agents import (
    DEFAULT_AGENTS,
    Agent,
    PlannedAgent,
    TaskViews,
    agents_by_name,
    plan_agents,
    render_puzzle,
    view_intro,
)
from arcmemo_expert_agents.answer import parse_answer, reasoning_text
from arcmemo_expert_agents.library import describe_helpers, helper_modules
from arcmemo_expert_agents.templates import render
from arcmemo_expert_agents.views import LEGEND

STEP = "expert"
MAX_FEEDBACK_ROUNDS = 3
DEFAULT_CONTEXT_TOKENS = 8000
DEFAULT_ANSWER_TOKENS = 1500
DEFAULT_BATCH_SIZE = 4


def system_prompt() -> str:
    return render("system", legend=LEGEND, helpers=describe_helpers())


def _hint_section(hint: Hint | None) -> str:
    """The memory hint and the helpers from memory it offers (importable beside arc_helpers)."""
    return memory_section(hint, lambda text: render("hint", hint=text))


def user_prompt(task_views: TaskViews, views, hint: Hint | None) -> str:
    return render("task", view_intro=view_intro(views), hint_section=_hint_section(hint),
                  puzzle=render_puzzle(task_views, views))


def _context_window(ctx: SolveContext) -> int | None:
    """The solver model's context in tokens (models.yaml, or the embedded model's setting), if known."""
    window = getattr(ctx.llm, "context_window", None)
    return window("solver") if callable(window) else None


def views_budget(context_tokens: int, answer_tokens: int, hint: Hint | None) -> int:
    """Tokens left for the puzzle's views: the context minus the system prompt, the task
    prompt's fixed text (with the hint) and the room kept for the answer."""
    fixed = render("task", view_intro="", hint_section=_hint_section(hint), puzzle="")
    return context_tokens - answer_tokens - estimate_tokens(system_prompt()) - estimate_tokens(fixed)


def execution_feedback(task: Task, run) -> str:
    """The shared execution feedback, closed with this solver's JSON request."""
    text = program_feedback(task, run)
    return ("Result of running your program (grids here are colour numbers, one digit per "
            f"cell):\n\n{text}\n\n{render('feedback_closing')}")


def parse_program(text: str, reading: str = "arcmemo") -> Program:
    """The answer's program, readied as the run's protocol reads one (SolverSettings.answer_reading)."""
    answer = parse_answer(text)
    return Program(program_of(answer["program"], reading), reasoning_text(answer))


def format_feedback(problem: str) -> str:
    return render("format_feedback", problem=problem)


@dataclass
class _AgentRun(Conversation):
    planned: PlannedAgent | None = None

    @property
    def name(self) -> str:
        return self.label


def _select_agents(spec) -> list[Agent]:
    if spec is None:
        return list(DEFAULT_AGENTS)
    names = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else list(spec)
    known = agents_by_name()
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise ValueError(f"settings.extra['agents']: unknown agent(s) {unknown or names}; "
                         f"known: {', '.join(known)}")
    return [known[n] for n in names]


class ExpertAgentsSolver:
    name = "expert-agents"

    def template_hashes(self) -> dict[str, str]:
        """Which prompt texts this solver used, for the run's config."""
        from arcmemo_expert_agents.templates import template_hashes

        return template_hashes()

    def solve(self, task: Task, hint: Hint, ctx: SolveContext) -> SolveResult:
        try:
            return self._solve(task, hint, ctx)
        except Exception as exc:  # a bug or a bad setting: recorded, never raised
            return self._empty(task, f"expert-agents: {type(exc).__name__}: {exc}", [])

    def _empty(self, task: Task, error: str, notes: list[str]) -> SolveResult:
        return SolveResult(attempts=[], predictions=[[] for _ in task.test_inputs],
                           trace=Trace(notes=list(notes)), usage=Usage(), solver=self.name,
                           error=error)

    def _solve(self, task: Task, hint: Hint, ctx: SolveContext) -> SolveResult:
        settings = ctx.settings
        extra = settings.extra or {}
        n = max(1, int(settings.attempts))
        retries = min(MAX_FEEDBACK_ROUNDS, max(0, int(settings.retries)))
        context_tokens = int(extra.get("context_tokens") or _context_window(ctx) or DEFAULT_CONTEXT_TOKENS)
        answer_tokens = int(extra.get("answer_tokens", DEFAULT_ANSWER_TOKENS))
        batch_size = max(1, int(extra.get("batch_size", DEFAULT_BATCH_SIZE)))
        agents = _select_agents(extra.get("agents"))

        system = system_prompt()
        task_views = TaskViews(task)
        view_budget = views_budget(context_tokens, answer_tokens, hint)

        def measure(views) -> int:
            return estimate_tokens(view_intro(views)) + estimate_tokens(render_puzzle(task_views, views))

        planned, notes = plan_agents(task_views, agents, view_budget, measure=measure)
        if not planned:
            return self._empty(task, f"no expert agent fits the context budget for task {task.id} "
                                     f"({context_tokens} tokens, {max(view_budget, 0)} left for views)",
                               notes)

        params = ctx.settings.llm_params()
        runs: list[_AgentRun] = []
        for k in range(n):
            p = planned[k % len(planned)]
            run = _AgentRun(settings.sample_offset + k, label=p.name, planned=p)
            run.say("system", system, 0)
            run.say("user", user_prompt(task_views, p.views, hint), 0)
            runs.append(run)

        parse = partial(parse_program, reading=settings.answer_reading)
        errors: list[str] = []
        tried: list[_AgentRun] = []
        for start in range(0, n, batch_size):
            batch = runs[start:start + batch_size]
            tried.extend(batch)

            async def run_batch(batch=batch):
                solved = asyncio.Event()
                return await asyncio.gather(
                    *(converse(r, task, ctx, step=STEP, retries=retries, params=params, parse=parse,
                               execution_feedback=execution_feedback, format_feedback=format_feedback,
                               modules=helper_modules(), helpers=hint.helpers if hint is not None else None,
                               solved=solved) for r in batch),
                    return_exceptions=True)

            outcomes = ctx.llm.run(run_batch())
            errors += [f"agent {r.index} ({r.name}): {type(o).__name__}: {o}"
                       for r, o in zip(batch, outcomes) if isinstance(o, BaseException)]
            if any(a.passed_train and a.error is None for r in batch for a in r.attempts):
                break
        if len(tried) < len(runs):
            notes.append(f"stopped after {len(tried)} of {len(runs)} agents: a program passed "
                         "every train pair")
        return solve_result(task, tried, solver=self.name, errors=errors, notes=notes, explain=self._explain)

    @staticmethod
    def _explain(run: _AgentRun, attempt) -> str:
        views = ", ".join(v.title for v in run.planned.views)
        return f"expert agent {run.name} (views: {views})\n{attempt.reasoning or attempt.raw}"
