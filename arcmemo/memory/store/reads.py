"""The store's reads of concepts (and of their usage counts and revisions), in the plain SQL of
sql.py that SQLite and PostgreSQL both run, and the conversion of their rows to `Concept` values.

`Memory` runs them through SQLAlchemy (inside its transaction when there is one: a write reads
the rows it is about the same way); the lean `reader.SQLiteReader` runs them through the
standard library's sqlite3, so a read-only command answers without loading the database
libraries. Either way the same statements give the same concepts.

No ORM object is built per concept: reading 10,000 concepts is one query and one cheap
conversion per row. JSON and time columns arrive as text where the driver leaves them
text (SQLite) and are decoded here in one step per row; a driver that decodes them itself
(PostgreSQL) hands over the values, which pass through unchanged.

What only some reads need (names.py's lookup, links.py's index, revisions) is imported in
those methods, so a listing or a search starts without building it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from arcmemo.memory.errors import ConceptDataError
from arcmemo.memory.schema.concept import CONCEPT_COLUMNS, FORMATS, Concept, Helper
from arcmemo.memory.store.gcpause import gc_paused
from arcmemo.memory.store.sql import (
    CONCEPT_KEYS,
    LATEST_REVISION,
    SELECT_CONCEPTS,
    SELECT_REVISIONS,
    concepts_where,
    one_of,
    where,
)

if TYPE_CHECKING:
    from arcmemo.memory.store.revision import Revision
    from arcmemo.memory.views.links import LinkIndex

# Runs one statement with named parameters (`:name`) and returns its rows.
Rows = Callable[[str, dict[str, Any]], list[Sequence[Any]]]

_TIMES = ("created_at", "updated_at")
_decode = json.JSONDecoder().decode
_FIELDS = frozenset(CONCEPT_COLUMNS)
_SEARCH_FIELDS = ("name", "description", "cues", "implementation", "situation", "suggestion")
_LIKE_ESCAPE = str.maketrans({"/": "//", "%": "/%", "_": "/_"})
COUNTERS = ("offered", "called", "called_passing", "solved", "offered_passing")   # what the run counts
JUDGED = ("helpful", "harmful")                 # what the memory method judged (usage.py: record_judgement)


@dataclass
class ConceptUse:
    """One concept's use in one task (a row: 0 or 1 each), or counts summed over tasks (usage.py)."""

    offered: int = 0
    called: int = 0
    called_passing: int = 0
    solved: int = 0
    offered_passing: int = 0        # offered to a task that passed its train pairs
    helpful: int = 0
    harmful: int = 0

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in (*COUNTERS, *JUDGED)}


def _time(value: Any) -> datetime | None:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value is not None and value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)  # SQLite keeps UTC times without their zone
    return value


def concept_of(row: Sequence[Any], time_of: Callable[[Any], datetime | None] = _time) -> Concept:
    """A Concept from one row of every concept column in CONCEPT_COLUMNS order (the positions below
    are those columns': tests/test_concept_shape.py holds them)."""
    parameters, cues, implementation, used_in = row[7:11]
    if type(parameters) is str and type(cues) is str and type(implementation) is str and type(used_in) is str:
        parameters, cues, implementation, used_in = _decode(f"[{parameters},{cues},{implementation},{used_in}]")
    else:
        parameters, cues, implementation, used_in = (_decode(v) if isinstance(v, str) else v
                                                     for v in (parameters, cues, implementation, used_in))
    helper, meta = row[13], row[15]
    if helper is not None:
        if type(helper) is str:
            helper = _decode(helper)  # "null" (or SQL NULL, for rows older than the column): no helper
        if helper is not None:
            helper = Helper.from_data(helper)
    if meta is not None and type(meta) is str:
        meta = _decode(meta)
    return Concept(*row[:7], parameters, cues, implementation, used_in, *row[11:13], helper, row[14], meta,
                   *row[16:-2], time_of(row[-2]), time_of(row[-1]))


def concepts_of(rows: Iterable[Sequence[Any]]) -> list[Concept]:
    """Concepts from rows of every concept column."""
    parsed: dict[Any, datetime | None] = {}  # concepts written together share their times

    def time_of(value: Any) -> datetime | None:
        if value not in parsed:
            parsed[value] = _time(value)
        return parsed[value]

    with gc_paused():  # thousands of new objects, no cycles: nothing for the collector to find
        return [concept_of(row, time_of) for row in rows]


def from_snapshot(snapshot: Any) -> Concept:
    """A Concept from a revision's snapshot column (JSON text, or decoded by the driver)."""
    row = _decode(snapshot) if isinstance(snapshot, str) else dict(snapshot)
    for key in _TIMES:
        row[key] = _time(row.get(key))
    if row.get("helper"):
        row["helper"] = Helper.from_data(row["helper"])
    return Concept(**{key: value for key, value in row.items() if key in _FIELDS})  # not `offered_helper`


def from_snapshots(snapshots: Iterable[Any]) -> list[Concept]:
    with gc_paused():
        return [from_snapshot(snapshot) for snapshot in snapshots]


def revisions_of(rows: Rows, condition: str, params: dict[str, Any]) -> list[Revision]:
    """The revisions meeting `condition` (SQL on the revision table's columns), oldest first."""
    from arcmemo.memory.store.revision import Revision

    return [Revision(*row[:10], _decode(row[10]) if isinstance(row[10], str) else row[10], _time(row[11]))
            for row in rows(f"{SELECT_REVISIONS}{where(condition)} ORDER BY id", params)]


# A concept no revision after `as_of` touched is as its row is now (a revision's snapshot is the
# row it wrote); only the others are rebuilt from their latest snapshot up to `as_of`.
_TOUCHED = "SELECT concept_id FROM conceptrevision WHERE id > :as_of AND concept_id IS NOT NULL"
_UNCHANGED = f"id NOT IN ({_TOUCHED})"
_REBUILT = (f"id IN (SELECT max(id) FROM conceptrevision WHERE id <= :as_of AND concept_id IN ({_TOUCHED}) "
            "GROUP BY concept_id) AND op NOT IN (:delete, :merged)")    # a merged-away concept is gone too


def _list_params(format: str | None, as_of: int | None) -> dict[str, Any]:
    if format is not None and format not in FORMATS:
        raise ConceptDataError(f"format: must be one of {', '.join(FORMATS)}, got {format!r}", "format")
    return {"format": format, "as_of": as_of, "delete": "delete", "merged": "merged"}


def _contains(word: str) -> str:
    """A LIKE pattern (escape character '/') matching text that contains `word`."""
    return f"%{word.translate(_LIKE_ESCAPE)}%"


def _usage_merged(merged: dict[int, int], where: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The usage sums with each merged-away concept's rows counted for its survivor: per task, a
    concept's rows and those merged into it are one row (each counter true if any was)."""
    params = {**params, **{f"a{i}": a for i, a in enumerate(merged)}, **{f"s{i}": s for i, s in enumerate(merged.values())}}
    mapped = ("CASE concept_id " + " ".join(f"WHEN :a{i} THEN :s{i}" for i in range(len(merged)))
              + " ELSE concept_id END")
    per_task = ", ".join(f"max(CAST({name} AS INTEGER)) AS {name}" for name in (*COUNTERS, *JUDGED))
    sums = ", ".join(f"sum({name})" for name in (*COUNTERS, *JUDGED))
    return (f"SELECT concept_id, {sums} FROM (SELECT {mapped} AS concept_id, {per_task} FROM conceptusage{where} "
            f"GROUP BY run_id, pass_index, task_id, {mapped}) per_task GROUP BY concept_id", params)


class ConceptReads:
    """The read-only queries on concepts. A subclass supplies `_reading()`: a context giving a
    `Rows` function whose statements all see one state of the database."""

    def _reading(self) -> AbstractContextManager[Rows]:
        raise NotImplementedError

    def list(self, format: str | None = None, *, as_of: int | None = None) -> list[Concept]:
        """All concepts (of one format), ordered by id; `as_of=N`: as they were after revision N."""
        params = _list_params(format, as_of)
        of_format = '"format" = :format' if format is not None else ""
        with self._reading() as rows:
            if as_of is None:
                return concepts_of(rows(concepts_where(of_format), params))
            unchanged = concepts_of(rows(concepts_where(_UNCHANGED, of_format), params))
            rebuilt = from_snapshots(row[0] for row in rows(f"SELECT snapshot FROM conceptrevision{where(_REBUILT, of_format)}",
                                                            params))
        return sorted(unchanged + rebuilt, key=lambda c: c.id) if rebuilt else unchanged

    def by_name(self, format: str | None = None, *, as_of: int | None = None, chunk: int = 500) -> Iterator[Concept]:
        """The concepts `list` gives, in (format, name) order, read `chunk` at a time: what an
        export streams, holding one chunk of concepts at a time however large the memory. The
        reads all see one state of the database (one read transaction, open until the end)."""
        params = _list_params(format, as_of)
        of_format = '"format" = :format' if format is not None else ""
        with self._reading() as rows:
            if as_of is None:
                keys = [(f, n, i, False) for i, f, n in rows(f"{CONCEPT_KEYS}{where(of_format)}", params)]
            else:
                keys = [(f, n, i, False) for i, f, n in
                        rows(f"{CONCEPT_KEYS}{where(_UNCHANGED, of_format)}", params)]
                keys += [(f, n, i, True) for i, f, n in
                         rows(f'SELECT id, "format", name FROM conceptrevision{where(_REBUILT, of_format)}', params)]
            keys.sort()
            for start in range(0, len(keys), chunk):
                part = keys[start:start + chunk]
                found = {}
                for from_revision in (False, True):
                    some = [key[2] for key in part if key[3] is from_revision]
                    if not some:
                        continue
                    ids, params = one_of("id", some, "i")
                    if from_revision:
                        snapshots = rows(f"SELECT id, snapshot FROM conceptrevision WHERE {ids}", params)
                        found.update(((True, i), c) for (i, _), c in zip(snapshots, from_snapshots(s for _, s in snapshots)))
                    else:
                        found.update(((False, c.id), c) for c in concepts_of(rows(concepts_where(ids, order=""), params)))
                yield from (found[(key[3], key[2])] for key in part)

    def links(self) -> LinkIndex:
        """The link index of the PS concepts (links.py), read from only the columns links are made
        of: what one concept's neighbours need, without reading every concept whole."""
        from arcmemo.memory.views.links import Linked, LinkIndex, links_of

        with self._reading() as rows:
            found = rows('SELECT id, name, kind, output_typing, parameters, used_in FROM concept '
                         'WHERE "format" = :ps ORDER BY id', {"ps": "ps"})
        with gc_paused():
            return LinkIndex(links_of(Linked(id_, name, kind, typing, *(_decode(v) if isinstance(v, str) else v
                                                                       for v in (parameters, used_in))))
                             for id_, name, kind, typing, parameters, used_in in found)

    def search(self, query: str, format: str | None = None, limit: int = 20) -> list[Concept]:
        """Case-insensitive match of every word of `query` in name, description, cues,
        implementation notes, situation or suggestion. Name hits rank first, then by id."""
        words = query.lower().split()
        if not words:
            return []
        params: dict[str, Any] = {f"w{i}": _contains(word) for i, word in enumerate(words)}
        phrase = " ".join(words)
        params.update(phrase=phrase, phrase_in=_contains(phrase), format=format, limit=limit)

        def text(field: str) -> str:
            return f'lower(CAST("{field}" AS TEXT))' if field in ("cues", "implementation") else f'lower("{field}")'

        each_word = [" OR ".join(f"{text(f)} LIKE :w{i} ESCAPE '/'" for f in _SEARCH_FIELDS) for i in range(len(words))]
        of_format = '"format" = :format' if format is not None else ""
        any_word = " OR ".join(f"lower(\"name\") LIKE :w{i} ESCAPE '/'" for i in range(len(words)))
        rank = ("CASE WHEN lower(\"name\") = :phrase THEN 0 WHEN lower(\"name\") LIKE :phrase_in ESCAPE '/' THEN 1 "
                f"WHEN ({any_word}) THEN 2 ELSE 3 END")
        sql = f"{SELECT_CONCEPTS}{where(*(f'({w})' for w in each_word), of_format)} ORDER BY {rank}, id LIMIT :limit"
        with self._reading() as rows:
            return concepts_of(rows(sql, params))

    def find(self, ref: int | str, format: str | None = None) -> Concept:
        """The concept a person means by `ref`: an id, an exact name, or a name typed loosely
        (case, spaces, `_`, `-` ignored), in any format unless one is given (see names.py).
        UnknownConcept, with the close names, when it is not there or not unique."""
        from arcmemo.memory.store.names import Entry, resolve

        name = str(ref).strip()
        with self._reading() as rows:
            if not name.isdigit():
                of_format = '"format" = :format' if format is not None else ""
                exact = concepts_of(rows(concepts_where("name = :name", of_format, order=" ORDER BY id LIMIT 2"),
                                         {"name": name, "format": format}))
                if len(exact) == 1:
                    return exact[0]
            entries = [Entry(*row) for row in rows(f"{CONCEPT_KEYS} ORDER BY id", {})]
            return concepts_of(rows(concepts_where("id = :id", order=""), {"id": resolve(ref, entries, format)}))[0]

    def usage(self, *, run_id: str | None = None, concept_ids: Iterable[int] | None = None,
              as_of_revision: bool = False) -> dict[int, ConceptUse]:
        """Counts per concept id, over every run or one run's tasks (usage.py records them).
        `as_of_revision`: only the rows recorded before the newest revision was written, so the
        counts stay the same until memory next changes (what selection's use prior reads). The rows
        of a concept merged into another count for that one while merged (`merged_into`), a task
        at most once for it."""
        ids = None if concept_ids is None else list(concept_ids)
        if ids == []:
            return {}
        with self._reading() as rows:
            merged = self._merged_into(rows)
            wanted = None if ids is None else set(ids)
            if wanted is not None:
                merged = {absorbed: survivor for absorbed, survivor in merged.items() if survivor in wanted}
                ids += list(merged)
            of_ids, params = one_of("concept_id", ids, "c") if ids else ("", {})
            params["run_id"] = run_id
            clause = where("run_id = :run_id" if run_id is not None else "", of_ids,
                           "created_at <= (SELECT created_at FROM conceptrevision ORDER BY id DESC LIMIT 1)"
                           if as_of_revision else "")
            sums = ", ".join(f"sum(CAST({name} AS INTEGER))" for name in (*COUNTERS, *JUDGED))
            if merged:
                found = rows(*_usage_merged(merged, clause, params))
            else:
                found = rows(f"SELECT concept_id, {sums} FROM conceptusage{clause} GROUP BY concept_id", params)
        return {concept_id: ConceptUse(*(int(v or 0) for v in counts)) for concept_id, *counts in found
                if wanted is None or concept_id in wanted}

    def usage_run_ids(self) -> set[str]:
        """The runs whose concept use this memory recorded (the runs that wrote it; a read-only run
        keeps its use in its own task events: run/records/concept_use.py)."""
        with self._reading() as rows:
            return {str(run_id) for (run_id,) in rows("SELECT DISTINCT run_id FROM conceptusage", {})}

    def merged_into(self) -> dict[int, int]:
        """Concept id -> the id of the concept it is merged into now (consolidation, merges.py),
        followed to the one that stands. Read from the merge revisions: a concept whose latest
        revision is `merged`; one split off again has a newer revision."""
        with self._reading() as rows:
            return self._merged_into(rows)

    def _merged_into(self, rows: Rows) -> dict[int, int]:
        """`merged_into`, kept per memory revision (a read of every merge otherwise)."""
        revision = self._revision_within(rows)
        kept = getattr(self, "_merged_into_kept", None)
        if kept is not None and kept[0] == revision:
            return kept[1]
        found = rows("SELECT r.concept_id, r.snapshot FROM conceptrevision r WHERE r.op = :merged AND r.id = "
                     "(SELECT max(id) FROM conceptrevision WHERE concept_id = r.concept_id)", {"merged": "merged"})
        step = {concept_id: (_decode(s) if isinstance(s, str) else s)["merged_into"]["id"] for concept_id, s in found}
        merged = {}
        for absorbed, survivor in step.items():
            seen = {absorbed}
            while survivor in step and survivor not in seen:      # merged into one merged later itself
                seen.add(survivor)
                survivor = step[survivor]
            merged[absorbed] = survivor
        self._merged_into_kept = (revision, merged)
        return merged

    def history(self, ref: int | str | None = None, format: str | None = "ps") -> list[Revision]:
        """Revisions oldest first: all of them, or those of one concept (by id, or by any name it
        had, in `format` or, with None, in any format)."""
        params: dict[str, Any] = {"ref": ref, "format": format}
        if isinstance(ref, int) and not isinstance(ref, bool):
            clause = "concept_id = :ref"
        elif ref is not None:
            of_format = ' AND "format" = :format' if format is not None else ""
            clause = f"concept_id IN (SELECT concept_id FROM conceptrevision WHERE name = :ref{of_format})"
        else:
            clause = ""
        with self._reading() as rows:
            return revisions_of(rows, clause, params)

    def revision(self) -> int:
        """The latest revision number (0 for an empty store)."""
        with self._reading() as rows:
            return self._revision_within(rows)

    def _revision_within(self, rows: Rows) -> int:
        """`revision()` inside a read already open (a store that knows it more cheaply says so)."""
        return rows(LATEST_REVISION, {})[0][0] or 0

    def custom_types(self, *, as_of: int | None = None) -> dict[str, str]:
        """name -> definition, sorted by name."""
        with self._reading() as rows:
            if as_of is None:
                return dict(sorted(tuple(row) for row in rows("SELECT name, definition FROM customtype", {})))
            found = {name: (_decode(snapshot) if isinstance(snapshot, str) else snapshot)["definition"]
                     for name, snapshot in rows("SELECT name, snapshot FROM conceptrevision WHERE \"format\" = "
                                                ":type AND id <= :as_of ORDER BY id", {"type": "type", "as_of": as_of})}
            return dict(sorted(found.items()))


__all__ = ["ConceptReads", "ConceptUse", "COUNTERS", "JUDGED", "Rows", "concept_of", "concepts_of", "from_snapshot",
           "from_snapshots", "revisions_of"]
