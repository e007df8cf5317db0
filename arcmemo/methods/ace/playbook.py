"""ACE's playbook as the store keeps it: bullets, their counters, their order, their ids, their text.

A bullet is a concept of format "playbook": its name is its stable id (`ace-00017`, never
reused, so a reflection or a revision that names it means one bullet), its description the
bullet's content, `meta.section` the part of the playbook it belongs to.

Its helpful/harmful counters are read from the store's usage rows (the reflector's verdicts,
recorded with `WriteContext.judge`), not kept in `meta`: a row per (run, pass, task, item) is
replaced, never added to, when a task is written again (a resumed run counts once); a verdict
changes no content, so it makes no revision; and the counts are the ones every method's
items have (`concepts stats`). A bullet another was merged into (grow-and-refine) carries the
counts of the absorbed one in `meta.carried`, frozen at the merge, since the absorbed bullet's
rows stay with its own id. The usage rows are run records: an export carries `carried`, not them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from arcmemo.core.estimate import estimate_tokens
from arcmemo.memory.schema.concept import Concept
from arcmemo.prompts import render_prompt

FORMAT = "playbook"
ID_PREFIX = "ace-"
ID_DIGITS = 5
# What the playbook is divided into (a bullet's meta.section): the curator files each new bullet under one.
SECTIONS = {
    "strategies": "strategies and rules that find or implement a puzzle's rule",
    "pitfalls": "mistakes made before and how to avoid them",
    "code": "short code that gets a fiddly operation right",
    "checks": "how to check a hypothesis or a program against the examples",
}
_ID = re.compile(rf"^\[?\s*(?:{ID_PREFIX})?0*(\d{{1,9}})\s*\]?$", re.IGNORECASE)


@dataclass(frozen=True)
class Bullet:
    """One bullet with its counters (usage rows plus what merges carried into it)."""

    concept: Concept
    helpful: int = 0
    harmful: int = 0

    @property
    def id(self) -> str:
        return self.concept.name

    @property
    def section(self) -> str:
        return str((self.concept.meta or {}).get("section") or "strategies")

    @property
    def content(self) -> str:
        return (self.concept.description or "").strip()

    @property
    def number(self) -> int:
        return id_number(self.id) or 0


def bullet_name(number: int) -> str:
    return f"{ID_PREFIX}{number:0{ID_DIGITS}d}"


def id_number(text: object) -> int | None:
    """The number of a bullet id as a model may write it (`ace-00017`, `[ace-17]`, `17`), else None."""
    match = _ID.match(str(text).strip()) if isinstance(text, (str, int)) and not isinstance(text, bool) else None
    return int(match.group(1)) if match else None


def canonical_id(text: object, names: Iterable[str] = ()) -> str | None:
    """`text` as a bullet id: one of `names` (the bullets' own, whatever they are: an imported
    playbook may name its bullets otherwise) written with or without brackets and in any case,
    else `ace-00017` however its number is written; None when it reads as neither."""
    if isinstance(text, str):
        wanted = text.strip().strip("[]").strip().lower()
        found = next((name for name in names if name.lower() == wanted), None)
        if found is not None:
            return found
    number = id_number(text)
    return None if number is None else bullet_name(number)


def carried(concept: Concept) -> tuple[int, int]:
    """(helpful, harmful) that merges carried into this bullet (meta.carried)."""
    counts = (concept.meta or {}).get("carried") or {}
    return int(counts.get("helpful") or 0), int(counts.get("harmful") or 0)


def playbook(memory) -> list[Bullet]:
    """Every bullet, in id order, with its counters."""
    concepts = sorted(memory.list(FORMAT), key=lambda c: (id_number(c.name) or 0, c.id))
    usage = memory.usage(concept_ids=[c.id for c in concepts]) if concepts else {}
    bullets = []
    for concept in concepts:
        use = usage.get(concept.id)
        helpful, harmful = carried(concept)
        bullets.append(Bullet(concept, helpful + (use.helpful if use else 0), harmful + (use.harmful if use else 0)))
    return bullets


def ranked(bullets: Iterable[Bullet]) -> list[Bullet]:
    """Best first: helpful minus harmful, then the most recently written, then the newest id."""
    return sorted(bullets, key=lambda b: (-(b.helpful - b.harmful), -b.concept.updated_at.timestamp(), -b.number))


def bullet_entry(bullet: Bullet) -> str:
    """One bullet as the solver, the reflector and the curator read it: id, counters, content
    (a multi-line content, such as code, indented under it)."""
    first, *rest = bullet.content.splitlines() or [""]
    head = f"- [{bullet.id}] (helpful {bullet.helpful}, harmful {bullet.harmful}) {first}"
    return "\n".join([head, *(f"    {line}" if line.strip() else "" for line in rest)])


def _section_order(bullets: Sequence[Bullet]) -> list[str]:
    return [*SECTIONS, *sorted({b.section for b in bullets} - set(SECTIONS))]


def listing(bullets: Sequence[Bullet]) -> str:
    """The bullets under their section headings (SECTIONS' order, then any other), each section's
    bullets in the order given."""
    parts = []
    for section in _section_order(bullets):
        entries = [bullet_entry(b) for b in bullets if b.section == section]
        if entries:
            parts.append(f"## {section}\n" + "\n".join(entries))
    return "\n\n".join(parts)


def hint(bullets: Sequence[Bullet]) -> str:
    """What the solver is shown: the playbook's bullets under their sections ("" when none)."""
    if not bullets:
        return ""
    return render_prompt("ace_playbook", bullets=listing(in_id_order(bullets)))


def in_id_order(bullets: Iterable[Bullet]) -> list[Bullet]:
    return sorted(bullets, key=lambda b: b.number)


def within(bullets: Sequence[Bullet], tokens: int, max_bullets: int | None = None) -> list[Bullet]:
    """The bullets to show within `tokens` (and at most `max_bullets`): the whole playbook when it
    fits, else the best ranked (`ranked`) taken in order, a bullet that would not fit passed over
    for the next. Counted with the solver-side estimate (core.estimate) of the hint as shown."""
    chosen = list(bullets) if max_bullets is None or len(bullets) <= max_bullets else []
    if chosen and estimate_tokens(hint(chosen)) <= tokens:
        return in_id_order(chosen)
    # The estimate adds up at line ends, so the hint's size is the template's, plus each section
    # heading's and its blank line, plus each entry's and its line break, less the blank line and
    # line break the last section and entry do not have: summed, not rendered again per bullet.
    used = estimate_tokens(hint_frame()) - 2
    headed: set[str] = set()
    chosen = []
    for bullet in ranked(bullets):
        if max_bullets is not None and len(chosen) >= max_bullets:
            break
        cost = estimate_tokens(bullet_entry(bullet)) + 1
        if bullet.section not in headed:
            cost += estimate_tokens(f"## {bullet.section}") + 2
        if used + cost <= tokens:
            chosen.append(bullet)
            headed.add(bullet.section)
            used += cost
    while chosen and estimate_tokens(hint(chosen)) > tokens:     # the sum is exact; this only guards it
        chosen.pop()
    return in_id_order(chosen)


def hint_frame() -> str:
    """The hint's text around its bullets."""
    return render_prompt("ace_playbook", bullets="")


def fresh_names(memory, bullets: Sequence[Bullet]) -> Iterator[str]:
    """Ids for new bullets, counting on from the highest in the playbook and passing over any id
    a bullet ever had (a removed or merged bullet's id stays its own in the history)."""
    number = max((b.number for b in bullets), default=0)
    while True:
        number += 1
        name = bullet_name(number)
        if not memory.history(name, format=FORMAT):
            yield name


__all__ = ["Bullet", "FORMAT", "SECTIONS", "ID_PREFIX", "bullet_name", "canonical_id", "id_number", "carried",
           "playbook", "ranked", "bullet_entry", "listing", "hint", "in_id_order", "within", "fresh_names"]
