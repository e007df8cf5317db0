"""Every write of a concept row or a revision row, one statement of sql.py each, inside the
caller's transaction: new concepts (one, or an import's thousands), a concept restored under
its own id, an edit, a delete, and the revision each write appends.

Values go to the driver as they are, with no per-value type processing (SQLAlchemy's JSON and
time types would encode every value a second time): each JSON column is encoded once, and a
new concept's revision snapshot (the row as `Concept.snapshot()` gives it) is assembled from
those encodings instead of encoding the row again. What is stored is the same whatever the
write: JSON text with `ensure_ascii=False` (searchable with LIKE), "null" for no helper or
meta, times as SQLAlchemy keeps a DateTime in SQLite (UTC; a PostgreSQL driver takes them
as they are).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from arcmemo.memory.schema import rules as schema
from arcmemo.memory.schema.concept import DATA_FIELDS, Concept
from arcmemo.memory.store.sql import FRESH_CONCEPT_ID, JSON_COLUMNS, ROW_COLUMNS, Marks, marks_for

encode = json.JSONEncoder(ensure_ascii=False).encode   # the store's JSON text (memory.make_engine's serializer too)
_SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"                  # how SQLAlchemy keeps a DateTime in SQLite
_IS_JSON = tuple(field in JSON_COLUMNS for field in DATA_FIELDS)
_KEYS = tuple(f'"{column}": ' for column in ROW_COLUMNS)


def _marks(conn: Connection) -> Marks:
    return marks_for(conn.dialect.paramstyle, conn.dialect.name)


def _time(conn: Connection, when: datetime) -> Any:
    return when.strftime(_SQLITE_TIME) if conn.dialect.name == "sqlite" else when


def _value(value: Any, text=json.encoder.encode_basestring) -> str:
    """`encode(value)`, with text and None (most of a row) taken the short way."""
    if type(value) is str:
        return text(value)
    return "null" if value is None else encode(value)


def _data_values(data: Mapping[str, Any]) -> tuple[list[Any], list[str]]:
    """A concept's data fields as the driver takes them (JSON columns as their text), and every
    one of them as JSON text (what its snapshot holds), both in DATA_FIELDS order."""
    encoded = [_value(data[field]) for field in DATA_FIELDS]
    return [e if is_json else data[f] for f, e, is_json in zip(DATA_FIELDS, encoded, _IS_JSON)], encoded


class _Row:
    """A new concept's row as the driver takes it (`values`, ROW_COLUMNS order) and as JSON text
    per column (`encoded`), which its revision's snapshot is assembled from."""

    __slots__ = ("values", "encoded")

    def __init__(self, data: dict, model: str | None, when: str, stamp: Any):
        values, encoded = _data_values(data)
        digest = schema.content_hash(data)
        self.values = (*values, model, digest, stamp, stamp)
        time = _value(when)
        self.encoded = (*encoded, _value(model), _value(digest), time, time)

    def snapshot(self, concept_id: int) -> str:
        """The row as JSON, keys in CONCEPT_COLUMNS order: json.dumps(Concept.snapshot()) without encoding it again."""
        return f'{{"id": {concept_id}, ' + ", ".join(map(str.__add__, _KEYS, self.encoded)) + "}"


def insert_concepts(conn: Connection, items: list[tuple[dict, str | None]], *, op: str, actor: str, reason: str,
                    run_id: str | None, when: datetime, task_id: str | None = None, chunk: int = 2000) -> list[int]:
    """Insert new concepts (normalised data, model) and one revision each, in chunks; their ids,
    in order. On SQLite the ids are given (fresh_concept_id); elsewhere they are read back by
    (format, name), which is unique (no RETURNING: slow for executemany)."""
    marks = _marks(conn)
    first_id = fresh_concept_id(conn)
    stamp, iso = _time(conn, when), when.isoformat()
    ids: list[int] = []
    for start in range(0, len(items), chunk):
        part = items[start:start + chunk]
        rows = [_Row(data, model, iso, stamp) for data, model in part]
        if first_id is None:
            conn.exec_driver_sql(marks.new_concepts, [row.values for row in rows])
            by_key = _ids(conn, marks, [data for data, _ in part])
            part_ids = [by_key[(data["format"], data["name"])] for data, _ in part]
        else:
            part_ids = list(range(first_id + start, first_id + start + len(part)))
            conn.exec_driver_sql(marks.concepts_with_ids, [(i, *row.values) for i, row in zip(part_ids, rows)])
        conn.exec_driver_sql(marks.revisions, [
            (concept_id, data["format"], data["name"], op, actor, reason or "", run_id, task_id, model,
             row.snapshot(concept_id), stamp) for concept_id, (data, model), row in zip(part_ids, part, rows)])
        ids += part_ids
    return ids


def restore_concept(conn: Connection, concept: Concept) -> None:
    """A concept's row back under its own id, as it is (its times and model included)."""
    values, _ = _data_values(concept.to_data())
    conn.exec_driver_sql(_marks(conn).concepts_with_ids, (concept.id, *values, concept.created_by_model,
                                                          concept.content_hash, _time(conn, concept.created_at),
                                                          _time(conn, concept.updated_at)))


def change_concept(conn: Connection, concept_id: int, data: Mapping[str, Any], content_hash: str,
                   when: datetime) -> None:
    """Rewrite a concept's data fields (normalised data), content hash and update time."""
    values, _ = _data_values(data)
    conn.exec_driver_sql(_marks(conn).change, (*values, content_hash, _time(conn, when), concept_id))


def delete_concept(conn: Connection, concept_id: int) -> None:
    conn.exec_driver_sql(_marks(conn).delete, (concept_id,))


def log_revision(conn: Connection, *, concept_id: int | None, format: str, name: str, op: str, actor: str,
                 reason: str, run_id: str | None, task_id: str | None, model: str | None, snapshot: dict,
                 when: datetime) -> int:
    """Append one revision; its id, the store's revision number."""
    marks = _marks(conn)
    result = conn.exec_driver_sql(marks.revision, (concept_id, format, name, op, actor, reason or "", run_id, task_id,
                                                   model, encode(snapshot), _time(conn, when)))
    return result.scalar_one() if marks.postgres else result.lastrowid


def fresh_concept_id(conn: Connection) -> int | None:
    """SQLite: an id no concept has ever had (above every concept's and every revision's). SQLite
    gives a new row the largest id + 1, so a deleted or merged-away concept that had the largest id
    would lend it to the next one, whose history and usage counts would then include the old
    one's (and a split could not restore it). None elsewhere: PostgreSQL's sequence never gives
    an id twice."""
    if conn.dialect.name != "sqlite":
        return None
    return conn.exec_driver_sql(FRESH_CONCEPT_ID).scalar()


def _ids(conn: Connection, marks: Marks, datas: list[dict], chunk: int = 500) -> dict[tuple[str, str], int]:
    """(format, name) -> id of concepts just inserted."""
    ids: dict[tuple[str, str], int] = {}
    by_format: dict[str, list[str]] = {}
    for data in datas:
        by_format.setdefault(data["format"], []).append(data["name"])
    for fmt, names in by_format.items():
        for i in range(0, len(names), chunk):
            some = names[i:i + chunk]
            ids.update(((fmt, name), id_) for id_, name in conn.exec_driver_sql(marks.ids_of(len(some)), (fmt, *some)))
    return ids



__all__ = ["change_concept", "delete_concept", "encode", "fresh_concept_id", "insert_concepts", "log_revision",
           "restore_concept"]
