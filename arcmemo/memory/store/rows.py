"""The concept table's one row shape, and the revision log's, declared for SQLAlchemy: their
columns are a `Concept`'s (schema/concept.py's CONCEPT_COLUMNS) and a `Revision`'s (sql.py's
REVISION_COLUMNS), their types those the migrations make (migrations.py).

The store reads and writes them with sql.py's statements, never through these tables: they are
the schema the migrations are checked against (tests/test_store.py), whose columns
tests/test_concept_shape.py holds to the values'.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import SQLModel

S, T, J = sa.String, sa.Text, sa.JSON
_TIME = sa.DateTime(timezone=True)

CONCEPTS = sa.Table(
    "concept", SQLModel.metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("format", S, nullable=False, index=True),
    sa.Column("name", S, nullable=False, index=True),
    sa.Column("kind", S), sa.Column("routine_subtype", S), sa.Column("output_typing", S),
    sa.Column("description", T),
    sa.Column("parameters", J, nullable=False), sa.Column("cues", J, nullable=False),
    sa.Column("implementation", J, nullable=False), sa.Column("used_in", J, nullable=False),
    sa.Column("situation", T), sa.Column("suggestion", T),
    sa.Column("helper", J),
    sa.Column("source", S, nullable=False),
    sa.Column("meta", J),
    sa.Column("created_by_model", S),
    sa.Column("content_hash", S, nullable=False, index=True),
    sa.Column("created_at", _TIME, nullable=False), sa.Column("updated_at", _TIME, nullable=False),
    sa.UniqueConstraint("format", "name", name="uq_concept_format_name"),
)

# Append-only: one row per write, its id the store's revision number (never reused). `snapshot` is the
# concept's row after the change (before it, for a delete); custom types are logged too, with format
# "type" and no concept_id.
REVISIONS = sa.Table(
    "conceptrevision", SQLModel.metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("concept_id", sa.Integer, index=True),
    sa.Column("format", S, nullable=False), sa.Column("name", S, nullable=False),
    sa.Column("op", S, nullable=False), sa.Column("actor", S, nullable=False),
    sa.Column("reason", S, nullable=False),
    sa.Column("run_id", S, index=True), sa.Column("task_id", S), sa.Column("model", S),
    sa.Column("snapshot", J, nullable=False),
    sa.Column("created_at", _TIME, nullable=False),
    sqlite_autoincrement=True,
)

__all__ = ["CONCEPTS", "REVISIONS"]
