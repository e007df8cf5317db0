"""ACE's curator: the reflector's lessons as delta operations on the playbook, applied by code.

The curator (role aux, step `ace_curate`) sees the playbook (whole, or within its token share:
the bullets whose words best match the lessons, the prompt says so) and the reflection, and
answers a YAML list of operations: `add` (section, content), `edit` (id, content), `remove`
(id). It never rewrites the playbook; an answer of another shape is asked again with the error
(read leniently where it is safe: answers.py).

The operations are applied in the order given, deterministically, each its own revision in
the store (run, task and model on it): an add gets a fresh id, an edit replaces one bullet's
content, a remove deletes it (its history stays). An operation on an id that is no bullet
(any more: an earlier operation of the same answer may have removed it) is refused and
reported, and the others still apply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.estimate import estimate_tokens
from arcmemo.core.parsing import ParseError
from arcmemo.memory.views.lexical import rank_lexical
from arcmemo.methods.ace.answers import item_lines, yaml_answer
from arcmemo.methods.ace.playbook import FORMAT, SECTIONS, Bullet, bullet_entry, canonical_id, fresh_names, listing
from arcmemo.methods.ace.reflect import Reflection
from arcmemo.prompts import render_prompt

STEP = "ace_curate"
ACTOR = "ace-curator"
OPS = {"add": ("section", "content"), "edit": ("id", "content"), "remove": ("id",)}
FIELDS = ("op", "id", "section", "content")
MAX_OPERATIONS = 8
MAX_CONTENT_CHARS = 1_500       # a bullet is a line or a short snippet of code


@dataclass(frozen=True)
class Delta:
    op: str
    id: str | None = None
    section: str | None = None
    content: str | None = None

    def label(self) -> str:
        return f"{self.op} {self.id}" if self.id else f"{self.op} ({self.section})"


@dataclass
class Applied:
    """What a curator's operations did: bullet ids added, edited, removed, and the refused ones with why."""

    added: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _field(item: dict, key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, (str, int)) or isinstance(value, bool) or not str(value).strip():
        raise ParseError(f"{where}: '{item.get('op')}' needs {key} as text")
    return str(value).strip()


def _delta(item: Any, where: str, names: Sequence[str]) -> Delta:
    if not isinstance(item, dict):
        raise ParseError(f"{where}: expected a mapping with op and its fields, got {type(item).__name__}")
    op = str(item.get("op") or "").strip().lower()
    if op not in OPS:
        raise ParseError(f"{where}: op must be one of {', '.join(OPS)}, got {item.get('op')!r}")
    extra = sorted(str(k) for k in item if k != "op" and k not in OPS[op])
    if extra:
        raise ParseError(f"{where}: '{op}' takes {', '.join(OPS[op])}, not {', '.join(extra)}")
    values = {key: _field(item, key, where) for key in OPS[op]}
    if "content" in values and len(values["content"]) > MAX_CONTENT_CHARS:
        raise ParseError(f"{where}: content of {len(values['content']):,} characters is too long "
                         f"(at most {MAX_CONTENT_CHARS:,}; one idea per bullet)")
    if "section" in values:
        values["section"] = values["section"].lower()
        if values["section"] not in SECTIONS:
            raise ParseError(f"{where}: section must be one of {', '.join(SECTIONS)}, got {values['section']!r}")
    if "id" in values:
        bullet = canonical_id(values["id"], names)
        if bullet is None:
            raise ParseError(f"{where}: {values['id']!r} is not a bullet id (ids look like ace-00001)")
        values["id"] = bullet
    return Delta(op, **values)


def parse_deltas(text: str, names: Sequence[str] = ()) -> list[Delta]:
    """The curator's operations (ParseError naming the first thing wrong); `names`: the bullets' ids."""
    value = yaml_answer(text, item_lines(FIELDS))
    if value is None:
        return []
    if not isinstance(value, list):
        raise ParseError(f"expected a YAML list of operations, got {type(value).__name__}")
    if len(value) > MAX_OPERATIONS:
        raise ParseError(f"{len(value)} operations is too many (at most {MAX_OPERATIONS}); keep the ones that matter")
    return [_delta(item, f"operation {i}", names) for i, item in enumerate(value, 1)]


def playbook_part(bullets: Sequence[Bullet], reflection: Reflection, tokens: int) -> tuple[str, str]:
    """(note, listing) of the playbook for the curator: the whole of it when it fits `tokens`, else
    the bullets whose words best match the lessons, as many as fit, with a note saying so."""
    if not bullets:
        return "", "(empty: no bullets yet)"
    whole = listing(bullets)
    if estimate_tokens(whole) <= tokens:
        return "", whole
    query = " ".join([reflection.diagnosis, *reflection.insights])
    by_concept = {b.concept.id: b for b in bullets}
    kept: list[Bullet] = []
    used = 0
    for concept in rank_lexical(query, [b.concept for b in bullets]):
        cost = estimate_tokens(bullet_entry(by_concept[concept.id])) + 1
        if used + cost <= tokens:
            kept.append(by_concept[concept.id])
            used += cost
    kept.sort(key=lambda b: b.number)
    note = (f"(Only the {len(kept)} of {len(bullets)} bullets closest to the lessons are shown; the playbook has "
            "more. Edit or remove only ids shown here.)\n")
    return note, listing(kept)


def curator_prompt(bullets: Sequence[Bullet], reflection: Reflection, tokens: int) -> str:
    note, shown = playbook_part(bullets, reflection, tokens)
    return render_prompt(STEP, playbook=shown, playbook_note=note, diagnosis=reflection.diagnosis,
                         insights="\n".join(f"- {i}" for i in reflection.insights),
                         sections="\n".join(f"- {name}: {what}" for name, what in SECTIONS.items()))


def apply_deltas(memory, deltas: Sequence[Delta], bullets: Sequence[Bullet], *, task_id: str, run_id: str | None,
                 model: str | None) -> Applied:
    """The operations applied in order through the store, one revision each (module docstring)."""
    applied = Applied()
    names = fresh_names(memory, bullets)
    log = dict(run_id=run_id, task_id=task_id, model=model)
    for delta in deltas:
        if delta.op == "add":
            name = next(names)
            memory.add({"format": FORMAT, "name": name, "description": delta.content,
                        "meta": {"section": delta.section}},
                       actor=ACTOR, reason=f"curator: add to {delta.section} after task {task_id}", source="self",
                       **log)
            applied.added.append(name)
            continue
        if memory.get(delta.id, format=FORMAT) is None:
            applied.refused.append(f"{delta.label()}: no such bullet")
            continue
        if delta.op == "edit":
            before = memory.get(delta.id, format=FORMAT).content_hash
            after = memory.edit(delta.id, {"description": delta.content}, actor=ACTOR, format=FORMAT,
                                reason=f"curator: edit after task {task_id}", **log)
            if after.content_hash != before:
                applied.edited.append(delta.id)
        else:
            memory.delete(delta.id, actor=ACTOR, format=FORMAT, reason=f"curator: remove after task {task_id}", **log)
            applied.removed.append(delta.id)
    return applied


__all__ = ["Delta", "Applied", "STEP", "ACTOR", "OPS", "parse_deltas", "playbook_part", "curator_prompt",
           "apply_deltas"]
