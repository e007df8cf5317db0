"""The concept table as plain rows: SQLAlchemy Core statements and the conversion of a row
(or a revision's snapshot) to a `Concept` value.

No ORM object is built per concept: reading 10,000 concepts is one query and one cheap
conversion per row. JSON and time columns are read as text where the driver leaves them
text (SQLite) and decoded here in one step per row; a driver that decodes them itself
(PostgreSQL) hands over the values, which pass through unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

import sqlalchemy as sa

from arcmemo.memory.files import gc_paused
from arcmemo.memory.models import CONCEPT_COLUMNS, Concept, ConceptRevision, ConceptRow

CONCEPTS: sa.Table = ConceptRow.__table__
REVISIONS: sa.Table = ConceptRevision.__table__
_JSON = ("parameters", "cues", "implementation", "used_in")
_TIMES = ("created_at", "updated_at")
_AS_TEXT = set(_JSON + _TIMES + ("helper",))
_COLUMNS = [sa.type_coerce(CONCEPTS.c[n], sa.Text).label(n) if n in _AS_TEXT else CONCEPTS.c[n]
            for n in CONCEPT_COLUMNS]
# concept_of relies on the order
assert CONCEPT_COLUMNS[7:11] == _JSON and CONCEPT_COLUMNS[13] == "helper" and CONCEPT_COLUMNS[-2:] == _TIMES

_decode = json.JSONDecoder().decode
_FIELDS = frozenset(CONCEPT_COLUMNS)


def select_concepts(*where: Any) -> sa.Select:
    """SELECT every concept column (JSON and times as text) WHERE `where`, ordered by id."""
    return sa.select(*_COLUMNS).where(*where).order_by(CONCEPTS.c.id)


def _time(value: Any) -> datetime | None:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value is not None and value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)  # SQLite keeps UTC times without their zone
    return value


def concept_of(row: Sequence[Any], time_of: Callable[[Any], datetime | None] = _time) -> Concept:
    """A Concept from one row of `select_concepts`."""
    parameters, cues, implementation, used_in = row[7:11]
    if type(parameters) is str and type(cues) is str and type(implementation) is str and type(used_in) is str:
        parameters, cues, implementation, used_in = _decode(f"[{parameters},{cues},{implementation},{used_in}]")
    else:
        parameters, cues, implementation, used_in = (_decode(v) if isinstance(v, str) else v
                                                     for v in (parameters, cues, implementation, used_in))
    helper = row[13]
    if helper is not None and type(helper) is str:
        helper = _decode(helper)      # "null" (or SQL NULL, for rows older than the column): no helper
    return Concept(*row[:7], parameters, cues, implementation, used_in, *row[11:13], helper, *row[14:-2],
                   time_of(row[-2]), time_of(row[-1]))


def _all(rows: Any) -> list:
    return rows.all() if isinstance(rows, sa.Result) else list(rows)  # Result.all() fetches in one call


def concepts_of(rows: sa.Result | Iterable[Sequence[Any]]) -> list[Concept]:
    """Concepts from rows of `select_concepts` (a Result is fetched here)."""
    parsed: dict[Any, datetime | None] = {}  # concepts written together share their times

    def time_of(value: Any) -> datetime | None:
        if value not in parsed:
            parsed[value] = _time(value)
        return parsed[value]

    with gc_paused():  # thousands of new objects, no cycles: nothing for the collector to find
        return [concept_of(row, time_of) for row in _all(rows)]


def from_snapshots(snapshots: sa.Result | Iterable[Any]) -> list[Concept]:
    """Concepts from revision snapshots (a Result of one snapshot column is fetched here)."""
    with gc_paused():
        return [from_snapshot(row[0] if isinstance(snapshots, sa.Result) else row) for row in _all(snapshots)]


def from_snapshot(snapshot: Any) -> Concept:
    """A Concept from a revision's snapshot column (JSON text, or decoded by the driver)."""
    row = _decode(snapshot) if isinstance(snapshot, str) else dict(snapshot)
    for key in _TIMES:
        row[key] = _time(row.get(key))
    return Concept(**{key: value for key, value in row.items() if key in _FIELDS})  # not `offered_helper`


def snapshot_column() -> sa.ColumnElement:
    """The revision snapshot column, read as text where the driver allows."""
    return sa.type_coerce(REVISIONS.c.snapshot, sa.Text)


__all__ = ["CONCEPTS", "REVISIONS", "select_concepts", "concept_of", "concepts_of", "from_snapshot", "from_snapshots",
           "snapshot_column"]
