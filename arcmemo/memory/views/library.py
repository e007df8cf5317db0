"""One format's memory at one revision, prepared once for every prompt that shows it.

Selection (every task) and the PS write prompt (every write) show the memory or a part of
it, within a token budget. What they need from it depends on the memory alone: the
concepts, each one's listing entry in each form (render.py), the custom types it needs,
its words for lexical ranking, and the tokens its entry takes for a given tokenizer. A
`Library` holds these, each computed on first use, and `library(memory, format)` returns
the one for the memory's current revision: shared by every task until a write (every
write appends a revision) makes the next call build a new one. What depends on a single
concept's content (its words, entries and their token counts) is carried over to the new
revision for the concepts the write did not change.

A new revision's library is the previous one with the concepts written since re-read
(every write appends a revision naming the concept it wrote), so the memory is read whole
only once, or after a large change.

The cache never serves a stale memory: the revision number is read before the concepts,
so a write landing in between only makes the library newer than its number (and the next
call, seeing a new number, reads again); a build that fails leaves nothing behind; inside
a write transaction, whose revisions may still roll back, nothing is cached. Other
processes writing the same database are seen through the revision number like any write.

Libraries and the concepts in them are shared: treat them as read-only.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from itertools import accumulate, islice
from typing import Any

from arcmemo.core.estimate import estimate_tokens
from arcmemo.memory.schema.concept import Concept, owner_of
from arcmemo.memory.views import render
from arcmemo.memory.views.lexical import LexicalIndex, Vocabulary, concept_text, tie
from arcmemo.memory.views.links import LinkIndex, links_of


@dataclass(frozen=True)
class Form:
    """How PS concepts are listed (render_ps's keywords): in full, collapsed to the name
    when used in fewer than `collapse_below` tasks, or one line each (`compressed`)."""

    compressed: bool = False
    collapse_below: int = 0

    def collapses(self, concept: Concept) -> bool:
        return not self.compressed and len(concept.used_in or []) < self.collapse_below


FULL = Form()
COMPRESSED = Form(compressed=True)
ALL_TYPES, NEEDED_TYPES = "all", "needed"
CHUNK = 32         # a listing's sizes are summed this many entries further at a time, at least


def _typing_text(concept: Concept) -> str:
    parts = [concept.output_typing or "", concept.routine_subtype or ""]
    parts += [p.get("typing") or "" for p in concept.parameters or []]
    return "\n".join(parts)


class _Column(list):
    """One value per concept position, computed on first use (None: not yet). `carried`:
    (per-position slots, key) where earlier revisions left values for unchanged concepts.
    `inherited`: (values, missing) from the previous revision's column, patched where a write
    changed concepts (Library `changed`); `missing`: the positions that may lack a value (None:
    any may), so reading the whole column computes those alone."""

    def __init__(self, size: int, make: Callable[[int], Any], carried: tuple[list[dict], Any] | None = None,
                 inherited: tuple[list, list[int] | None] | None = None):
        values, self.missing = inherited if inherited is not None else ([None] * size, None)
        super().__init__(values)
        self.make = make
        self.carried = carried

    def at(self, i: int) -> Any:
        value = self[i]
        if value is None:
            value = self[i] = self.make(i)
        return value

    def all(self) -> list:
        """Every position's value (a new revision's index reads a whole column: one call, not one
        per concept; values carried over are taken in one pass, not one call each)."""
        if self.missing is not None:
            for i in self.missing:
                self.at(i)
            self.missing = [i for i in self.missing if self[i] is None]
            return list(self)
        if self.carried is not None:
            slots, key = self.carried
            self[:] = [value if value is not None else slot.get(key) for value, slot in zip(self, slots)]
        values = [value if value is not None else self.at(i) for i, value in enumerate(self)]
        self.missing = [i for i, value in enumerate(values) if value is None]
        return values

    def patched(self, changed: Sequence[int], size: int) -> tuple[list, list[int] | None]:
        """This column's values for a library of `size` whose positions `changed` were written
        (each reset, the new ones past the end added): `inherited` for that library's column."""
        values = list(self) + [None] * (size - len(self))
        for i in changed:
            values[i] = None
        return values, None if self.missing is None else sorted({*self.missing, *changed})


class Library:
    """`concepts` (one format, memory order) and the custom types, with what prompts derive
    from them (see the module docstring). `previous`: the same memory's library at an
    earlier revision, whose per-concept values are carried over for unchanged concepts.
    `changed`: `concepts` are `previous`'s with those at these positions replaced and any past
    its end appended (library() knows what a write changed), so what is kept per position is
    copied and patched, and the lexical index spliced, instead of rebuilt concept by concept."""

    def __init__(self, concepts: Iterable[Concept], custom_types: Mapping[str, str] | None = None, *,
                 revision: int | None = None, previous: Library | None = None, changed: Iterable[int] | None = None):
        self.concepts = tuple(concepts)
        self.custom_types = dict(custom_types or {})
        self.revision = revision
        self._patch: tuple[LexicalIndex, list[int]] | None = None     # (previous index, changed positions)
        self._inherited: dict[Any, tuple[list, list[int] | None]] = {}   # column key -> its inherited values
        # per concept, what was derived from it; an unchanged concept is the same object (library())
        if previous is None:
            self._position = {id(c): i for i, c in enumerate(self.concepts)}
            self._derived: list[dict] = [{} for _ in self.concepts]
            self._vocabulary = Vocabulary()
        elif changed is not None:
            changed = sorted(set(changed))
            self._position, self._derived = previous._position.copy(), previous._derived.copy()
            self._derived += [{} for _ in range(len(self.concepts) - len(previous))]
            for i in changed:
                if i < len(previous):
                    del self._position[id(previous.concepts[i])]
                self._position[id(self.concepts[i])], self._derived[i] = i, {}
            self._vocabulary = previous._vocabulary
            if "index" in previous.__dict__:                 # built: this revision's is spliced from it
                self._patch = (previous.__dict__["index"], changed)
            # the previous revision's columns, as plain values (no reference to it: a chain of
            # revisions would stay alive), taken over where `_column` makes the same one again
            self._inherited = {what: column.patched(changed, len(self.concepts))
                               for what, column in list(previous._columns.items())}
        else:
            self._position = {id(c): i for i, c in enumerate(self.concepts)}
            before, derived = previous._position, previous._derived
            self._derived = [derived[before[id(c)]] if id(c) in before else {} for c in self.concepts]
            self._vocabulary = previous._vocabulary
        self._types_key = tuple(sorted(self.custom_types.items()))
        self._columns: dict[Any, _Column] = {}
        self._fixed: dict[tuple, Any] = {}       # whole listings, counts of headers, notes and type lines
        self._lock = threading.Lock()
        self._kept: dict[Any, Any] = {}          # what other modules derive from this revision (kept())
        self._kept_lock = threading.RLock()

    def __len__(self) -> int:
        return len(self.concepts)

    def _column(self, what: Any, make: Callable[[Concept], Any]) -> _Column:
        """Per position, `make(concept)`: a value depending on that concept's content only,
        kept with the concept across revisions (under the key `what`)."""
        column = self._columns.get(what)
        if column is None:
            def cached(i: int) -> Any:
                slot = self._derived[i]
                if what not in slot:
                    slot[what] = make(self.concepts[i])
                return slot[what]
            column = self._columns[what] = _Column(len(self), cached, carried=(self._derived, what),
                                                   inherited=self._inherited.pop(what, None))
        return column

    def column(self, what: str, make: Callable[[Concept], Any]) -> _Column:
        """`_column` for code outside this module: per position, `make(concept)` (a value of the
        concept's content only), made once per concept and kept across revisions."""
        return self._column(("outside", what), make)

    def kept(self, what: Any, make: Callable[[], Any]) -> Any:
        """`make()`, made once for this revision and kept with it (under the key `what`): a value
        other modules derive from the whole library (a matcher, a view, an index), which lives
        and dies with the revision's library."""
        with self._kept_lock:
            if what not in self._kept:
                self._kept[what] = make()
            return self._kept[what]

    # -- positions ---------------------------------------------------------------------

    @cached_property
    def by_id(self) -> dict[int, Concept]:
        return dict(zip(self._column("id", lambda c: c.id).all(), self.concepts))

    def positions(self, concepts: Iterable[Concept]) -> list[int]:
        """Where these concepts (objects of this library) stand in it."""
        return [self._position[id(c)] for c in concepts]

    def pick(self, positions: Iterable[int]) -> list[Concept]:
        """The concepts at `positions`, in memory order, so renders and ids stay stable."""
        return [self.concepts[i] for i in sorted(set(positions))]

    # -- lexical ranking -------------------------------------------------------------------

    @cached_property
    def index(self) -> LexicalIndex:
        rows, ties = self._column("words", lambda c: self._vocabulary.row(concept_text(c))), self._column("tie", tie)
        if self._patch is not None:
            base, changed = self._patch
            self._patch = None          # not kept: a chain of revisions would keep every index alive
            if not changed:             # a write of another format: the same concepts, the same index
                return base
            return base.patched(self.concepts, {i: (rows.at(i), ties.at(i)) for i in changed})
        return LexicalIndex(self.concepts, rows.all(), self._vocabulary, ties.all())

    def rank(self, query: str) -> Sequence[int]:
        """Positions of all concepts, best lexical match with `query` first (lexical.py)."""
        return self.index.rank(query)

    # -- custom types ----------------------------------------------------------------------

    @cached_property
    def _type_patterns(self) -> dict[str, re.Pattern]:
        return {name: re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])", re.IGNORECASE)
                for name in self.custom_types}

    def _referenced(self, text: str) -> set[str]:
        lowered = text.lower()
        return {name for name, pattern in self._type_patterns.items()
                if name.lower() in lowered and pattern.search(text)}

    @cached_property
    def _type_closure(self) -> dict[str, frozenset]:
        """Each custom type with the types its definition refers to, transitively."""
        direct = {name: self._referenced(d) for name, d in self.custom_types.items()}
        closure = {}
        for name in direct:
            seen, frontier = {name}, [name]
            while frontier:
                new = {t for n in frontier for t in direct[n]} - seen
                seen |= new
                frontier = list(new)
            closure[name] = frozenset(seen)
        return closure

    @cached_property
    def _needs(self) -> _Column:
        """Per position, the custom types the concept's typing fields need."""
        def needs(concept: Concept) -> frozenset:
            names = self._referenced(_typing_text(concept))
            return frozenset().union(*(self._type_closure[n] for n in names))
        if not self.custom_types:
            return _Column(len(self), lambda i: frozenset())
        return self._column(("types", self._types_key), needs)

    def needed_types(self, positions: Iterable[int]) -> dict[str, str]:
        """The custom types the typing fields of these concepts refer to, closed over type definitions."""
        if not self.custom_types:
            return {}
        wanted = frozenset().union(*(self._needs.at(i) for i in positions))
        return {name: d for name, d in self.custom_types.items() if name in wanted}

    # -- listing text ------------------------------------------------------------------------

    def _entries(self, compressed: bool) -> _Column:
        return self._column(("entry", compressed), partial(render.entry, compressed=compressed))

    def entry(self, i: int, form: Form = FULL) -> str:
        """Concept i's lines in a listing of `form` (render.entry)."""
        if form.collapses(self.concepts[i]):
            return render.name_entry(self.concepts[i])
        return self._entries(form.compressed).at(i)

    @cached_property
    def _sections(self) -> _Column:
        return self._column("section", render.section_of)

    def text(self, positions: Iterable[int] | None = None, form: Form = FULL, types: str = NEEDED_TYPES,
             prior: Sequence[float] | None = None) -> str:
        """render_ps of the concepts at `positions` (None: all, the listing kept for the revision)
        with every custom type (`types="all"`) or those they need. `prior` (per position): within
        each section, the higher first, then by name (selection's use prior)."""
        if prior is None and positions is None and ("text", form, types) in self._fixed:
            return self._fixed[("text", form, types)]
        chosen = range(len(self)) if positions is None else set(positions)
        ordered = sorted(chosen, key=self._column("order", render.order_key).at)
        if prior is not None:           # render.listing groups the entries by section, in this order
            ordered.sort(key=lambda i: -prior[i])
        custom = self.custom_types if types == ALL_TYPES else self.needed_types(ordered)
        sections, entries, concepts = self._sections, self._entries(form.compressed), self.concepts
        text = render.listing(((sections[i] or sections.at(i),
                                render.name_entry(concepts[i]) if form.collapses(concepts[i]) else entries[i] or entries.at(i))
                               for i in ordered), custom)
        if positions is None and prior is None:
            self._fixed[("text", form, types)] = text
        return text

    # -- token counts ------------------------------------------------------------------------

    def tokens(self, text: str) -> int:
        """The estimate of `text` (llm.counting), kept for the revision: headers, type lines, notes."""
        key = ("tokens", text)
        if key not in self._fixed:
            self._fixed[key] = estimate_tokens(text)
        return self._fixed[key]

    def _entry_tokens(self, form: Form) -> _Column:
        """Per position, the estimate of the concept's entry in `form`."""
        key = ("entry tokens", form)
        if key not in self._columns:
            entries = self._column(("tokens", form.compressed),
                                   lambda c: estimate_tokens(render.entry(c, compressed=form.compressed)))
            names = self._column(("tokens", "name"), lambda c: estimate_tokens(render.name_entry(c)))
            self._columns[key] = _Column(len(self), lambda i: names.at(i) if form.collapses(self.concepts[i])
                                         else entries.at(i), inherited=self._inherited.pop(key, None))
        return self._columns[key]

    def sizes(self, positions: Sequence[int], form: Form = FULL, types: str = NEEDED_TYPES) -> Callable[[int], int]:
        """n -> the estimate of text(positions[:n], form, types), summed from the kept estimates of
        its parts (exact: the estimate adds up at line ends). Computed as far as asked."""
        return _PrefixSizes(self, positions, form, types)

    def size_within(self, room: int, form: Form = FULL, types: str = ALL_TYPES) -> int | None:
        """The estimate of the whole listing, or None when it exceeds `room`.
        Summed only as far as needed, once for the revision."""
        key = ("whole sizes", form, types)
        with self._lock:                                  # one shared sum, grown by any task
            if key not in self._fixed:
                self._fixed[key] = self.sizes(range(len(self)), form, types)
            size = self._fixed[key]
            for n in range(size.known, len(self) + 1):
                if size(n) > room:
                    return None
            return size(len(self))

    # -- OE lessons --------------------------------------------------------------------------

    def lessons_text(self, positions: Sequence[int] | None = None) -> str:
        """render_oe of the lessons at `positions`, numbered in that order (None: all, kept)."""
        if positions is None:
            if "lessons" not in self._fixed:
                self._fixed["lessons"] = render.render_oe(self.concepts)
            return self._fixed["lessons"]
        return render.render_oe([self.concepts[i] for i in positions])

    def lesson_tokens(self, i: int) -> int:
        """The estimate of lesson i rendered alone (as lesson 1)."""
        return self._column("lesson tokens", lambda c: estimate_tokens(render.render_oe([c]))).at(i)

    # -- links ---------------------------------------------------------------------------------

    @cached_property
    def links(self) -> LinkIndex:
        """Who feeds whom and who was used with whom, for one concept's neighbours (links.py);
        each concept's links are kept with it across revisions."""
        column = self._column("links", links_of)
        return LinkIndex(column.at(i) for i, c in enumerate(self.concepts) if c.format == "ps")


class _PrefixSizes:
    """Estimated tokens of the listings of growing prefixes of `positions` (Library.sizes).

    A listing is its sections' headers, the entries and the custom-types section, joined by
    newlines with a blank line between sections (render.listing); each part is counted once.
    """

    def __init__(self, library: Library, positions: Sequence[int], form: Form, types: str):
        self.library, self.positions = library, positions
        self.tokens = library._entry_tokens(form)
        self.needed = types == NEEDED_TYPES
        self.newline = library.tokens("\n")
        self.sections: set = set()
        self.types: set[str] = set()
        self.sums = [self._add_types(library.custom_types) if not self.needed else 0]

    @property
    def known(self) -> int:
        """The largest n counted so far."""
        return len(self.sums) - 1

    def _add_section(self, heading: str) -> int:
        """What the section's header adds to the listing (a blank line before all but the first)."""
        blank = self.newline if self.sections else 0
        self.sections.add(heading)
        return blank + self.library.tokens(f"## {heading}") + self.newline

    def _add_types(self, names: Iterable[str]) -> int:
        """What the custom types `names` not listed yet add (with the types section's header)."""
        added = 0
        for name in sorted(set(names) - self.types):
            if not self.types:
                added += self._add_section(render.TYPES_SECTION[1])
            self.types.add(name)
            added += self.library.tokens(render.type_entry(name, self.library.custom_types[name])) + self.newline
        return added

    def __call__(self, n: int) -> int:
        if n >= len(self.sums):
            self._extend(min(len(self.positions), max(n, self.known + CHUNK)))
        return self.sums[n]

    def _extend(self, upto: int) -> None:
        """Sums up to `upto`, a chunk at a time: each entry's size plus, where a section header or a
        custom type first appears, what it adds (in a listing's order: header, types, entry)."""
        chunk = self.positions[self.known:upto]
        library, tokens, newline = self.library, self.tokens, self.newline
        sections, needs = library._sections, library._needs
        steps = [(tokens[i] or tokens.at(i)) + newline for i in chunk]
        headings = [(sections[i] or sections.at(i))[1] for i in chunk]
        firsts: dict[int, list[Callable[[], int]]] = {}
        for heading in dict.fromkeys(headings):
            if heading not in self.sections:
                firsts.setdefault(headings.index(heading), []).append(partial(self._add_section, heading))
        if self.needed and library.custom_types:
            for j, i in enumerate(chunk):
                if needs[i] or needs.at(i):
                    firsts.setdefault(j, []).append(partial(self._add_types, needs[i]))
        for j in sorted(firsts):
            steps[j] += sum(add() for add in firsts[j])
        self.sums.extend(islice(accumulate(steps, initial=self.sums[-1]), 1, None))


def needed_types(concepts: Sequence[Concept], custom_types: Mapping[str, str]) -> dict[str, str]:
    """The custom types the concepts' typing fields refer to, closed over type definitions."""
    return Library(concepts, custom_types).needed_types(range(len(concepts)))


_libraries: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # Memory -> {format: Library}
_lock = threading.Lock()
_WRITTEN = ("written since",)       # held's key for the last Memory.written_since (formats are strings)
RESYNC_LIMIT = 200          # more concepts written since the last library: read them all again


def library(memory, format: str = "ps") -> Library:
    """The Library of `memory`'s concepts of `format` at its current revision (module docstring).
    A method's view of memory (store/scoped.py) gets the whole memory's library with only its
    items, made once per revision; the whole library itself when every item is the view's."""
    owners = getattr(memory, "owners", None)
    if owners is not None:
        whole = library(memory.memory, format)
        return whole.kept(("owners", owners), lambda: _owned(whole, owners))
    revision = memory.revision()
    with _lock:
        held = _libraries.setdefault(memory, {})
        current = held.get(format)
        if current is not None and current.revision == revision:
            return current
        fresh = _read(memory, format, revision, current, held)
        if not memory.in_transaction():
            held[format] = fresh
        return fresh


def _owned(whole: Library, owners: frozenset) -> Library:
    """`whole` with only the items of `owners` (itself when they own every one)."""
    kept = [c for c in whole.concepts if owner_of(c) in owners]
    if len(kept) == len(whole.concepts):
        return whole
    return Library(kept, whole.custom_types, revision=whole.revision, previous=whole)


def _written(memory, since: int, revision: int, held: dict) -> list:
    """Memory.written_since(since), asked once for all formats brought up to `revision` (kept
    in `held`; not inside a transaction, whose revisions may roll back and their numbers return)."""
    if memory.in_transaction():
        return memory.written_since(since)
    if held.get(_WRITTEN, (None,))[0] != (since, revision):
        held[_WRITTEN] = ((since, revision), memory.written_since(since))
    return held[_WRITTEN][1]


def _read(memory, format: str, revision: int, current: Library | None, held: dict) -> Library:
    """The library at `revision`: the previous one with the concepts written since re-read
    (Memory.written_since), or, for a first or a large change, every concept read anew."""
    written = _written(memory, current.revision, revision, held) if current is not None else []
    ids = {concept_id for fmt, concept_id in written if fmt == format}
    if current is None or len(ids) > RESYNC_LIMIT:
        return Library(memory.list(format), memory.custom_types() if format == "ps" else {}, revision=revision,
                       previous=current)
    found = {concept_id: memory.get(concept_id) for concept_id in sorted(ids)}
    types = memory.custom_types() if format == "ps" and any(fmt == "type" for fmt, _ in written) else current.custom_types
    last = current.concepts[-1].id if current.concepts else -1
    if all(concept is not None and (concept_id in current.by_id or concept_id > last)
           for concept_id, concept in found.items()):
        # edited in place or added after the last: positions stand, the new ones go at the end
        ordered = current.by_id.copy()
        ordered.update(found)
        added = [i for i in found if i not in current.by_id]
        positions = current.positions(current.by_id[i] for i in found if i in current.by_id)
        positions += range(len(current), len(current) + len(added))
        fresh = Library(ordered.values(), types, revision=revision, previous=current, changed=positions)
    else:
        by_id = dict(current.by_id)
        for concept_id, concept in found.items():
            if concept is None:
                by_id.pop(concept_id, None)        # deleted since
            else:
                by_id[concept_id] = concept
        ordered = {concept_id: by_id[concept_id] for concept_id in sorted(by_id)}   # the ids alone: pairs sort far slower
        fresh = Library(ordered.values(), types, revision=revision, previous=current)
    fresh.by_id = ordered                          # known already (cached_property's slot)
    return fresh


__all__ = ["Library", "Form", "FULL", "COMPRESSED", "ALL_TYPES", "NEEDED_TYPES", "library", "needed_types"]
