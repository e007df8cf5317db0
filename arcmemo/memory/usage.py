"""How concepts were used, counted by execution: the memory's own measure of their usefulness.

For each task a run solves, every concept offered to it gets one row: offered, its helper
called by a program, called by a program that passed every train pair, called in a task
the run finally solved (see `ConceptUsage`). A task solved again (a resumed run) replaces
its rows, so nothing is counted twice. `Memory` inherits these methods (`UsageRecords`).

These rows are the only thing a read-only solve writes to the memory file: no concept,
revision or other record changes. `solved` comes from the run's score (test outputs): it is
reported, never used to choose anything; what orders helpers (run/offer.py) is
`called_passing`, which only train pairs decide.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import sqlalchemy as sa

from arcmemo.memory.models import ConceptUsage, utcnow

USAGE: sa.Table = ConceptUsage.__table__
COUNTERS = ("offered", "called", "called_passing", "solved")


@dataclass
class ConceptUse:
    """One concept's use in one task (a row: 0 or 1 each), or counts summed over tasks."""

    offered: int = 0
    called: int = 0
    called_passing: int = 0
    solved: int = 0

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COUNTERS}


class UsageRecords:
    """The usage rows; mixed into `Memory` (uses its `_read`/`_write`)."""

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

    def usage(self, *, run_id: str | None = None, concept_ids: Iterable[int] | None = None) -> dict[int, ConceptUse]:
        """Counts per concept id, over every run or one run's tasks."""
        u = USAGE.c
        query = sa.select(u.concept_id, *(sa.func.sum(sa.cast(u[name], sa.Integer)) for name in COUNTERS))
        if run_id is not None:
            query = query.where(u.run_id == run_id)
        if concept_ids is not None:
            query = query.where(u.concept_id.in_(list(concept_ids)))
        with self._read() as session:
            rows = session.execute(query.group_by(u.concept_id)).all()
        return {concept_id: ConceptUse(*(int(v or 0) for v in counts)) for concept_id, *counts in rows}


__all__ = ["COUNTERS", "ConceptUse", "UsageRecords"]
