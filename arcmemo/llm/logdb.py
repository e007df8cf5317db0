"""The call log's SQLite file: opening it and its numbered schema migrations.

The pattern of the memory's migrations (arcmemo/memory/store/migrations.py): each migration is a
function `mNNN_what(conn)` registered with `@migration`, applied once per database and
recorded by name in `_migrations`. They run inside one `BEGIN IMMEDIATE` transaction, so
two processes opening a new log at once do not both apply them. A log written before
migrations existed has the `calls` table already: m001 creates only what is missing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = []


def migration(fn: Callable[[sqlite3.Connection], None]) -> Callable[[sqlite3.Connection], None]:
    MIGRATIONS.append(fn)
    return fn


def connect(path: Path) -> sqlite3.Connection:
    """An autocommit connection to the log at `path`, migrated to the current schema."""
    conn = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    migrate(conn)
    return conn


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply pending migrations; returns the names applied."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS _migrations ("
                     " name TEXT PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)")
        done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
        applied = []
        for fn in MIGRATIONS:
            if fn.__name__ not in done:
                fn(conn)
                conn.execute("INSERT INTO _migrations (name) VALUES (?)", (fn.__name__,))
                applied.append(fn.__name__)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return applied


@migration
def m001_calls(conn: sqlite3.Connection) -> None:
    conn.execute("""
        CREATE TABLE IF NOT EXISTS calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at REAL NOT NULL,
            run_id TEXT,
            task_id TEXT,
            role TEXT,
            step TEXT,
            sample INTEGER NOT NULL DEFAULT 0,
            model TEXT NOT NULL,
            endpoint TEXT,
            cache_key TEXT NOT NULL,
            request_json TEXT NOT NULL,
            response_text TEXT,
            reasoning TEXT,
            choices_json TEXT,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            reasoning_tokens INTEGER NOT NULL DEFAULT 0,
            latency_s REAL NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            cached INTEGER NOT NULL DEFAULT 0,
            attempts INTEGER NOT NULL DEFAULT 1,
            error TEXT
        )""")
    conn.execute("CREATE INDEX IF NOT EXISTS calls_cache_key ON calls (cache_key)"
                 " WHERE error IS NULL AND cached = 0")
    conn.execute("CREATE INDEX IF NOT EXISTS calls_run ON calls (run_id)")


@migration
def m002_error_kind_and_task_index(conn: sqlite3.Connection) -> None:
    """Why a call failed (`fatal`, `unavailable` or `error`: the run layer's and `calls list
    --errors`' question), and `calls list --task` without a table scan."""
    conn.execute("ALTER TABLE calls ADD COLUMN error_kind TEXT")
    conn.execute("UPDATE calls SET error_kind = 'error' WHERE error IS NOT NULL")
    conn.execute("CREATE INDEX calls_task ON calls (task_id)")


@migration
def m003_finish_reason(conn: sqlite3.Connection) -> None:
    """Why each answer ended, as the endpoint said it (`stop`; `length`: cut at the token limit,
    the answer unfinished). Calls logged before it have none (NULL: not recorded)."""
    conn.execute("ALTER TABLE calls ADD COLUMN finish_reason TEXT")


__all__ = ["connect", "migrate", "migration", "MIGRATIONS"]
