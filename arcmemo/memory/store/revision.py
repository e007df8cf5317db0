"""A write in the store's log, as the store hands it out (`Revision`, a plain value).

Apart from concept.py so that reading concepts (`concepts list`, `show`) does not build this
class: only the history and merges read revisions.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arcmemo.memory.store.sql import REVISION_COLUMNS


@dataclass(frozen=True)
class Revision:
    """One write in the store's log (`Memory.history`): its id is the global revision number.
    `snapshot` is the concept's row after the change (before it, for a delete); custom types
    are logged too, with format "type" and no concept_id."""

    id: int
    concept_id: int | None
    format: str
    name: str
    op: str
    actor: str
    reason: str
    run_id: str | None
    task_id: str | None
    model: str | None
    snapshot: dict
    created_at: datetime

    def to_json(self) -> dict[str, Any]:
        """Every field as JSON-able values, the time in UTC with a Z."""
        data = {name: getattr(self, name) for name in REVISION_COLUMNS}
        data["created_at"] = self.created_at.isoformat().replace("+00:00", "Z")
        return data


__all__ = ["Revision", "REVISION_COLUMNS"]
