"""Numbered, named schema migrations (the simonw/llm pattern).

Each migration is a function `mNNN_what(conn)` registered with `@migration`; applied
names are recorded in the `_migrations` table, so each runs once per database. A
migration describes its tables with its own frozen SQLAlchemy Core definitions (never
the current models), so an old database and a new one end with the same schema.
`tests/test_store.py` pins the result and checks it matches `models.py`.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

MIGRATIONS: list[Callable[[Connection], None]] = []


def migration(fn: Callable[[Connection], None]) -> Callable[[Connection], None]:
    MIGRATIONS.append(fn)
    return fn


def _ledger() -> tuple[sa.MetaData, sa.Table]:
    meta = sa.MetaData()
    return meta, sa.Table(
        "_migrations", meta,
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("applied_at", sa.DateTime, nullable=False, server_default=sa.func.current_timestamp()),
    )


def applied(conn: Connection) -> list[str]:
    """Names of the migrations this database has had, in the order applied (a read only)."""
    _, table = _ledger()
    if not sa.inspect(conn).has_table("_migrations"):
        return []
    return list(conn.execute(sa.select(table.c.name).order_by(table.c.applied_at, table.c.name)).scalars())


def pending(conn: Connection) -> list[str]:
    """Names of the migrations still to apply (a read only: opening an up-to-date memory writes nothing)."""
    done = set(applied(conn))
    return [fn.__name__ for fn in MIGRATIONS if fn.__name__ not in done]


def migrate(conn: Connection) -> list[str]:
    """Apply pending migrations inside the caller's transaction; returns the names applied."""
    meta, table = _ledger()
    meta.create_all(conn, checkfirst=True)
    done = set(conn.execute(sa.select(table.c.name)).scalars())
    applied = []
    for fn in MIGRATIONS:
        if fn.__name__ not in done:
            fn(conn)
            conn.execute(table.insert().values(name=fn.__name__))
            applied.append(fn.__name__)
    return applied


_TS = sa.DateTime(timezone=True)


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer, primary_key=True, autoincrement=True)


def _created() -> sa.Column:
    return sa.Column("created_at", _TS, nullable=False)


@migration
def m001_initial(conn: Connection) -> None:
    meta = sa.MetaData()
    S, T, J = sa.String, sa.Text, sa.JSON
    sa.Table(
        "concept", meta, _id(),
        sa.Column("format", S, nullable=False, index=True),
        sa.Column("name", S, nullable=False, index=True),
        sa.Column("kind", S), sa.Column("routine_subtype", S), sa.Column("output_typing", S),
        sa.Column("description", T),
        sa.Column("parameters", J, nullable=False), sa.Column("cues", J, nullable=False),
        sa.Column("implementation", J, nullable=False), sa.Column("used_in", J, nullable=False),
        sa.Column("situation", T), sa.Column("suggestion", T),
        sa.Column("source", S, nullable=False), sa.Column("created_by_model", S),
        sa.Column("content_hash", S, nullable=False, index=True),
        _created(), sa.Column("updated_at", _TS, nullable=False),
        sa.UniqueConstraint("format", "name", name="uq_concept_format_name"),
    )
    sa.Table(
        "conceptrevision", meta, _id(),
        sa.Column("concept_id", sa.Integer, index=True),
        sa.Column("format", S, nullable=False), sa.Column("name", S, nullable=False),
        sa.Column("op", S, nullable=False), sa.Column("actor", S, nullable=False),
        sa.Column("reason", S, nullable=False),
        sa.Column("run_id", S, index=True), sa.Column("task_id", S), sa.Column("model", S),
        sa.Column("snapshot", J, nullable=False), _created(),
        sqlite_autoincrement=True,  # revision numbers are never reused
    )
    sa.Table(
        "customtype", meta, _id(),
        sa.Column("name", S, nullable=False, unique=True),
        sa.Column("definition", T, nullable=False), _created(),
    )
    sa.Table(
        "solution", meta, _id(),
        sa.Column("task_id", S, nullable=False, index=True),
        sa.Column("code", T, nullable=False), sa.Column("pseudocode", T), sa.Column("summary", T),
        sa.Column("origin", S, nullable=False), sa.Column("verified", sa.Boolean, nullable=False),
        sa.Column("actor", S, nullable=False), sa.Column("run_id", S),
        sa.Column("content_hash", S, nullable=False, index=True), _created(),
    )
    sa.Table(
        "run", meta,
        sa.Column("id", S, primary_key=True), _created(),
        sa.Column("kind", S, nullable=False), sa.Column("config", J, nullable=False),
        sa.Column("status", S, nullable=False),
        sa.Column("memory_revision_start", sa.Integer), sa.Column("memory_revision_end", sa.Integer),
    )
    sa.Table(
        "selectionrecord", meta, _id(),
        sa.Column("run_id", S, index=True), sa.Column("task_id", S, nullable=False, index=True),
        sa.Column("pass_index", sa.Integer, nullable=False), sa.Column("mode", S, nullable=False),
        sa.Column("concept_ids", J, nullable=False), sa.Column("hint", T), sa.Column("reasoning", T),
        sa.Column("unmatched", J, nullable=False), sa.Column("fallback", sa.Boolean, nullable=False),
        sa.Column("error", T), sa.Column("usage", J, nullable=False), _created(),
    )
    sa.Table(
        "writefailure", meta, _id(),
        sa.Column("run_id", S, index=True), sa.Column("task_id", S, nullable=False, index=True),
        sa.Column("step", S, nullable=False), sa.Column("model", S),
        sa.Column("error", T, nullable=False), sa.Column("raw", T), _created(),
    )
    meta.create_all(conn)


@migration
def m002_concept_helper(conn: Connection) -> None:
    """A PS concept's helper (executable concepts): its source, dependencies and verification."""
    conn.execute(sa.text(f"ALTER TABLE concept ADD COLUMN helper {sa.JSON().compile(dialect=conn.dialect)}"))


@migration
def m003_concept_usage(conn: Connection) -> None:
    """Per-task counters of how concepts were used: offered, called, called by a passing program, solved."""
    meta = sa.MetaData()
    B = sa.Boolean
    sa.Table(
        "conceptusage", meta, _id(),
        sa.Column("run_id", sa.String, nullable=False, index=True),
        sa.Column("pass_index", sa.Integer, nullable=False), sa.Column("task_id", sa.String, nullable=False),
        sa.Column("concept_id", sa.Integer, nullable=False, index=True),
        sa.Column("offered", B, nullable=False), sa.Column("called", B, nullable=False),
        sa.Column("called_passing", B, nullable=False), sa.Column("solved", B, nullable=False),
        _created(),
        sa.UniqueConstraint("run_id", "pass_index", "task_id", "concept_id", name="uq_usage_task"),
    )
    meta.create_all(conn)


@migration
def m004_method_items(conn: Connection) -> None:
    """What memory methods keep beside ArcMemo's fields: a concept's `meta` (a method's own fields),
    and per usage row whether the task passed its train pairs and the method's helpful/harmful verdict."""
    conn.execute(sa.text(f"ALTER TABLE concept ADD COLUMN meta {sa.JSON().compile(dialect=conn.dialect)}"))
    for column in ("offered_passing", "helpful", "harmful"):
        conn.execute(sa.text(f"ALTER TABLE conceptusage ADD COLUMN {column} BOOLEAN NOT NULL DEFAULT FALSE"))
