"""Merging near-duplicate concepts into one, and undoing it: the store's side of consolidation.

A merge folds one concept (the *absorbed*) into another (the *survivor*) by the paper's merge
rule (`data.merge`): used_in, cues and implementation notes are unions, the first non-empty
description and typings stay, parameters merge by name. The survivor keeps its helper, and so
the parameters its helper takes: an absorbed concept's parameter must be one of them by name,
or, when the two helpers were found to behave the same (`aligned`: the same calls give the
same results), the one in the same position. Nothing is lost:

- the absorbed concept is deleted with a revision of op `merged` whose snapshot is its whole
  row (helper included) plus `merged_into` {id, name}, and whose reason names the survivor;
- the survivor's revision, op `merge`, holds its row after the merge plus `merged_from`
  {id, name, revision}, and its reason names the absorbed concept.

A merge is undone (`unmerge`; the CLI's `concepts split` and `revert`) by new revisions of op
`split`, never by rewriting history: the absorbed concept comes back under its own id as it
was, and the survivor loses what the merge brought while keeping what was written to it since
(three-way, field by field, `undone`).

Refused with MergeRefused, naming both concepts, and writing nothing: concepts of different
formats, or whose memory method's own fields (`meta`) differ; an absorbed concept with a
helper when the survivor has none (a helper is named
after its concept); a parameter the survivor's helper does not take; a helper that other
helpers call; undoing a merge that is no longer in force, or whose concept's name is taken.

Usage counts (`ConceptUsage` rows, keyed by concept id) are never rewritten: reads.py's
`usage()` counts an absorbed concept's rows for its survivor while the merge is in force, as
these revisions say (`merged_into`), and for the concept itself again once it is split off.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, NoReturn

from arcmemo.memory.errors import ConceptDataError, MergeRefused, UnknownConcept
from arcmemo.memory.schema import merge_rule as cdata
from arcmemo.memory.schema.concept import DATA_FIELDS, LIST_FIELDS, Concept, utcnow
from arcmemo.memory.store.reads import from_snapshot, revisions_of
from arcmemo.memory.store.revision import Revision
from arcmemo.memory.store.writes import delete_concept, restore_concept

MERGE, MERGED, SPLIT = "merge", "merged", "split"


def label(concept: Concept | Mapping[str, Any]) -> str:
    """How a concept is named in merge messages: 'name' (id N)."""
    name, id_ = (concept.name, concept.id) if isinstance(concept, Concept) else (concept["name"], concept["id"])
    return f"{name!r} (id {id_})"


def absorb(survivor: Concept, other: Concept, *, aligned: bool = False) -> dict[str, Any]:
    """The survivor's data after absorbing `other` (module docstring); MergeRefused naming both
    when that would lose or break something. `aligned`: their helpers behave the same."""
    def refuse(why: str) -> NoReturn:
        raise MergeRefused(f"cannot merge {other.format} concept {label(other)} into {survivor.format} concept "
                           f"{label(survivor)}: {why}")

    if other.id == survivor.id:
        refuse("they are the same concept")
    if other.format != survivor.format:
        refuse("they are of different formats")
    if survivor.format == "sheet":
        refuse("a cheatsheet is one text, there is nothing to merge")
    if (survivor.meta or {}) != (other.meta or {}):
        refuse(f"a memory method's own fields differ (meta {survivor.meta or {}} and {other.meta or {}}: a lesson "
               "from a failure and one from a success, say), and only that method knows how to join them")
    if other.helper and not survivor.helper:
        refuse(f"{other.name!r} has a helper and {survivor.name!r} has none; a helper is named after its concept, "
               f"so merge {survivor.name!r} into {other.name!r} instead")
    old, new = survivor.to_data(), other.to_data()
    merged = cdata.merge(old, new)
    if survivor.helper:
        merged["parameters"] = _helper_parameters(old["parameters"], new["parameters"], aligned, refuse,
                                                  survivor.name, other.name)
    return merged


def _helper_parameters(kept: list[dict], offered: list[dict], aligned: bool, refuse: Callable[[str], NoReturn],
                       survivor: str, other: str) -> list[dict]:
    """The survivor's parameters (those its helper takes), each filled in from the absorbed
    concept's parameter of the same name, or, `aligned`, in the same position."""
    out = [dict(p) for p in kept]
    by_name = {p["name"]: p for p in out}
    for position, param in enumerate(offered):
        target = by_name.get(param["name"])
        if target is None and aligned and position < len(out):
            target = out[position]
        if target is None:
            names = ", ".join(p["name"] for p in kept)
            refuse(f"the helper of {survivor!r} takes ({names}), and {other!r}'s parameter {param['name']!r} is "
                   "none of them")
        for key in ("typing", "description"):
            if not target.get(key) and param.get(key):
                target[key] = param[key]
    return out


def undone(before: Mapping[str, Any], at_merge: Mapping[str, Any], now: Mapping[str, Any]) -> dict[str, Any]:
    """A survivor's data with one merge undone: `before` the merge, `at_merge` right after it,
    `now`. A field nothing changed since the merge goes back to `before`; one changed since
    keeps its value now, and a list keeps the items added since and loses those the merge added."""
    out = {}
    for field in DATA_FIELDS:
        was, merged, current = before.get(field), at_merge.get(field), now.get(field)
        if current == merged:
            out[field] = was
        elif field in LIST_FIELDS:
            was, merged, current = was or [], merged or [], current or []
            out[field] = ([x for x in was if x in current or x not in merged]
                          + [x for x in current if x not in merged and x not in was])
        else:
            out[field] = current
    return out


class ConceptMerges:
    """Merging concepts and undoing merges; mixed into `Memory` (uses its transactions, reads
    and checks)."""

    def merge_concepts(self, into: int, absorbed: Sequence[int], *, actor: str,
                       reasons: Mapping[int, str] | None = None, aligned: Collection[int] = (),
                       run_id: str | None = None) -> Concept:
        """Merge each `absorbed` concept (ids, in order) into the concept with id `into`, all in one
        transaction; the survivor as it is then. `reasons`: why, per absorbed id (kept in both
        revisions); `aligned`: the absorbed ids whose helpers behave as the survivor's.
        MergeRefused (naming both) or UnknownConcept, and nothing written, when one cannot be."""
        with self._write() as session:
            survivor = self._concept_by_id(session, into)
            for other_id in absorbed:
                other = self._concept_by_id(session, other_id)
                data = absorb(survivor, other, aligned=other_id in aligned)
                if other.helper:
                    self._refuse_if_called(session, other, survivor)
                why = f": {reasons[other_id]}" if reasons and reasons.get(other_id) else ""
                revision = self._log(session, other, MERGED, actor=actor, run_id=run_id,
                                     reason=f"merged into {label(survivor)}{why}",
                                     extra={"merged_into": {"id": survivor.id, "name": survivor.name}})
                delete_concept(session.connection(), other.id)
                try:
                    self._check_helper(session, data)
                except ConceptDataError as exc:
                    raise MergeRefused(f"cannot merge {label(other)} into {label(survivor)}: {exc}") from None
                survivor = self._update(session, survivor, data, MERGE, actor=actor, run_id=run_id,
                                        reason=f"{label(other)} merged into it{why}",
                                        extra={"merged_from": {"id": other.id, "name": other.name,
                                                               "revision": revision}})
            self._learn_types(session, survivor.to_data(), actor=actor, run_id=run_id)
            return survivor

    def merges_in_force(self, concept_id: int) -> list[Revision]:
        """The `merge` revisions of a concept whose absorbed concept is still merged, newest first."""
        with self._read() as session:
            return [rev for rev in reversed(self.history(concept_id)) if rev.op == MERGE
                    and self._in_force(session, rev.snapshot["merged_from"]["id"], rev.snapshot["merged_from"]["revision"])]

    def split(self, concept_id: int, *, actor: str, reason: str = "") -> list[tuple[Concept, Concept]]:
        """Undo every merge in force into a concept, newest first, in one transaction: a list of
        (concept restored, survivor after) per merge; MergeRefused when one cannot be undone."""
        with self._write():
            merges = self.merges_in_force(concept_id)
            if not merges:
                concept = self.get(concept_id)
                raise MergeRefused(f"{label(concept) if concept else f'id {concept_id}'}: no concept merged into "
                                   "it is still merged (see `concepts history`)")
            return [self.unmerge(rev.id, actor=actor, reason=reason) for rev in merges]

    def unmerge(self, revision: int, *, actor: str, reason: str = "") -> tuple[Concept, Concept]:
        """Undo the merge recorded at `revision` (its `merge` or its `merged` revision): (the absorbed
        concept, restored as it was under its own id; the survivor without what the merge brought).
        MergeRefused, writing nothing, when it cannot be undone."""
        with self._write() as session:
            absorbed_rev, merge_rev = self._merge_pair(session, revision)
            gone, into = absorbed_rev.snapshot, absorbed_rev.snapshot["merged_into"]
            if not self._in_force(session, gone["id"], absorbed_rev.id):
                later = self._latest_revision(session, gone["id"])
                raise MergeRefused(f"the merge of {label(gone)} into {label(into)} (revision {absorbed_rev.id}) is not "
                                   f"in force: revision {later.id} ({later.op}) came after it")
            survivor = self._one(session, "id = :id", {"id": into["id"]})
            if survivor is None:
                later = self._latest_revision(session, into["id"])
                raise MergeRefused(f"cannot split {label(gone)} out of {label(into)}: {into['name']!r} is gone "
                                   f"(revision {later.id}, {later.op}: {later.reason}); undo that first")
            clash = self._one(session, '"format" = :format AND name = :name', {"format": gone["format"],
                                                                               "name": gone["name"]})
            if clash is not None:
                raise MergeRefused(f"cannot split {label(gone)} out of {label(survivor)}: a concept named "
                                   f"{gone['name']!r} exists again (id {clash.id}); rename or merge it first")
            why = f": {reason}" if reason else ""
            restored = self._restore(session, from_snapshot(gone), actor=actor,
                                     reason=f"split out of {label(survivor)} again, undoing revision {merge_rev.id}{why}")
            before = self._snapshot_before(session, survivor.id, merge_rev.id)
            data = undone(before, merge_rev.snapshot, survivor.to_data())
            try:
                data = cdata.normalize(data, format=survivor.format)
                self._check_helper(session, data)
                self._check_helper(session, restored.to_data())
            except ConceptDataError as exc:
                raise MergeRefused(f"cannot split {label(gone)} out of {label(survivor)}: {exc}") from None
            after = self._update(session, survivor, data, SPLIT, actor=actor,
                                 reason=f"{label(gone)} split out again, undoing revision {merge_rev.id}{why}",
                                 extra={"split_off": {"id": gone["id"], "name": gone["name"],
                                                      "revision": absorbed_rev.id}})
            return restored, after

    # -- inside a write transaction ---------------------------------------------------------

    def _concept_by_id(self, session, concept_id: int) -> Concept:
        concept = self._one(session, "id = :id", {"id": concept_id})
        if concept is None:
            raise UnknownConcept(f"no concept with id {concept_id}")
        return concept

    def _refuse_if_called(self, session, other: Concept, survivor: Concept) -> None:
        """A helper goes with its concept only when no other helper (the survivor's included) calls it."""
        name = other.helper.name
        callers = sorted(owner for owner, h in self._helper_rows(session) if name in h.depends and owner != other.name)
        if callers:
            raise MergeRefused(f"cannot merge {label(other)} into {label(survivor)}: its helper {name} is called by "
                               f"the helpers of {', '.join(map(repr, callers))}")

    def _revision(self, session, revision: int) -> Revision | None:
        found = self._revisions(session, "id = :id", {"id": revision})
        return found[0] if found else None

    def _latest_revision(self, session, concept_id: int) -> Revision:
        return self._revisions(session, "id = (SELECT max(id) FROM conceptrevision WHERE concept_id = :id)",
                               {"id": concept_id})[0]

    def _revisions(self, session, condition: str, params: dict[str, Any]) -> list[Revision]:
        """The revisions meeting `condition` (SQL, sql.py), read in the transaction."""
        with self._reading() as rows:
            return revisions_of(rows, condition, params)

    def _in_force(self, session, absorbed_id: int, merged_revision: int) -> bool:
        """Whether the concept `absorbed_id` is still merged by its revision `merged_revision`."""
        return self._latest_revision(session, absorbed_id).id == merged_revision

    def _merge_pair(self, session, revision: int) -> tuple[Revision, Revision]:
        """(the absorbed concept's `merged` revision, the survivor's `merge` revision) of the merge
        recorded at `revision`, either of the two."""
        rev = self._revision(session, revision)
        if rev is None:
            raise MergeRefused(f"there is no revision {revision}")
        if rev.op == MERGE:
            absorbed = self._revision(session, rev.snapshot["merged_from"]["revision"])
            return absorbed, rev
        if rev.op == MERGED:
            into = rev.snapshot["merged_into"]["id"]
            for other in self._revisions(session, "concept_id = :id AND op = :op", {"id": into, "op": MERGE}):
                if other.snapshot["merged_from"]["revision"] == rev.id:
                    return rev, other
        raise MergeRefused(f"revision {revision} ({rev.op} of {rev.format} concept {rev.name!r}) is not a merge; "
                           "only a merge can be reverted (its `merge` or `merged` revision)")

    def _snapshot_before(self, session, concept_id: int, revision: int) -> dict[str, Any]:
        """A concept's data as it was just before `revision`."""
        earlier = self._revisions(session, "concept_id = :id AND id < :revision", {"id": concept_id, "revision": revision})
        return from_snapshot(earlier[-1].snapshot).to_data()

    def _restore(self, session, concept: Concept, *, actor: str, reason: str) -> Concept:
        """A deleted concept back under its own id, as it was (its creation time and model too)."""
        if self._one(session, "id = :id", {"id": concept.id}) is not None:
            raise MergeRefused(f"cannot restore {label(concept)}: its id is taken")
        restored = Concept.from_data({**concept.snapshot(), "created_at": concept.created_at, "updated_at": utcnow(),
                                      "content_hash": cdata.content_hash(concept.to_data())})
        restore_concept(session.connection(), restored)
        self._log(session, restored, SPLIT, actor=actor, reason=reason)
        self._learn_types(session, restored.to_data(), actor=actor)
        return restored


__all__ = ["ConceptMerges", "MERGE", "MERGED", "SPLIT", "absorb", "undone", "label"]
