"""ReasoningBank (Ouyang et al., "ReasoningBank: Scaling Agent Self-Evolving with Reasoning
Memory") as a memory method: `reasoningbank`.

Memory is a bank of items (format "bank"): a title (the item's name), a one-sentence
description of when it applies, and a content of what to do (kept as its `suggestion`),
with `meta` saying whether it was distilled from a success or a failure (`origin`) and the
profiles of the puzzles it came from (`task_profiles`, one per source); `used_in` names those
puzzles.

Write: after each block, every finished task is judged by its train pairs (ReasoningBank
asks an LLM to judge its own trajectory; here a program passing every train pair is the
judgement, which is checked rather than guessed) and gets one extraction call: why it
worked for a success, why it failed and what would prevent it for a failure, as at most
three items, appended to the bank (an item equal to one already kept adds the task to its
`used_in` and its puzzle's profile to its `task_profiles`, so it is found from every source;
a title already taken by another item gets a number).

Read: the items whose source puzzle is most like the new one come first (top_k); the papers
rank by the embedding of the task query, which arcmemo has no model for offline, so the
similarity is lexical over the puzzles' profiles (task_profile.py), computed from the grids
with no model call. The solver is shown each item whole, as the paper injects it: its title,
its description (when it applies) and its content.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.estimate import estimate_tokens
from arcmemo.core.gridtext import format_task
from arcmemo.core.parsing import ParseError
from arcmemo.core.text import cap, clean_line
from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.schema import rules as schema
from arcmemo.memory.views.lexical import concept_text
from arcmemo.methods.arcmemo.write import passed_train
from arcmemo.methods.contract import Experience, MethodBase, WriteEvent, each_experience, guarded
from arcmemo.methods.options import read_options
from arcmemo.methods.retrieval import most_similar
from arcmemo.methods.task_profile import task_profile
from arcmemo.prompts import keep_tail, render_prompt
from arcmemo.selection.conversation import ask, yaml_list_answer
from arcmemo.selection.types import Selection

NAME = "reasoningbank"
STEPS = {"success": "reasoningbank_success", "failure": "reasoningbank_failure"}   # step and template per origin
MAX_ITEMS = 3               # items one extraction may add (the paper's)
MAX_TITLE = 120             # characters; a longer "title" is a sentence
ITEM_KEYS = ("title", "description", "content")
FEEDBACK_CHARS = 2000       # of the feedback a failed try got, shown to the extraction
REASONING_CHARS = 3000      # of the reasoning behind a try (a small model's context is short)


@dataclass(frozen=True)
class BankOptions:
    top_k: int = field(default=3, metadata={"min": 1, "max": 50})   # items shown to the solver
    include_failures: bool = True   # failures are distilled and their lessons shown (False: successes only)


def origin_of(item) -> str:
    return str((item.meta or {}).get("origin") or "success")


def profiles(item) -> list[str]:
    """The profiles of every puzzle an item was distilled from (older items: the first's alone)."""
    meta = item.meta or {}
    return [str(p) for p in meta.get("task_profiles") or ([meta["task_profile"]] if meta.get("task_profile") else [])]


def matched_text(item) -> str:
    """What an item is matched by: the profiles of its source puzzles (its words if it has none)."""
    return "\n".join(profiles(item)) or concept_text(item)


def render_items(items) -> str:
    """The solver's hint: each item's title and content, most similar puzzle first."""
    if not items:
        return ""
    blocks = []
    for i, item in enumerate(items, 1):
        mark = " (a lesson from a failed attempt)" if origin_of(item) == "failure" else ""
        when = (item.description or "").strip()
        blocks.append(f"{i}. {item.name}{mark}\n" + (f"   When: {when}\n" if when else "")
                      + f"   {(item.suggestion or '').strip()}")
    return ("Memory items from similar puzzles worked on before: strategies that worked and lessons from attempts "
            "that failed. Use what fits these examples.\n\n" + "\n\n".join(blocks) + "\n")


def read_bank(task, memory, settings, llm=None) -> Selection:
    options = read_options(BankOptions, settings.options)
    query = task_profile(task)
    keep: Callable[[Any], bool] = (lambda item: True) if options.include_failures else (
        lambda item: origin_of(item) != "failure")
    found, size = most_similar(memory, "bank", query, options.top_k, matched_text, key="task_profile", keep=keep)
    items = [item for item, _ in found]
    hint = render_items(items)
    return Selection(mode=NAME, concept_ids=[item.id for item in items], hint=hint, reasoning=query,
                     stats={"memory_size": size, "shown": len(items), "scores": [round(s, 3) for _, s in found],
                            "hint_tokens_est": estimate_tokens(hint) if hint else 0})


# -- write ---------------------------------------------------------------------------------------------

def attempt_text(experience: Experience) -> str:
    """What the final try did on the train pairs: its program, each example's verdict, its error
    and the feedback it was given (train pairs only: an Experience holds nothing else)."""
    tries = [a for a in experience.attempts if a.program == experience.program] or list(experience.attempts)
    last = tries[-1] if tries else None
    parts = [f"```python\n{experience.program}\n```" if experience.program else "No usable program was written."]
    if last is not None and last.train_correct:
        parts.append("On the examples: " + ", ".join(f"example {i} {'right' if ok else 'wrong'}"
                                                      for i, ok in enumerate(last.train_correct, 1)) + ".")
    if last is not None and last.error:
        parts.append(f"Error: {cap(last.error, 300)}")
    if last is not None and last.feedback:
        parts.append("The feedback it was given:\n" + cap(last.feedback.strip(), FEEDBACK_CHARS))
    return "\n\n".join(parts)


def _item_data(item: dict, origin: str, profile: str) -> dict[str, Any]:
    return {"format": "bank", "name": item["title"], "description": item["description"], "suggestion": item["content"],
            "meta": {"origin": origin, "task_profiles": [profile]}}


def parse_items(origin: str, profile: str) -> Callable[[str], list[dict]]:
    """The items of an extraction answer, as the store will keep them (each checked by the store's
    rules here, so a bad item is sent back to the model instead of failing the write)."""
    def parse(text: str) -> list[dict]:
        value = yaml_list_answer(text)
        if not isinstance(value, list) or not value:
            raise ParseError("expected a YAML list of memory items, each with title, description and content")
        items = []
        for n, item in enumerate(value[:MAX_ITEMS], 1):
            if not isinstance(item, dict):
                raise ParseError(f"item {n} is not a mapping with title, description and content")
            missing = [k for k in ITEM_KEYS if not isinstance(item.get(k), str) or not item[k].strip()]
            if missing:
                raise ParseError(f"item {n} has no text for {', '.join(missing)}")
            title = clean_line(item["title"]).strip().rstrip(".").strip()
            if len(title) > MAX_TITLE:
                raise ParseError(f"item {n}: a title is a short name, at most {MAX_TITLE} characters "
                                 f"(this one has {len(title)})")
            data = _item_data({"title": title, "description": item["description"].strip(),
                               "content": item["content"].strip()}, origin, profile)
            try:
                items.append(schema.normalize(data, source="self"))
            except ConceptDataError as exc:
                raise ParseError(f"item {n}: {exc}") from None
        return items

    return parse


def _same(kept, data: dict) -> bool:
    return (kept.description, kept.suggestion, origin_of(kept)) == (data["description"], data["suggestion"],
                                                                      data["meta"]["origin"])


def _place(memory, data: dict) -> tuple[str, bool]:
    """The name `data` is kept under and whether an equal item holds it already: its title, or
    its title numbered (#2, #3, ...) when another item has that title."""
    n = 1
    while True:
        name = data["name"] if n == 1 else f"{data['name']} #{n}"
        kept = memory.get(name, format="bank")
        if kept is None or _same(kept, data):
            return name, kept is not None
        n += 1


def _join_source(memory, name: str, data: dict, task_id: str, log: dict) -> bool:
    """An equal item distilled again from another puzzle: that puzzle joins its sources (used_in and
    its profile among task_profiles), in one revision. False when it was a source already."""
    kept = memory.get(name, format="bank")
    known = profiles(kept)
    new = [p for p in data["meta"]["task_profiles"] if p not in known]
    if task_id in (kept.used_in or []) and not new:
        return False
    meta = {**(kept.meta or {}), "task_profiles": known + new}
    log = {k: v for k, v in log.items() if k != "source"}
    memory.edit(kept.id, {"used_in": list(dict.fromkeys([*(kept.used_in or []), task_id])), "meta": meta},
                format="bank", **log)
    return True


def store_items(memory, items: list[dict], experience: Experience, *, run_id, model, origin: str) -> WriteEvent:
    """Append the items (all or none), each under a name of its own."""
    event = WriteEvent(experience.task_id)
    with memory.transaction():
        for data in items:
            name, kept = _place(memory, data)
            log = dict(actor=NAME, run_id=run_id, task_id=experience.task_id, source="self", model=model,
                       reason=f"distilled from the {origin} of task {experience.task_id}")
            if kept:
                if _join_source(memory, name, data, experience.task_id, log):
                    event.extended.append(name)
            else:
                memory.add({**data, "name": name}, **log)
                event.added.append(name)
    return event


def extract(experience: Experience, memory, llm, *, run_id) -> WriteEvent:
    """One extraction call for one finished task, its items appended; a failed call or an
    answer still unusable after a retry is recorded as a write failure and stores nothing."""
    origin = "success" if passed_train(experience) else "failure"
    step = STEPS[origin]
    task = experience.task
    reasoning = keep_tail((experience.reasoning or "").strip(), REASONING_CHARS) or "(none recorded)"
    values = {"puzzle": format_task(task, with_test=False), "reasoning": reasoning, "max_items": MAX_ITEMS}
    values.update({"program": experience.program} if origin == "success" else {"attempt": attempt_text(experience)})
    messages = [{"role": "user", "content": render_prompt(step, **values)}]
    sample = memory.count_write_failures(task.id, (step,))   # asked afresh after a failure, not replayed
    outcome = ask(llm, messages, role="aux", step=step, parse=parse_items(origin, task_profile(task)),
                  task_id=task.id, sample=sample)
    model = outcome.completions[-1].model if outcome.completions else llm.model_for("aux")
    if not outcome.ok:
        memory.record_write_failure(run_id=run_id, task_id=task.id, step=step, model=model,
                                    error=outcome.error or "unknown error", raw=outcome.raw)
        return WriteEvent(task.id, failed=True, error=outcome.error)
    return store_items(memory, outcome.value, experience, run_id=run_id, model=model, origin=origin)


class ReasoningBank(MethodBase):
    name = NAME
    description = "ReasoningBank: items distilled from successes and failures, those of the most similar puzzles shown"
    formats = ("bank",)
    write_roles = ("aux",)
    Options = BankOptions
    departures = ("similar items are found by word overlap of the puzzles' profiles, not by embeddings",
                  "a try is judged a success by its train pairs, not by an LLM judging its own trajectory")

    def read(self, task, memory, settings, llm):
        return read_bank(task, memory, settings, llm)

    def write(self, experiences, memory, llm, ctx):
        options = self.options(ctx.options)
        learns_from = (lambda e: True) if options.include_failures else passed_train
        return [guarded(lambda e: extract(e, memory, llm, run_id=ctx.run_id), experience, memory, step=NAME,
                        run_id=ctx.run_id)
                for experience in each_experience(experiences, ctx, learns_from=learns_from)]


    def check(self, memory, *, continual: bool) -> str | None:
        """Without --continual nothing is added, so a memory with no bank items shows nothing."""
        if continual or memory.list("bank"):
            return None
        return (f"{memory.url}: holds no ReasoningBank items for --method reasoningbank to show; add --continual "
                "to distil them from this run's tasks")


__all__ = ["ReasoningBank", "BankOptions", "read_bank", "render_items", "parse_items", "attempt_text", "extract"]
