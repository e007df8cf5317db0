"""How concepts were used, counted by execution: the memory's own measure of their usefulness.

For each task a run solves, every concept offered to it gets one row: offered, its helper
called by a program, called by a program that passed every train pair, called in a task
the run finally solved (see `ConceptUsage`). A task solved again (a resumed run) replaces
its rows, so nothing is counted twice. `Memory` inherits `record_usage` (`UsageRecords`) and
`usage` (reads.py).

These rows are the only thing a read-only solve writes to the memory file: no concept,
revision or other record changes. `solved` comes from the run's score (test outputs): it is
reported, never used to choose anything; what orders helpers (run/offer.py) is
`called_passing`, which only train pairs decide.
"""

from __future__ import annotations

import sqlalchemy as sa

from arcmemo.memory.models import ConceptUsage, utcnow
from arcmemo.memory.reads import COUNTERS, ConceptUse

USAGE: sa.Table = ConceptUsage.__table__


class UsageRecords:
    """Writing the usage rows; mixed into `Memory` (uses its `_write`). They are read by
    `usage()`, one of the store's reads (reads.py)."""

    def record_usage(self, *, run_id: str, pass_index: int, task_id: str, used: dict[int, ConceptUse]) -> None:
        """The usage of the concepts offered to one task (concept id -> its row), replacing what an
        earlier attempt at the same task of the same run and pass recorded."""
        u = USAGE.c
        with self._write() as session:
            session.execute(USAGE.delete().where(u.run_id == run_id, u.pass_index == pass_index, u.task_id == task_id))
            rows = [{"run_id": run_id, "pass_index": pass_index, "task_id": task_id, "concept_id": concept_id,
                     **{name: bool(getattr(counts, name)) for name in COUNTERS}, "created_at": utcnow()}
                    for concept_id, counts in used.items()]
            if rows:
                session.execute(USAGE.insert(), rows)


__all__ = ["COUNTERS", "ConceptUse", "UsageRecords"]
