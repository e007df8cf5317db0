"""The concept table as SQLAlchemy Core, for the store's writes: `select_concepts` reads the
row a write is about (converted by `reads.concept_of`). The reads callers make are in `reads.py`.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from arcmemo.memory.store.models import CONCEPT_COLUMNS, ConceptRevision, ConceptRow

CONCEPTS: sa.Table = ConceptRow.__table__
REVISIONS: sa.Table = ConceptRevision.__table__
_AS_TEXT = {"parameters", "cues", "implementation", "used_in", "helper", "created_at", "updated_at"}
_COLUMNS = [sa.type_coerce(CONCEPTS.c[n], sa.Text).label(n) if n in _AS_TEXT else CONCEPTS.c[n]
            for n in CONCEPT_COLUMNS]


def select_concepts(*where: Any) -> sa.Select:
    """SELECT every concept column (JSON and times as text) WHERE `where`, ordered by id."""
    return sa.select(*_COLUMNS).where(*where).order_by(CONCEPTS.c.id)


__all__ = ["CONCEPTS", "REVISIONS", "select_concepts"]
