"""Memories as an older arcmemo left them, for the tests of opening them."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from arcmemo.memory.store import migrations


def memory_before_helpers(path: Path, *statements: str) -> Path:
    """An SQLite memory with only the first migration applied (made before executable concepts),
    after running `statements` (SQL) in it."""
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        migrations.m001_initial(conn)
        meta, ledger = migrations._ledger()
        meta.create_all(conn)
        conn.execute(ledger.insert().values(name="m001_initial"))
        for statement in statements:
            conn.execute(sa.text(statement))
    engine.dispose()
    return path
