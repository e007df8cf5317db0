"""The SQL of concepts and their revisions, written once, as plain SQL that SQLite and
PostgreSQL both run: the column lists, the SELECTs every read of the `concept` and
`conceptrevision` tables starts from, and every INSERT, UPDATE and DELETE on them.

Reads (reads.py, and the reads a write makes) add their conditions with named parameters
(`:name`): `Memory` runs them through SQLAlchemy (`text()`, inside its transaction when there
is one), the lean reader (reader.py) through the standard library's sqlite3, so a read-only
command gets the same rows without loading the database libraries. Writes (writes.py) run
on the driver's own cursor, a batch as one executemany, with the driver's placeholders
(`Marks`) and, on PostgreSQL, JSON text cast to JSON: SQLAlchemy's per-value processing would
cost more than the insert itself.

The columns are the value's (schema/concept.py's CONCEPT_COLUMNS); the table is declared in
rows.py (for the schema's test) and made by the migrations. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from arcmemo.memory.schema.concept import CONCEPT_COLUMNS, DATA_FIELDS

# A revision as the store keeps it (store/revision.py's Revision has these fields, in this order).
REVISION_COLUMNS = ("id", "concept_id", "format", "name", "op", "actor", "reason", "run_id", "task_id", "model",
                    "snapshot", "created_at")
JSON_COLUMNS = frozenset(("parameters", "cues", "implementation", "used_in", "helper", "meta", "snapshot"))
# A new concept's columns: all but the id (the database's, unless given), which writes.py fills in this order.
ROW_COLUMNS = (*DATA_FIELDS, "created_by_model", "content_hash", "created_at", "updated_at")
REVISION_ROW = REVISION_COLUMNS[1:]          # a new revision's
CHANGED_COLUMNS = (*DATA_FIELDS, "content_hash", "updated_at")    # what an edit rewrites


def _names(columns: Iterable[str]) -> str:
    return ", ".join(f'"{name}"' for name in columns)


# -- reads (named parameters) ------------------------------------------------------------------

SELECT_CONCEPTS = f"SELECT {_names(CONCEPT_COLUMNS)} FROM concept"
SELECT_REVISIONS = f"SELECT {_names(REVISION_COLUMNS)} FROM conceptrevision"
LATEST_REVISION = "SELECT max(id) FROM conceptrevision"
CONCEPT_KEYS = 'SELECT id, "format", name FROM concept'
HELPERS = 'SELECT name, helper FROM concept WHERE "format" = :ps AND helper IS NOT NULL'
WRITTEN_SINCE = 'SELECT DISTINCT "format", concept_id FROM conceptrevision WHERE id > :revision'
# An id no concept has ever had (SQLite, writes.py's fresh_concept_id).
FRESH_CONCEPT_ID = ("SELECT max(coalesce((SELECT max(id) FROM concept), 0), "
                    "coalesce((SELECT max(concept_id) FROM conceptrevision), 0)) + 1")


def where(*conditions: str) -> str:
    """A WHERE clause of the conditions given (empty ones left out)."""
    kept = [c for c in conditions if c]
    return f" WHERE {' AND '.join(kept)}" if kept else ""


def one_of(column: str, values: Sequence[Any], prefix: str) -> tuple[str, dict[str, Any]]:
    """`column IN (:prefix0, :prefix1, ...)` and its parameters."""
    params = {f"{prefix}{i}": value for i, value in enumerate(values)}
    return f"{column} IN ({', '.join(f':{name}' for name in params)})", params


def concepts_where(*conditions: str, order: str = " ORDER BY id") -> str:
    """Every column of the concepts meeting the conditions."""
    return f"{SELECT_CONCEPTS}{where(*conditions)}{order}"


# -- writes (the driver's placeholders) --------------------------------------------------------

class Marks:
    """The write statements for one driver: its placeholder (`?` or `%s`) and whether JSON text
    needs a cast (PostgreSQL's JSON columns do not take text as it is). Made once per driver
    (`marks_for`); a plain class, as the read-only commands import this module and never write."""

    def __init__(self, mark: str, postgres: bool):
        self.mark, self.postgres = mark, postgres
        self.new_concepts = self.insert("concept", ROW_COLUMNS)                  # the database gives the id
        self.concepts_with_ids = self.insert("concept", ("id", *ROW_COLUMNS))    # under ids given
        self.revisions = self.insert("conceptrevision", REVISION_ROW)            # a batch
        # one revision; PostgreSQL returns its id (SQLite's cursor has it: lastrowid)
        self.revision = self.insert("conceptrevision", REVISION_ROW, returning="id" if postgres else "")
        changed = ", ".join(f"{_names([c])} = {self._value(c)}" for c in CHANGED_COLUMNS)
        self.change = f"UPDATE concept SET {changed} WHERE id = {mark}"         # one concept's CHANGED_COLUMNS
        self.delete = f"DELETE FROM concept WHERE id = {mark}"

    def _value(self, column: str) -> str:
        return f"CAST({self.mark} AS JSON)" if self.postgres and column in JSON_COLUMNS else self.mark

    def insert(self, table: str, columns: Sequence[str], returning: str = "") -> str:
        values = ", ".join(self._value(c) for c in columns)
        return f"INSERT INTO {table} ({_names(columns)}) VALUES ({values}){f' RETURNING {returning}' if returning else ''}"

    def ids_of(self, count: int) -> str:
        """(id, name) of the concepts of one format with one of `count` names."""
        return f'SELECT id, name FROM concept WHERE "format" = {self.mark} AND name IN ({", ".join([self.mark] * count)})'


@cache
def marks_for(paramstyle: str, dialect: str) -> Marks:
    """The write statements for a driver (SQLAlchemy's dialect: its `paramstyle` and `name`)."""
    return Marks("?" if paramstyle == "qmark" else "%s", postgres=dialect == "postgresql")


__all__ = ["CHANGED_COLUMNS", "CONCEPT_KEYS", "FRESH_CONCEPT_ID", "HELPERS", "JSON_COLUMNS", "LATEST_REVISION", "Marks",
           "REVISION_COLUMNS", "REVISION_ROW", "ROW_COLUMNS", "SELECT_CONCEPTS", "SELECT_REVISIONS", "WRITTEN_SINCE",
           "concepts_where", "marks_for", "one_of", "where"]
