"""Many new concepts written at once (an import): the rows and their revisions as the store's
own writes make them, at close to the cost of the insert itself.

Per concept, each JSON column is encoded once, and the revision's snapshot (the row as
`Concept.snapshot()` gives it) is assembled from those encodings instead of encoding the
row again; the rows go to the driver's executemany as they are, with no per-value type
processing (SQLAlchemy's JSON and time types would encode every value a second time).
What is stored is what `Memory.add` stores: the same JSON text (`ensure_ascii=False`), the
same time format, "null" for no helper.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from arcmemo.memory.schema import rules as schema
from arcmemo.memory.schema.concept import CONCEPT_COLUMNS, DATA_FIELDS

encode = json.JSONEncoder(ensure_ascii=False).encode   # the store's JSON text (store._json_dumps)
JSON_FIELDS = frozenset(("parameters", "cues", "implementation", "used_in", "helper", "meta"))
ROW_COLUMNS = CONCEPT_COLUMNS[1:]                      # all but the id, which the database gives
REVISION_COLUMNS = ("concept_id", "format", "name", "op", "actor", "reason", "run_id", "task_id", "model", "snapshot",
                    "created_at")
_SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"                  # how SQLAlchemy keeps a DateTime in SQLite


def _insert(conn: Connection, table: str, columns: tuple[str, ...], json_columns: Iterable[str]) -> str:
    """INSERT with the driver's own placeholders (JSON columns cast where the database needs it)."""
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    postgres = conn.dialect.name == "postgresql"
    values = ", ".join(f"CAST({mark} AS JSON)" if postgres and c in json_columns else mark for c in columns)
    names = ", ".join(f'"{c}"' for c in columns)
    return f"INSERT INTO {table} ({names}) VALUES ({values})"


def _time(conn: Connection, when: datetime) -> Any:
    return when.strftime(_SQLITE_TIME) if conn.dialect.name == "sqlite" else when


def _value(value: Any, text=json.encoder.encode_basestring) -> str:
    """`encode(value)`, with text and None (most of a row) taken the short way."""
    if type(value) is str:
        return text(value)
    return "null" if value is None else encode(value)


# _Row relies on the order: the data fields, then who wrote it, its hash and its times
assert ROW_COLUMNS == (*DATA_FIELDS, "created_by_model", "content_hash", "created_at", "updated_at")
_IS_JSON = tuple(field in JSON_FIELDS for field in DATA_FIELDS)
_KEYS = tuple(f'"{column}": ' for column in ROW_COLUMNS)


class _Row:
    """A new concept's row as the driver takes it (`values`, ROW_COLUMNS order) and as JSON text
    per column (`encoded`), which its revision's snapshot is assembled from."""

    __slots__ = ("values", "encoded")

    def __init__(self, data: dict, model: str | None, when: str, stamp: Any):
        raw = [data[field] for field in DATA_FIELDS]
        encoded = [_value(value) for value in raw]
        digest = schema.content_hash(data)
        self.values = (*(e if is_json else v for v, e, is_json in zip(raw, encoded, _IS_JSON)), model, digest,
                       stamp, stamp)
        time = _value(when)
        self.encoded = (*encoded, _value(model), _value(digest), time, time)

    def snapshot(self, concept_id: int) -> str:
        """The row as JSON, keys in CONCEPT_COLUMNS order: json.dumps(Concept.snapshot()) without encoding it again."""
        return f'{{"id": {concept_id}, ' + ", ".join(map(str.__add__, _KEYS, self.encoded)) + "}"


def insert_concepts(conn: Connection, items: list[tuple[dict, str | None]], *, op: str, actor: str, reason: str,
                    run_id: str | None, when: datetime, chunk: int = 2000) -> None:
    """Insert new concepts (normalised data, model) and one revision each, in chunks, inside the
    caller's transaction. Ids are read back by (format, name), which is unique (no RETURNING:
    slow for executemany)."""
    first_id = fresh_concept_id(conn)
    concepts_sql = _insert(conn, "concept", ROW_COLUMNS if first_id is None else ("id", *ROW_COLUMNS), JSON_FIELDS)
    revisions_sql = _insert(conn, "conceptrevision", REVISION_COLUMNS, ("snapshot",))
    stamp, iso = _time(conn, when), when.isoformat()
    for start in range(0, len(items), chunk):
        part = items[start:start + chunk]
        rows = [_Row(data, model, iso, stamp) for data, model in part]
        conn.exec_driver_sql(concepts_sql, [row.values for row in rows] if first_id is None else
                             [(first_id + start + i, *row.values) for i, row in enumerate(rows)])
        ids = _ids(conn, [data for data, _ in part])
        revisions = []
        for (data, model), row in zip(part, rows):
            concept_id = ids[(data["format"], data["name"])]
            revisions.append((concept_id, data["format"], data["name"], op, actor, reason or "", run_id, None, model,
                              row.snapshot(concept_id), stamp))
        conn.exec_driver_sql(revisions_sql, revisions)


def fresh_concept_id(conn: Connection) -> int | None:
    """SQLite: an id no concept has ever had (above every concept's and every revision's). SQLite
    gives a new row the largest id + 1, so a deleted or merged-away concept that had the largest id
    would lend it to the next one, whose history and usage counts would then include the old
    one's (and a split could not restore it). None elsewhere: PostgreSQL's sequence never gives
    an id twice."""
    if conn.dialect.name != "sqlite":
        return None
    return conn.exec_driver_sql("SELECT max(coalesce((SELECT max(id) FROM concept), 0), "
                                "coalesce((SELECT max(concept_id) FROM conceptrevision), 0)) + 1").scalar()


def _ids(conn: Connection, datas: list[dict], chunk: int = 500) -> dict[tuple[str, str], int]:
    """(format, name) -> id of concepts just inserted."""
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    ids: dict[tuple[str, str], int] = {}
    by_format: dict[str, list[str]] = {}
    for data in datas:
        by_format.setdefault(data["format"], []).append(data["name"])
    for fmt, names in by_format.items():
        for i in range(0, len(names), chunk):
            some = names[i:i + chunk]
            sql = f'SELECT id, name FROM concept WHERE "format" = {mark} AND name IN ({", ".join([mark] * len(some))})'
            ids.update(((fmt, name), id_) for id_, name in conn.exec_driver_sql(sql, (fmt, *some)))
    return ids


__all__ = ["insert_concepts", "encode", "fresh_concept_id"]
