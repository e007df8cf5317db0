"""ACE's grow-and-refine: bullets that say nearly the same thing are merged into one.

ACE compares bullets by the similarity of their embeddings; arcmemo has no embedding model
offline, so two bullets are compared by their words: the Jaccard overlap of their stemmed
content words (memory/views/lexical.py `terms`). `terms` drops numbers and negations as noise, which
here they are not: bullets that differ in the numbers they hold (`rot90(g, 1)`, `rot90(g, 3)`)
or in whether they negate ("do not transpose", "transpose") are never the same bullet. Pairs
at or above the threshold are near-identical restatements; paraphrases in other words stay
apart (an embedding would join them; the curator's prompt asks it not to add what a bullet
already says).

Bullets are taken best first (helpful minus harmful, then the oldest: an established id stays);
each is merged into the kept one it is most similar to, when that is at or above the
threshold. The survivor keeps its content, section and id; it gains the absorbed bullet's
tasks (`used_in`), its name in `meta.merged_from` and its counters in `meta.carried`
(ace_playbook: the absorbed bullet's usage rows stay with its own id). Each merge is one
transaction of two revisions: the survivor's edit and the absorbed bullet's delete, each
reason naming the other and the similarity, so `concepts history` says what was merged into
what.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from arcmemo.memory.views.lexical import terms
from arcmemo.methods.ace.playbook import FORMAT, Bullet, carried

ACTOR = "ace-refine"
_NUMBER = re.compile(r"\d+")
_NEGATION = re.compile(r"\b(?:no|not|never|none|nothing|without|avoid|don't|dont|doesn't|isn't|cannot|can't)\b",
                       re.IGNORECASE)


@dataclass(frozen=True)
class Merge:
    absorbed: str
    survivor: str
    similarity: float


@dataclass(frozen=True)
class Words:
    """What two bullets are compared by (module docstring)."""

    terms: frozenset[str]
    numbers: tuple[str, ...]
    negated: bool


def words(text: str) -> Words:
    return Words(frozenset(terms(text)), tuple(sorted(_NUMBER.findall(text))), bool(_NEGATION.search(text)))


def similarity(a: Words, b: Words) -> float:
    """Jaccard overlap of the two bullets' terms; 0 when their numbers or negation differ, or
    either has no terms."""
    if a.numbers != b.numbers or a.negated != b.negated or not a.terms or not b.terms:
        return 0.0
    return len(a.terms & b.terms) / len(a.terms | b.terms)


def duplicates(bullets: Sequence[Bullet], threshold: float) -> list[Merge]:
    """Which bullet merges into which (module docstring), best first; nothing is written.

    Only bullets with the same numbers and negation can be alike, and a Jaccard overlap of t
    needs the smaller word set to be at least t of the larger: others are not compared."""
    kept: dict[tuple, list[tuple[Bullet, Words]]] = {}
    merges = []
    for bullet in sorted(bullets, key=lambda b: (-(b.helpful - b.harmful), b.number)):
        mine = words(bullet.content)
        alike = kept.setdefault((mine.numbers, mine.negated), [])
        size = len(mine.terms)
        best, into = 0.0, None
        for other, theirs in alike:
            if min(size, len(theirs.terms)) < threshold * max(size, len(theirs.terms)):
                continue
            score = similarity(mine, theirs)
            if score > best:
                best, into = score, other
        if into is not None and best >= threshold:
            merges.append(Merge(bullet.id, into.id, round(best, 3)))
        else:
            alike.append((bullet, mine))
    return merges


def refine(memory, bullets: Sequence[Bullet], threshold: float, *, run_id: str | None) -> list[Merge]:
    """Merge the near-identical bullets (`duplicates`) in the store; the merges made."""
    by_id = {b.id: b for b in bullets}
    merges = duplicates(bullets, threshold)
    for merge in merges:
        survivor = memory.get(merge.survivor, format=FORMAT)
        absorbed = by_id[merge.absorbed]
        meta = dict(survivor.meta or {})
        helpful, harmful = carried(survivor)
        meta["carried"] = {"helpful": helpful + absorbed.helpful, "harmful": harmful + absorbed.harmful}
        meta["merged_from"] = [*(meta.get("merged_from") or []), absorbed.id,
                               *((absorbed.concept.meta or {}).get("merged_from") or [])]
        used_in = list(dict.fromkeys([*survivor.used_in, *absorbed.concept.used_in]))
        with memory.transaction():
            memory.edit(survivor.id, {"meta": meta, "used_in": used_in}, actor=ACTOR, format=FORMAT, run_id=run_id,
                        reason=f"grow-and-refine: {absorbed.id} merged into it (similarity {merge.similarity:.2f})")
            memory.delete(absorbed.concept.id, actor=ACTOR, format=FORMAT, run_id=run_id,
                          reason=f"grow-and-refine: merged into {merge.survivor} (similarity {merge.similarity:.2f})")
    return merges


__all__ = ["Merge", "Words", "ACTOR", "words", "similarity", "duplicates", "refine"]
