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
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from arcmemo.memory import schema
from arcmemo.memory.concept import CONCEPT_COLUMNS, DATA_FIELDS

encode = json.JSONEncoder(ensure_ascii=False).encode   # the store's JSON text (store._json_dumps)
JSON_FIELDS = frozenset(("parameters", "cues", "implementation", "used_in", "helper"))
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


def _encoded(data: dict, model: str | None, digest: str, when: str) -> dict[str, str]:
    """Every column of a new concept's row as JSON text (what its snapshot is assembled from)."""
    out = {field: _value(data[field]) for field in DATA_FIELDS}
    out["created_by_model"], out["content_hash"] = _value(model), _value(digest)
    out["created_at"] = out["updated_at"] = _value(when)
    return out


def _snapshot(concept_id: int, encoded: dict[str, str]) -> str:
    """The row as JSON, keys in CONCEPT_COLUMNS order: json.dumps(Concept.snapshot()) without encoding it again."""
    return "{" + ", ".join([f'"id": {concept_id}'] + [f'"{c}": {encoded[c]}' for c in ROW_COLUMNS]) + "}"


def insert_concepts(conn: Connection, items: list[tuple[dict, str | None]], *, op: str, actor: str, reason: str,
                    run_id: str | None, when: datetime, chunk: int = 2000) -> None:
    """Insert new concepts (normalised data, model) and one revision each, in chunks, inside the
    caller's transaction. Ids are read back by (format, name), which is unique (no RETURNING:
    slow for executemany)."""
    concepts_sql = _insert(conn, "concept", ROW_COLUMNS, JSON_FIELDS)
    revisions_sql = _insert(conn, "conceptrevision", REVISION_COLUMNS, ("snapshot",))
    stamp, iso = _time(conn, when), when.isoformat()
    for start in range(0, len(items), chunk):
        part = items[start:start + chunk]
        digests = [schema.content_hash(data) for data, _ in part]
        encoded = [_encoded(data, model, digest, iso) for (data, model), digest in zip(part, digests)]
        conn.exec_driver_sql(concepts_sql, [tuple(_values(data, model, digest, enc, stamp))
                                            for (data, model), digest, enc in zip(part, digests, encoded)])
        ids = _ids(conn, [data for data, _ in part])
        conn.exec_driver_sql(revisions_sql, [
            (ids[(data["format"], data["name"])], data["format"], data["name"], op, actor, reason or "", run_id, None,
             model, _snapshot(ids[(data["format"], data["name"])], enc), stamp)
            for (data, model), enc in zip(part, encoded)])


def _values(data: dict, model: str | None, digest: str, encoded: dict[str, str], stamp: Any) -> Iterator[Any]:
    """A new concept's row, column by column (ROW_COLUMNS), as the driver takes it."""
    for column in ROW_COLUMNS:
        if column in JSON_FIELDS:
            yield encoded[column]
        elif column == "created_by_model":
            yield model
        elif column == "content_hash":
            yield digest
        elif column in ("created_at", "updated_at"):
            yield stamp
        else:
            yield data[column]


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


__all__ = ["insert_concepts", "encode"]
