"""What a consolidation merges, and merging it: near-duplicate concepts found and joined.

Two kinds of evidence join concepts:
- *behaviour* (run/helpers/behaviour.py, given as `behaviour`: the run layer runs helpers in the
  sandbox): PS concepts whose helpers give the same results on the probe inputs. Their
  parameters line up by position (`aligned`).
- *words and types, judged by the model* (wording.py, judge.py): a candidate pair the aux model
  says is one concept. When both have helpers, the helpers are run first: helpers that
  disagree refuse the pair without asking the model, and helpers that behave the same join
  it without asking. Helpers that cannot be compared by running (they take objects or
  functions) leave it to the model; merged, the survivor keeps its helper and the other's
  stays in its `merged` revision, which a split restores.
  Without a model (`llm` None: `--no-model`) only behaviour joins concepts.

Concepts joined directly or through others form a group. Its survivor is the member whose
helper other helpers call, else one with a helper (a helper is named after its concept), else
the most used, else the oldest; the others are merged into it one by one, each reached
through members already accepted, so a member refused (merges.py's rules, checked here so a
dry run lists exactly what a merge would do) never links two others. A group is merged in one
transaction; `apply_plan` reports a group the store refuses (memory changed since the plan)
and goes on with the next.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arcmemo.consolidation import ACTOR, MAX_JUDGED, MIN_OVERLAP
from arcmemo.consolidation.judge import judge
from arcmemo.consolidation.wording import word_pairs
from arcmemo.llm.usage import Usage
from arcmemo.memory.errors import MergeRefused
from arcmemo.memory.schema.concept import FORMATS, Concept
from arcmemo.memory.store.merges import absorb, label


@dataclass(frozen=True)
class Link:
    """Evidence that two concepts are one: `why` in words, `aligned` when their helpers behave the same."""

    a: int
    b: int
    why: str
    aligned: bool = False


@dataclass
class Merge:
    """One group: `absorbed` concepts to merge into `survivor`, each with why (`why`, by id) and
    whether its helper behaves as the survivor's (`aligned` ids)."""

    survivor: Concept
    absorbed: list[Concept] = field(default_factory=list)
    why: dict[int, str] = field(default_factory=dict)
    aligned: set[int] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        return {"into": {"id": self.survivor.id, "name": self.survivor.name, "format": self.survivor.format},
                "merged": [{"id": c.id, "name": c.name, "why": self.why[c.id], "aligned": c.id in self.aligned}
                           for c in self.absorbed]}


@dataclass
class Plan:
    """What a consolidation would merge (`merges`), what it found alike but cannot merge
    (`refused`, each naming both), the model's answers (`judged`), the pairs it has no answer on
    (`unjudged`), and what it took (`stats`, `usage`)."""

    merges: list[Merge] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    judged: list[dict[str, Any]] = field(default_factory=list)
    unjudged: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)

    def to_json(self) -> dict[str, Any]:
        return {"merges": [m.to_json() for m in self.merges], "refused": self.refused, "judged": self.judged,
                "unjudged": self.unjudged, "stats": self.stats, "usage": self.usage.to_dict()}


def consolidated_formats(formats: Iterable[str] | None = None) -> list[str]:
    """The formats a consolidation looks at: those given, else every one but the cheatsheet (one text)."""
    return list(formats) if formats else [f for f in FORMATS if f != "sheet"]


def plan_consolidation(memory, behaviour, llm=None, *, formats: Iterable[str] | None = None,
                       min_overlap: float = MIN_OVERLAP, max_judged: int = MAX_JUDGED) -> Plan:
    """The plan for `memory` as it is: nothing is written. `behaviour`: what tells helpers alike
    (`groups(concepts)`, `compare(a, b)`: run/helpers/behaviour.Behaviour); `llm` None: no model."""
    concepts = memory.list()
    wanted = consolidated_formats(formats)
    considered = [c for c in concepts if c.format in wanted]
    by_id = {c.id: c for c in concepts}
    plan = Plan()
    links = [Link(a.id, b.id, why, aligned=True)
             for group, why in behaviour.groups([c for c in considered if c.format == "ps"])
             for i, a in enumerate(group) for b in group[i + 1:]]
    joined = _Groups()
    for link in links:
        joined.join(link.a, link.b)
    pairs = [p for p in word_pairs(considered, min_overlap) if not joined.together(p.first.id, p.second.id)]
    asked = 0
    for pair in pairs:
        a, b = pair.first, pair.second
        words = f"words and typings alike ({pair.overlap:.2f})"
        if (a.meta or {}) != (b.meta or {}):       # the store refuses it (merges.absorb): no need to ask
            plan.refused.append(f"{label(a)} and {label(b)}: {words}, but their memory method's own fields differ "
                                f"(meta {a.meta or {}} and {b.meta or {}})")
            continue
        if a.helper and b.helper:
            verdict = behaviour.compare(a, b)
            if verdict.same is False:
                plan.refused.append(f"{label(a)} and {label(b)}: {words}, but {verdict.detail}")
                continue
            if verdict.same:
                links.append(Link(a.id, b.id, f"{words}; {verdict.detail}", aligned=True))
                joined.join(a.id, b.id)
                continue
            words += f" (helpers not compared: {verdict.detail})"
        if llm is None or asked >= max_judged:
            why = "no model asked (--no-model)" if llm is None else f"over --max-judged {max_judged}"
            plan.unjudged.append(f"{label(a)} and {label(b)}: {words}; {why}")
            continue
        asked += 1
        answer = judge(llm, a, b)
        if answer.usage is not None:
            plan.usage = plan.usage + answer.usage
        if answer.same is None:
            plan.unjudged.append(f"{label(a)} and {label(b)}: {words}; {answer.error}")
            continue
        plan.judged.append({"first": a.name, "second": b.name, "format": a.format, "overlap": round(pair.overlap, 3),
                            "same": answer.same, "reason": answer.reason})
        if answer.same:
            links.append(Link(a.id, b.id, f"{words}; the model: {answer.reason}"))
            joined.join(a.id, b.id)
    for group in joined.groups():
        merge = _merge_of([by_id[i] for i in group], links, concepts, behaviour, plan.refused)
        if merge.absorbed:
            plan.merges.append(merge)
    plan.stats = {"concepts": len(considered), "formats": wanted, "sandbox_runs": behaviour.runs,
                  "word_pairs": len(pairs), "judged": len(plan.judged), "merges": len(plan.merges),
                  "concepts_merged": sum(len(m.absorbed) for m in plan.merges),
                  "tasks_not_found": sorted(behaviour.inputs.missing), "sandbox_faults": behaviour.faults}
    return plan


def _merge_of(group: list[Concept], links: list[Link], concepts: Sequence[Concept], behaviour,
              refused: list[str]) -> Merge:
    """The group's merge: its survivor, and each member reached from it through accepted members
    whose merge the store would take (the others refused, naming both)."""
    survivor = max(group, key=lambda c: (bool(_callers(c, concepts)), bool(c.helper), len(c.used_in), -c.id))
    merge = Merge(survivor)
    members = {c.id: c for c in group}
    accepted, decided = {survivor.id}, {survivor.id}
    grew = True
    while grew:
        grew = False
        for link in links:
            ends = {link.a, link.b}
            if not ends <= members.keys() or len(ends & accepted) != 1 or ends <= decided:
                continue
            (via,), (new,) = ends & accepted, ends - accepted
            decided.add(new)
            other = members[new]
            problem, aligned = check_merge(survivor, other, link.aligned and via == survivor.id, concepts, behaviour)
            if problem:
                refused.append(problem)
                continue
            accepted.add(new)
            grew = True
            merge.absorbed.append(other)
            merge.why[new] = link.why if via == survivor.id else f"with {label(members[via])}: {link.why}"
            if aligned:
                merge.aligned.add(new)
    return merge


def check_merge(survivor: Concept, other: Concept, aligned: bool, concepts: Sequence[Concept],
                behaviour) -> tuple[str | None, bool]:
    """(why `other` cannot be merged into `survivor`, naming both, or None; whether their helpers
    behave the same). `aligned`: they were shown to already."""
    if other.helper and survivor.helper and not aligned:
        verdict = behaviour.compare(survivor, other)
        if verdict.same is False:
            return f"cannot merge {label(other)} into {label(survivor)}: {verdict.detail}", False
        aligned = bool(verdict.same)
    try:
        absorb(survivor, other, aligned=aligned)
    except MergeRefused as exc:
        return str(exc), aligned
    callers = _callers(other, concepts)
    if callers:
        return (f"cannot merge {label(other)} into {label(survivor)}: its helper {other.helper.name} is called by "
                f"the helpers of {', '.join(repr(c.name) for c in callers)}"), aligned
    return None, aligned


def _callers(concept: Concept, concepts: Sequence[Concept]) -> list[Concept]:
    """The concepts whose helpers call this concept's helper."""
    if not concept.helper:
        return []
    name = concept.helper.name
    return [c for c in concepts if c.helper and name in c.helper.depends and c.id != concept.id]


def apply_plan(memory, plan: Plan, *, actor: str = ACTOR, run_id: str | None = None
               ) -> list[tuple[Merge, Concept | None, str | None]]:
    """Merge each group of the plan (one transaction each): (merge, the survivor after it, None), or
    (merge, None, why the store refused it) when memory changed since the plan."""
    done = []
    for merge in plan.merges:
        try:
            after = memory.merge_concepts(merge.survivor.id, [c.id for c in merge.absorbed], actor=actor,
                                          reasons=merge.why, aligned=merge.aligned, run_id=run_id)
        except MergeRefused as exc:
            done.append((merge, None, str(exc)))
        else:
            done.append((merge, after, None))
    return done


class _Groups:
    """Union-find over concept ids."""

    def __init__(self, ids: Iterable[int] = ()):
        self._parent: dict[int, int] = {i: i for i in ids}

    def _root(self, i: int) -> int:
        self._parent.setdefault(i, i)
        while self._parent[i] != i:
            self._parent[i] = self._parent[self._parent[i]]
            i = self._parent[i]
        return i

    def join(self, a: int, b: int) -> None:
        self._parent[self._root(a)] = self._root(b)

    def together(self, a: int, b: int) -> bool:
        return self._root(a) == self._root(b)

    def groups(self) -> list[list[int]]:
        found: dict[int, list[int]] = {}
        for i in sorted(self._parent):
            found.setdefault(self._root(i), []).append(i)
        return [g for g in found.values() if len(g) > 1]


__all__ = ["Plan", "Merge", "Link", "plan_consolidation", "apply_plan", "check_merge", "consolidated_formats"]
