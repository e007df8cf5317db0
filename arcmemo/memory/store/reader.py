"""A memory opened for reading only: the lean path of the read-only commands (`concepts list`,
`show`, `search`, `export`, `graph`, ...).

Reading never writes: a missing file or an empty (0-byte) one is an error naming it, not a
memory created on the spot, and no schema or migration is ever written (`readable_file`);
the connection itself refuses changes (`PRAGMA query_only`).

An SQLite file that is up to date (every migration this version knows applied, no other)
is read through the standard library's sqlite3 with the store's own statements
(`reads.py`, `sql.py`), so a listing starts without loading SQLAlchemy, SQLModel or pydantic. Any
other memory (a URL, a file from a newer version, one that cannot be opened) is opened as
the full `Memory` in read-only mode, which says what is wrong with it (a file from an
older version included: it is brought up to date by the next command that writes memory).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arcmemo.memory.errors import StoreError
from arcmemo.memory.store.reads import ConceptReads, Rows

# The migrations (migrations.py) whose schema the statements in sql.py are written for; a
# test keeps this equal to migrations.MIGRATIONS, so a new migration is a decision made here.
MIGRATIONS = ("m001_initial", "m002_concept_helper", "m003_concept_usage", "m004_method_items")


class SQLiteReader(ConceptReads):
    """An up-to-date SQLite memory read with sqlite3, from one thread; writes nothing. Use `open_reader`."""

    def __init__(self, conn: sqlite3.Connection, url: str):
        self._conn, self.url = conn, url

    @classmethod
    def open(cls, path: str) -> SQLiteReader | None:
        """The reader for an up-to-date SQLite file; None when it is anything else."""
        conn = None
        try:
            uri = Path(path).expanduser().resolve().as_uri() + "?mode=rw"  # never creates a missing file
            conn = sqlite3.connect(uri, uri=True, timeout=60, isolation_level=None)
            conn.execute("PRAGMA query_only = ON")
            applied = {name for (name,) in conn.execute("SELECT name FROM _migrations")}
        except sqlite3.Error:  # not a file sqlite can open, not a database, no migrations table
            if conn is not None:
                conn.close()
            return None
        if applied != set(MIGRATIONS):
            conn.close()
            return None
        return cls(conn, path)

    @contextmanager
    def _reading(self) -> Iterator[Rows]:
        """One read transaction: the statements of one method see one state of the file."""
        self._conn.execute("BEGIN")
        try:
            yield lambda sql, params: self._conn.execute(sql, params).fetchall()
        finally:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.ProgrammingError:    # closed under a stream left unfinished (an abandoned
                pass                            # export generator): closing ended its transaction

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> SQLiteReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteReader({self.url!r})"


def sqlite_file(url: str) -> Path | None:
    """The file a memory path names; None for a database URL or ':memory:'."""
    return None if "://" in url or url == ":memory:" else Path(url).expanduser()


def readable_file(path: Path) -> None:
    """StoreError, naming the file, unless `path` is a file that could hold a memory: reading
    must not create a missing one, nor write a schema into an empty one."""
    if not path.exists():
        raise StoreError(f"no memory database at {path}")
    if path.is_file() and path.stat().st_size == 0:
        raise StoreError(f"{path} is an empty file (0 bytes), not a memory database yet: reading leaves it as "
                         "it is (a command that writes memory, such as `arcmemo concepts import`, makes it one)")


def open_reader(url: str) -> ConceptReads:
    """The memory at a path or URL, for reading only: lean for an up-to-date SQLite file, else the
    full `Memory` opened read-only (StoreError if it cannot be read as it is)."""
    path = sqlite_file(url)
    if path is not None:
        readable_file(path)
        reader = SQLiteReader.open(url)
        if reader is not None:
            return reader
    from arcmemo.memory.store import Memory

    return Memory(url, read_only=True)


__all__ = ["SQLiteReader", "open_reader", "readable_file", "MIGRATIONS"]
