"""What planned runs will cost, before they start: model calls and dollars at the catalog's prices.

An estimate, not a bill (benchmarks/paper_cost.py measures the paper's prompts in detail). For
each run (its RunConfig and model settings), two figures:

- **at most**: every thread retried to the full depth, every answer at its completion limit
  (the call's max_tokens, else LIMIT_ANSWER);
- **about**: answers of a typical length (TYPICAL_ANSWER[reasoning model or not], within the
  limit), and a thread retried at depth d at the rate the paper's baseline was still wrong at
  depth d - 1 (1 - its oracle@1, arcmemo/data/paper_table4.yaml): a run that is not the paper's
  may retry more or less.

A solver call reads the puzzle (its text as prompts write it, counted by core/estimate.py),
the instructions (SOLVE_INSTRUCTIONS), the hint of a method that reads memory (at most its
budget, its default when the run sizes it to the model; typically TYPICAL_HINT, about the
paper's hints as benchmarks/paper_cost.py measures them) and RETRY_GROWTH more per retry; a
read makes one call per role it declares (`read_roles`), once per thread or once per puzzle
when the protocol shares it: the select model reads the select prompt's budget (the paper's
memory about fills it), another role (OE's caption) READ_PROMPT, each answering READ_ANSWER;
a continual run's write makes WRITE_CALLS calls per task (run/progress/longrun.py's sizes).
A model without a price counts $0 and is named.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from arcmemo.run.progress.longrun import WRITE_ANSWER_TOKENS, WRITE_PROMPT_TOKENS, solve_job
from arcmemo.selection.types import DEFAULT_HINT_BUDGET, DEFAULT_TOKEN_BUDGET

SOLVE_INSTRUCTIONS = 800            # the solver's system prompt and instructions, tokens
RETRY_GROWTH = 1_500                # a retry's added feedback and last answer
READ_ANSWER = 1_000
READ_PROMPT = 1_500                 # a read call other than the selection: OE's caption (pictures, instructions)
TYPICAL_HINT = 2_500                # the paper's hints: PS ~2,400, OE ~1,400, the cheatsheet ~2,000 tokens
LIMIT_ANSWER = 32_000               # an answer's bound when the call sets no max_tokens
TYPICAL_ANSWER = {True: 10_000, False: 1_000}   # a reasoning model's answer (reasoning included), or not
WRITE_CALLS = 3                     # a memory write per task: pseudocode, concepts, helpers (ps)
PAPER = Path(__file__).resolve().parents[2] / "data" / "paper_table4.yaml"


@dataclass
class Cost:
    """Calls and dollars of one or more runs: `most` at the bound, `about` typical."""

    calls: float = 0.0
    most: float = 0.0
    about: float = 0.0
    unpriced: set[str] = field(default_factory=set)

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.calls + other.calls, self.most + other.most, self.about + other.about,
                    self.unpriced | other.unpriced)

    def text(self) -> str:
        unpriced = f"; no price known for {', '.join(sorted(self.unpriced))} (counted $0)" if self.unpriced else ""
        return (f"{self.calls:,.0f} model calls at most; about ${self.about:,.2f} (typical answers and retries), "
                f"at most ${self.most:,.2f} (every thread retried, every answer at its limit){unpriced}")


@cache
def retry_rates() -> tuple[float, ...]:
    """The share of threads still wrong after depth 0, 1, 2 (the paper's baseline, oracle@1)."""
    from arcmemo.core import safeyaml

    depths = safeyaml.load(PAPER.read_text(encoding="utf-8"))["depths"]
    return tuple(1 - depths[d]["baseline"]["oracle"][0][0] / 100 for d in sorted(depths))


def _asked(retries: int) -> list[float]:
    """The share of threads asked at each depth 0..retries (typical)."""
    rates = retry_rates()
    share, asked = 1.0, [1.0]
    for d in range(1, retries + 1):
        share = rates[min(d - 1, len(rates) - 1)]
        asked.append(share)
    return asked


class _Prices:
    """Each role's model, whether it reasons, and its price per token (None: unpriced)."""

    def __init__(self, models: Any):
        from arcmemo.llm.catalog import load_catalog
        from arcmemo.llm.routing import Router

        self.models, self.catalog = models, load_catalog()
        self.router = Router(models, self.catalog)

    def model(self, role: str) -> str:
        return self.router.route(self.models.model(role)).model

    def limit(self, role: str, given: int | None = None) -> int:
        return int(given or self.models.call_defaults(role).get("max_tokens") or LIMIT_ANSWER)

    def typical(self, role: str, given: int | None = None) -> int:
        return min(self.limit(role, given), TYPICAL_ANSWER[self.catalog.traits(self.model(role)).reasoning])

    def dollars(self, role: str, prompt: float, answer: float, unpriced: set[str]) -> float:
        model = self.model(role)
        if self.catalog.price(model) is None:
            unpriced.add(model)
        return self.catalog.cost(model, int(prompt), int(answer))


def run_cost(config: Any, models: Any, tasks: Sequence[Any]) -> Cost:
    """The cost of one run of `config` (RunConfig) with `models` (LLMSettings) on `tasks`."""
    from arcmemo.core.estimate import estimate_tokens
    from arcmemo.core.gridtext import format_task
    from arcmemo.methods.discovery import load_method

    if not tasks:
        return Cost()
    prices, method, unpriced = _Prices(models), load_method(config.selection), set()
    n = len(tasks)
    puzzle = sum(estimate_tokens(format_task(t)) for t in tasks) / n
    hint = (config.hint_budget or DEFAULT_HINT_BUDGET) if method.reads_memory else 0
    opening, typical_opening = SOLVE_INSTRUCTIONS + puzzle + hint, SOLVE_INSTRUCTIONS + puzzle + min(hint, TYPICAL_HINT)
    threads = n * config.passes * config.threads * config.attempts
    job = solve_job(n, config.threads, config.attempts, config.retries, config.passes)
    most = prices.dollars("solver", threads * sum(opening + RETRY_GROWTH * d for d in range(config.retries + 1)),
                          job.calls * prices.limit("solver", config.max_tokens), unpriced)
    asked = _asked(config.retries)
    about = prices.dollars("solver", threads * sum(a * (typical_opening + RETRY_GROWTH * d)
                                                   for d, a in enumerate(asked)),
                           threads * sum(asked) * prices.typical("solver", config.max_tokens), unpriced)
    calls = float(job.calls)
    shared = method.shares_read and config.protocol.select_once
    reads = n * config.passes * (1 if shared else config.threads)
    for role in method.read_roles:
        prompt = (config.token_budget or DEFAULT_TOKEN_BUDGET) if role == "select" else READ_PROMPT
        calls += reads
        most += prices.dollars(role, reads * prompt, reads * prices.limit(role), unpriced)
        about += prices.dollars(role, reads * prompt, reads * min(READ_ANSWER, prices.limit(role)), unpriced)
    if config.writes_memory and method.write_roles:
        writes = n * config.passes * WRITE_CALLS
        role = method.write_roles[0]
        calls += writes
        most += prices.dollars(role, writes * WRITE_PROMPT_TOKENS, writes * prices.limit(role), unpriced)
        about += prices.dollars(role, writes * WRITE_PROMPT_TOKENS,
                                writes * min(WRITE_ANSWER_TOKENS, prices.limit(role)), unpriced)
    return Cost(calls=calls, most=most, about=about, unpriced=unpriced)


def total(costs: Iterable[Cost]) -> Cost:
    return sum(costs, Cost())


__all__ = ["Cost", "run_cost", "retry_rates", "total"]
