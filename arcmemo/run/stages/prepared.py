"""What a run derives from memory beyond selection, prepared once per memory revision.

Every task of a run needs the same things from memory besides what selection picks: the
concepts' names (selection records name concepts by them), the PS concepts by id and by
name, which helper each concept owns, the helpers' sources to join into a task's
`memory_helpers` module (with the helpers they call), the custom types a hint needs, and
which helpers the probe can try and how their parameters are filled (probe.py). None of
it depends on the task, so a task's cost would otherwise grow with memory size for no
reason.

`prepared(memory)` returns the `Prepared` for the memory's current revision. It stands on
selection's own preparation (`memory.library.library`): a `Prepared` wraps the PS
`Library` of a revision, so the memory is read (and its concepts decoded) only where that
library reads it, once per revision, incrementally after a write; a new library (a write
landed) makes the next call build a new `Prepared`, which takes over the per-concept probe
specs of the concepts the write left as they were. Shared by every task and thread of the
process (a Ray worker prepares its own); treat it as read-only.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property, partial
from typing import Any

from arcmemo.memory.helpers.modules import module_of
from arcmemo.memory.helpers.probing import ProbeSpec, probe_spec
from arcmemo.memory.helpers.value import Helper
from arcmemo.memory.schema.concept import FORMATS
from arcmemo.memory.views.library import Library, library

_WORD = re.compile(r"[A-Za-z_][\w]*")


def typing_words(concept: Any) -> frozenset:
    """The words of a concept's typings (output and parameters): "list[object]" -> list, object."""
    typings = [concept.output_typing or ""] + [str(p.get("typing") or "") for p in concept.parameters or []
                                               if isinstance(p, dict)]
    return frozenset(w for typing in typings if typing for w in _WORD.findall(typing))


class Names(Mapping):
    """id -> name of every concept: looked up by id in the PS library, then in those of the
    other formats (`others()`, fetched on the first id PS does not have), not copied: a new
    revision costs nothing here, and a PS run never reads the other formats. `types`: the
    memory's type names (`types_of()`, Prepared.type_names)."""

    def __init__(self, ps: Library, others: Callable[[], Sequence[Library]] = tuple,
                 types_of: Callable[[], frozenset] = frozenset):
        self._ps, self._others, self._fetched, self._types_of = ps, others, None, types_of

    @property
    def types(self) -> frozenset:
        return self._types_of()

    @property
    def libraries(self) -> list[Library]:
        if self._fetched is None:
            self._fetched = list(self._others())
        return [self._ps, *self._fetched]

    def __getitem__(self, concept_id: int) -> str:
        concept = self._ps.by_id.get(concept_id)
        for lib in ([] if concept is not None else self.libraries[1:]):
            concept = lib.by_id.get(concept_id)
            if concept is not None:
                break
        if concept is None:
            raise KeyError(concept_id)
        return concept.name

    def __iter__(self) -> Iterator[int]:
        return (concept_id for lib in self.libraries for concept_id in lib.by_id)

    def __len__(self) -> int:
        return sum(len(lib) for lib in self.libraries)


class Prepared:
    """The PS memory of one revision (its `Library`) and what the run derives from it.
    `others()`: the same memory's libraries of the other formats (for `names`). What is derived
    per concept (probe specs, typing words) is kept in the library's columns, so a concept a
    write left as it was is not derived again (library.py)."""

    def __init__(self, lib: Library, others: Callable[[], Sequence[Library]] = tuple):
        self.library = lib
        self.revision = lib.revision
        self.names = Names(lib, others, lambda: self.type_names)    # every concept's name, all formats
        self._modules: dict[tuple[str, ...], str] = {}

    @property
    def concepts(self) -> Sequence[Any]:
        """The PS concepts, in memory order."""
        return self.library.concepts

    @property
    def by_id(self) -> Mapping[int, Any]:
        return self.library.by_id

    @property
    def custom_types(self) -> Mapping[str, str]:
        return self.library.custom_types

    @cached_property
    def by_name(self) -> dict[str, int]:
        """PS concept name -> id."""
        return {c.name: c.id for c in self.concepts}

    @cached_property
    def helpers(self) -> dict[str, Helper]:
        """Helper function name -> the helper of its concept."""
        return {c.helper.name: c.helper for c in self.concepts if c.helper}

    @cached_property
    def helper_owner(self) -> dict[str, int]:
        """Helper function name -> the id of the concept it implements."""
        return {c.helper.name: c.id for c in self.concepts if c.helper}

    @cached_property
    def _specs(self) -> list[ProbeSpec | None]:
        """Per concept, in memory order: its probe spec (None: it has no helper, or the probe cannot try it)."""
        specs = self.library.column("probe spec", lambda c: (probe_spec(c) if c.helper else None,))  # None is "not yet"
        return [spec for spec, in specs.all()]

    @cached_property
    def type_names(self) -> frozenset:
        """The memory's type names, lowercase: its custom types and the words of every concept's
        typings (a select model naming one named a type, not a missing concept: run/records/selections.py)."""
        words = self.library.column("typing words", typing_words)
        others = [c for lib in self.names.libraries[1:] for c in lib.concepts]
        # concepts share a few sets of typing words: the distinct sets first, then their union
        names = frozenset(self.custom_types).union(*set(words.all()), *{typing_words(c) for c in others})
        return frozenset(name.lower() for name in names)

    @cached_property
    def probeable(self) -> list[ProbeSpec]:
        """The probe specs of the helpers the probe can try, in memory order."""
        return [spec for spec in self._specs if spec is not None]

    def module(self, names: Iterable[str]) -> str:
        """One module of the named helpers and every helper they call (kept per set of names)."""
        key = tuple(sorted(set(names)))
        if key not in self._modules:
            self._modules[key] = module_of(self.helpers, key)
        return self._modules[key]

    def hint(self, concepts: Sequence[Any]) -> str:
        """The PS hint of these concepts (objects of this revision): as selection renders one,
        with the custom types they need."""
        return self.library.text(self.library.positions(concepts)) if concepts else ""


def _other_formats(memory_ref: weakref.ref) -> list[Library]:
    """The libraries of the formats besides PS (a weak reference: the cache must not keep its memory alive)."""
    memory = memory_ref()
    return [] if memory is None else [library(memory, fmt) for fmt in FORMATS if fmt != "ps"]


_prepared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()      # Memory -> Prepared
_lock = threading.Lock()


def prepared(memory) -> Prepared:
    """The Prepared of `memory` at its current revision (module docstring)."""
    lib = library(memory, "ps")
    with _lock:
        held = _prepared.get(memory)
        if held is not None and held.library is lib:
            return held
        fresh = Prepared(lib, partial(_other_formats, weakref.ref(memory)))
        if not memory.in_transaction():
            _prepared[memory] = fresh
        return fresh


__all__ = ["Names", "Prepared", "prepared", "typing_words"]
