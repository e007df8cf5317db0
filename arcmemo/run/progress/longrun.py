"""A long job on the embedded model is asked for by name, and says how long it will take.

With no endpoint configured every role's model defaults to the embedded one (`local`,
arcmemo.llm.local), which on a 2-core CPU reads a prompt at 15-60 tokens a second and
writes 1.5-4 (a solver call takes 1.5-8 minutes, docs/memory-methods.md; an 8k-token prompt
took ten minutes to read on a busy machine). A command that would make many calls (a cheatsheet
curated from 44 or 160 seeds, a solve over a whole split) must not start hours of that
because no endpoint was set. So when the embedded model is the default, not named by a
flag, env var or config file, and even the fast end of the job's estimate is over
LONG_S, the job stops before anything exists, saying the estimate and how to go on
(name the model, or give an endpoint). A job whose model is named starts, and
`describe` gives the estimate to say as it starts.

A job the call log can answer (an earlier run asked the same: run/progress/fromcache.py) counts
only the calls the log does not hold, so a repeated run is neither refused nor said to take
minutes it will not.
"""

from __future__ import annotations

from dataclasses import dataclass

from arcmemo.core.errors import ArcmemoError
from arcmemo.core.table import counted
from arcmemo.llm import LLM

READ_TOKENS_PER_S = (60.0, 15.0)   # prompt reading: (fast, slow) on 2 cores
WRITE_TOKENS_PER_S = (4.0, 1.5)    # answer writing
LONG_S = 30 * 60                   # a job whose fast estimate is longer needs the embedded model named


class LongRunError(ArcmemoError, ValueError):
    """A long job would run on the embedded model by default; the message says the estimate and
    how to go on."""


@dataclass(frozen=True)
class Job:
    """What a command is about to ask of a model role: `calls` calls of about `prompt_tokens` in and
    `answer_tokens` out each, described as `what` ("curating 44 seeds")."""

    what: str
    role: str
    calls: int
    prompt_tokens: int
    answer_tokens: int
    covered: int = 0                # calls the call log answers: run `covered_by` asked the same
    covered_by: str | None = None

    @property
    def left(self) -> int:
        """The calls the model is asked at most: those the call log does not answer."""
        return max(0, self.calls - self.covered)

    def seconds(self) -> tuple[float, float]:
        """(fast, slow) estimate on the embedded model, of the calls left."""
        return tuple(self.left * (self.prompt_tokens / read + self.answer_tokens / write)
                     for read, write in zip(READ_TOKENS_PER_S, WRITE_TOKENS_PER_S))


def duration(seconds: float) -> str:
    if seconds < 90 * 60:
        return f"{max(1, round(seconds / 60))} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def describe(job: Job) -> str:
    fast, slow = job.seconds()
    took = f"about {duration(fast)} to {duration(slow)} on a 2-core CPU"
    if job.covered_by is None:
        return f"{job.what}: {counted(job.calls, 'call')} of the embedded model, {took}"
    return (f"{job.what}: answered from the call log (run {job.covered_by} asked the same); "
            f"{counted(job.left, 'call')} left for the embedded model" + (f", {took}" if job.left else ""))


SOLVE_PROMPT_TOKENS = 2500          # a solver call: the puzzle, the hint, the instructions
SOLVE_ANSWER_TOKENS = 400           # its reasoning and program


def solve_job(tasks: int, threads: int, attempts: int, retries: int, passes: int = 1) -> Job:
    """What solving `tasks` tasks asks of the solver model at most (every try retried, every pass)."""
    calls = tasks * passes * threads * attempts * (1 + retries)
    return Job(f"solving {counted(tasks, 'task')}", "solver", calls, SOLVE_PROMPT_TOKENS, SOLVE_ANSWER_TOKENS)


WRITE_CALLS = {"ps": 3, "oe": 2}    # memory writing per seed and format: pseudocode, concepts, helpers; derive, lessons
WRITE_PROMPT_TOKENS = 3000          # a write prompt: worked examples, the memory shown, the solution
WRITE_ANSWER_TOKENS = 700


def write_job(seeds: int, formats: list[str]) -> Job:
    """What writing `seeds` seeds to memory in `formats` asks of the aux model."""
    calls = seeds * sum(WRITE_CALLS[f] for f in formats)
    return Job(f"abstracting {counted(seeds, 'seed')}", "aux", calls, WRITE_PROMPT_TOKENS, WRITE_ANSWER_TOKENS)


def on_embedded_model(llm: LLM, role: str) -> bool:
    from arcmemo.llm.client import LOCAL_MODELS

    return llm.model_for(role) in LOCAL_MODELS


def check_named(llm: LLM, job: Job, flag: str) -> str | None:
    """None when `job` does not run on the embedded model; LongRunError when it would by default
    and takes longer than LONG_S even at the fast end; else the estimate to say (describe)."""
    if not on_embedded_model(llm, job.role):
        return None
    if job.role in llm.settings.defaulted and job.seconds()[0] > LONG_S:
        raise LongRunError(f"{describe(job)}, as no endpoint is configured. To go ahead on it, name it "
                           f"({flag} {llm.model_for(job.role)}); or give an endpoint (--base-url or OPENAI_BASE_URL) "
                           "and a model")
    return describe(job)


__all__ = ["Job", "LongRunError", "check_named", "describe", "duration", "solve_job", "write_job", "LONG_S"]
