"""ACE, Agentic Context Engineering (Zhang et al.): the memory method `ace`.

Memory is a playbook of itemised bullets (playbook.py: format "playbook", a stable id, a
section, helpful/harmful counters).

Read (ACE's generator side): the solver is shown the whole playbook with each bullet's id and
counters, or, when it exceeds the hint budget (or `max_bullets`), the best-ranked bullets that
fit (helpful minus harmful, then the most recent). No model is asked.

Write, per finished block and per experience, successes and failures alike (train feedback
only; `reflect_on_failures: false` keeps to the successes):
1. the reflector (reflect.py) diagnoses the attempt, tags the bullets the task was shown
   (recorded with `WriteContext.judge`: the bullets' counters) and draws lessons;
2. the curator (curate.py) turns the lessons into delta operations (add, edit, remove),
   applied by code in one transaction, one revision each;
3. after the block, grow-and-refine (refine.py) merges near-identical bullets.
A malformed answer is asked again with the error, then recorded as the task's write failure;
nothing it said is stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from arcmemo.core.answers import INTERRUPTS, describe
from arcmemo.core.estimate import estimate_tokens
from arcmemo.methods.ace import curate as ace_curate
from arcmemo.methods.ace import reflect as ace_reflect
from arcmemo.methods.ace.playbook import FORMAT, playbook, within
from arcmemo.methods.ace.playbook import hint as playbook_hint
from arcmemo.methods.ace.refine import refine
from arcmemo.methods.contract import Experience, MethodBase, WriteContext, WriteEvent, each_experience, guarded
from arcmemo.selection.conversation import ask
from arcmemo.selection.types import Selection

NAME = "ace"


@dataclass(frozen=True)
class AceOptions:
    """The method's own settings (--method-option KEY=VALUE; methods/options.py reads and checks them)."""

    max_bullets: int = field(default=0, metadata={"min": 0, "max": 100_000})  # at most this many shown (0: as many as fit)
    reflect_on_failures: bool = True    # learn from tasks that failed their train pairs too (ACE does)
    refine: bool = True                 # grow-and-refine after each block's deltas
    refine_above: int = field(default=0, metadata={"min": 0, "max": 1_000_000})  # ... only past this many bullets
    dedup_threshold: float = field(default=0.8, metadata={"min": 0.1, "max": 1.0})  # word overlap of one bullet
    curator_tokens: int = field(default=1500, metadata={"min": 200, "max": 100_000})  # the curator's playbook share
    reflect_rounds: int = field(default=1, metadata={"min": 1, "max": 5})  # the reflector refines its answer (ACE: up to 5)


class ACE(MethodBase):
    name = NAME
    description = ("ACE: a playbook of bullets with helpful/harmful counters, shown whole; a reflector tags them and "
                   "draws lessons from successes and failures, a curator adds, edits and removes bullets")
    formats = (FORMAT,)
    write_roles = ("aux",)
    Options = AceOptions
    departures = ("the generator is the run's solver, shown the playbook in its hint",
                  "grow-and-refine finds near-duplicate bullets by word overlap, not by embeddings",
                  "the reflector runs one round unless reflect_rounds says more (ACE: up to 5)")

    def check(self, memory, *, continual: bool) -> str | None:
        """Without --continual (which grows the playbook from the run's own tasks) an empty playbook
        would make the run the no-memory baseline in disguise."""
        if continual or memory.list(FORMAT):
            return None
        return (f"{memory.url}: holds no playbook for --method ace to show; add --continual to grow one from this "
                "run's tasks (or import one: `arcmemo concepts import`)")

    def read(self, task, memory, settings, llm):
        options = self.options(settings.options)
        bullets = playbook(memory)
        shown = within(bullets, settings.hint_budget, options.max_bullets or None)
        text = playbook_hint(shown)
        return Selection(mode=self.name, concept_ids=[b.concept.id for b in shown], hint=text,
                         stats={"memory_size": len(bullets), "shown": len(shown), "cut": len(bullets) - len(shown),
                                "hint_tokens_est": estimate_tokens(text)})

    def write(self, experiences, memory, llm, ctx):
        options = self.options(ctx.options)
        learns = (lambda e: True) if options.reflect_on_failures else (lambda e: e.passed_train)
        events = [event for experience in each_experience(experiences, ctx, learns_from=learns)
                  if (event := guarded(lambda e: self._write_one(e, memory, llm, ctx, options), experience, memory,
                                       step=NAME, run_id=ctx.run_id)) is not None]
        if events and options.refine:
            self._refine(memory, ctx, options, events[-1].task_id)
        return events

    def _write_one(self, experience: Experience, memory, llm, ctx: WriteContext, options: AceOptions) -> WriteEvent:
        task_id = experience.task_id
        bullets = playbook(memory)
        was_shown = set(experience.shown)
        shown = [b for b in bullets if b.concept.id in was_shown]
        # a write that failed before for this task is asked afresh, not replayed from the call cache
        sample = memory.count_write_failures(task_id, (ace_reflect.STEP, ace_curate.STEP))

        def ask_for(step: str, prompt: str | list[dict[str, str]], parse):
            messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
            return ask(llm, messages, role="aux", step=step, parse=parse, task_id=task_id,
                       params=ctx.model_params or None, sample=sample)

        prompt = ace_reflect.reflection_prompt(experience, shown)
        parse = ace_reflect.parser([b.id for b in shown])
        asked = ask_for(ace_reflect.STEP, prompt, parse)
        if not asked.ok:
            return _failed(memory, ctx, task_id, ace_reflect.STEP, asked, llm)
        for _ in range(options.reflect_rounds - 1):        # ACE's iterative refinement of the reflection
            again = ask_for(ace_reflect.STEP, ace_reflect.refinement(prompt, asked.raw or ""), parse)
            if not again.ok:
                break                    # the last usable reflection stands
            asked = again
        reflection = asked.value
        if reflection.tags:
            concept_ids = {b.id: b.concept.id for b in shown}
            ctx.judge(task_id, {concept_ids[name]: verdict for name, verdict in reflection.tags.items()})
        notes = [f"reflector tagged {', '.join(reflection.dropped)}, not shown to the task: ignored"] \
            if reflection.dropped else []
        if not reflection.insights:
            return WriteEvent(task_id, error="; ".join(notes) or None)
        curated = ask_for(ace_curate.STEP, ace_curate.curator_prompt(bullets, reflection, options.curator_tokens),
                          partial(ace_curate.parse_deltas, names=[b.id for b in bullets]))
        if not curated.ok:
            return _failed(memory, ctx, task_id, ace_curate.STEP, curated, llm)
        with memory.transaction():         # one answer's operations apply whole or not at all
            applied = ace_curate.apply_deltas(memory, curated.value, bullets, task_id=task_id, run_id=ctx.run_id,
                                              model=_model(curated, llm))
        if applied.refused:
            notes.append("curator operations refused: " + "; ".join(applied.refused))
        return WriteEvent(task_id, added=applied.added, extended=applied.edited, removed=applied.removed,
                          error="; ".join(notes) or None)

    def _refine(self, memory, ctx: WriteContext, options: AceOptions, last_task: str) -> None:
        """Grow-and-refine after the block's deltas (its failure is recorded against the block's last
        written task: the deltas stand, the next block tries again)."""
        try:
            bullets = playbook(memory)
            if len(bullets) <= options.refine_above:
                return
            for merge in refine(memory, bullets, options.dedup_threshold, run_id=ctx.run_id):
                ctx.progress(f"grow-and-refine: {merge.absorbed} merged into {merge.survivor} "
                             f"(similarity {merge.similarity:.2f})")
        except INTERRUPTS:
            raise
        except Exception as exc:
            memory.record_write_failure(run_id=ctx.run_id, task_id=last_task, step="ace_refine", model=None,
                                        error=f"ace_refine: {describe(exc)}", raw=None)


def _model(outcome, llm) -> str | None:
    return outcome.completions[-1].model if outcome.completions else llm.model_for("aux")


def _failed(memory, ctx: WriteContext, task_id: str, step: str, outcome, llm) -> WriteEvent:
    """A step whose answers could not be used: recorded with the raw answer, nothing stored."""
    error = outcome.error or f"{step}: unknown error"
    memory.record_write_failure(run_id=ctx.run_id, task_id=task_id, step=step, model=_model(outcome, llm),
                                error=error, raw=outcome.raw)
    return WriteEvent(task_id, failed=True, error=error)


__all__ = ["ACE", "AceOptions", "NAME"]
