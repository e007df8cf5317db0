"""Memory as one memory method sees it (`MethodMemory`): its own items, and those of the methods it
reads from on purpose; what it writes is its own.

Each method owns the items it shows the model: an item belongs to the method its meta names
("method"), else to its format's owner (schema/concept.py DEFAULT_OWNER: ps concepts to ps,
OE lessons to oe, the sheet to cheatsheet, the playbook to ace, ...). A run hands its method
this view, so ArcMemo-OE never shows a lesson a ps run wrote from a failure, `none` and a
third-party method do not write into ps's concepts, and consolidation merges within one
method's items. What is shared stays shared: the revision, the custom types, the usage
counters and the records of writes, and memory's verified helpers (the run's probe reads the
whole memory, not this view).

Reads go through the same per-revision libraries (views/library.py): a view's library of a
format is the whole memory's, filtered once per revision, and is the whole one itself when
every item of the format is the view's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arcmemo.memory.errors import ConceptExists, MergeRefused, UnknownConcept
from arcmemo.memory.schema.concept import DEFAULT_OWNER, Concept, owner_of


class MethodMemory:
    """`memory` as method `owner` sees it: the items of `owner` and of `reads_from`; writes stamped
    as `owner`'s (module docstring). Everything else is the memory's own (revision, usage, records)."""

    def __init__(self, memory: Any, owner: str, reads_from: Iterable[str] = (), *, source: str | None = None):
        self.memory = memory
        self.owner = owner
        self.owners = frozenset({owner, *reads_from})
        self.source = source        # what every item written through it is from (seeding: "human"), if set

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)

    def __repr__(self) -> str:
        return f"MethodMemory({self.memory!r}, {self.owner!r}, reads {sorted(self.owners)})"

    def sees(self, item: Any) -> bool:
        return owner_of(item) in self.owners

    # -- reads -------------------------------------------------------------------------------
    def list(self, format: str | None = None, **kwargs: Any) -> list[Concept]:
        return [c for c in self.memory.list(format, **kwargs) if self.sees(c)]

    def get(self, ref: int | str, format: str = "ps") -> Concept | None:
        concept = self.memory.get(ref, format)
        return concept if concept is not None and self.sees(concept) else None

    # -- writes ------------------------------------------------------------------------------
    def stamped(self, data: dict[str, Any]) -> dict[str, Any]:
        """`data` as this method's item: its meta names the method unless the format's owner is it."""
        if DEFAULT_OWNER.get(data.get("format", "ps")) == self.owner:
            return data
        return {**data, "meta": {**(data.get("meta") or {}), "method": self.owner}}

    def _claim(self, data: dict[str, Any]) -> dict[str, Any]:
        """The stamped data, refused (ConceptExists) when its name is another method's item's: a write
        never lands in an item another method owns."""
        data = self.stamped(data)
        if self.source is not None:
            data = {**data, "source": self.source}
        name = data.get("name")
        if name:
            existing = self.memory.get(name, data.get("format", "ps"))
            if existing is not None and owner_of(existing) != self.owner:
                raise ConceptExists(f"{existing.format} item {name!r} belongs to method {owner_of(existing)!r}, "
                                    f"not {self.owner!r}: a method writes only its own items")
        return data

    def _sourced(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {**kwargs, "source": self.source} if self.source is not None else kwargs

    def add(self, data: dict[str, Any], **kwargs: Any) -> Concept:
        return self.memory.add(self._claim(data), **self._sourced(kwargs))

    def merge(self, data: dict[str, Any], **kwargs: Any) -> Any:
        return self.memory.merge(self._claim(data), **self._sourced(kwargs))

    def merge_many(self, items: list[tuple[dict, str | None]], **kwargs: Any) -> dict:
        return self.memory.merge_many([(self._claim(data), model) for data, model in items], **self._sourced(kwargs))

    def _own(self, ref: int | str, format: str) -> Concept:
        concept = self.memory.get(ref, format)
        if concept is None or not self.sees(concept):
            what = f"item {ref}" if isinstance(ref, int) else f"{format} item {ref!r}"
            raise UnknownConcept(f"no {what} of method {self.owner!r}")
        if owner_of(concept) != self.owner:
            raise ConceptExists(f"{concept.format} item {concept.name!r} belongs to method {owner_of(concept)!r}: "
                                f"{self.owner!r} reads it but may not change it")
        return concept

    def edit(self, ref: int | str, changes: dict[str, Any], *, format: str = "ps", **kwargs: Any) -> Concept:
        self._own(ref, format)
        return self.memory.edit(ref, changes, format=format, **kwargs)

    def delete(self, ref: int | str, *, format: str = "ps", **kwargs: Any) -> None:
        self._own(ref, format)
        self.memory.delete(ref, format=format, **kwargs)

    def merge_concepts(self, survivor: int, absorbed: list[int], **kwargs: Any) -> Any:
        """A consolidation's merge, within this method's own items (MergeRefused otherwise)."""
        try:
            for concept_id in (survivor, *absorbed):
                self._own(concept_id, "ps")
        except (ConceptExists, UnknownConcept) as exc:
            raise MergeRefused(str(exc)) from None
        return self.memory.merge_concepts(survivor, absorbed, **kwargs)


def method_memory(memory: Any, owner: str, reads_from: Iterable[str] = (), *, source: str | None = None
                  ) -> MethodMemory:
    """`memory` as `owner` sees it (a view of a view sees through to the memory underneath)."""
    if isinstance(memory, MethodMemory):
        memory = memory.memory
    return MethodMemory(memory, owner, reads_from, source=source)


__all__ = ["MethodMemory", "method_memory"]
