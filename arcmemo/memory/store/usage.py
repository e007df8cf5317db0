"""How concepts were used, counted by execution: the memory's own measure of their usefulness.

For each task a run solves, every concept offered to it gets one row: offered, its helper
called by a program, called by a program that passed every train pair, called in a task
the run finally solved, offered to a task that passed its train pairs (see `ConceptUsage`).
A task solved again (a resumed run) replaces its rows, so nothing is counted twice. The
memory method's write may add its own verdict on the items a task was shown, helpful or
harmful (`record_judgement`: ACE's reflector tags), beside the run's counts. `Memory`
inherits `record_usage` and `record_judgement` (`UsageRecords`) and `usage` (reads.py).

These rows are the only thing a read-only solve writes to the memory file: no concept,
revision or other record changes. `solved` comes from the run's score (test outputs): it is
reported, never used to choose anything; what orders helpers (run/stages/offer.py) is
`called_passing`, which only train pairs decide, as they decide `offered_passing`.
"""

from __future__ import annotations

import sqlalchemy as sa

from arcmemo.memory.schema.concept import utcnow
from arcmemo.memory.store.models import ConceptUsage
from arcmemo.memory.store.reads import COUNTERS, JUDGED, ConceptUse
from arcmemo.memory.store.sql import one_of

USAGE: sa.Table = ConceptUsage.__table__
VERDICTS = ("helpful", "harmful", "neutral")
# built once, run on the session's connection: written once per task, where building the
# expression and the ORM's execute path cost several times the SQL itself
_FORGET_TASK = USAGE.delete().where(USAGE.c.run_id == sa.bindparam("run"), USAGE.c.pass_index == sa.bindparam("pass_"),
                                    USAGE.c.task_id == sa.bindparam("task"))
_INSERT = USAGE.insert()


class UsageRecords:
    """Writing the usage rows; mixed into `Memory` (uses its `_write`). They are read by
    `usage()`, one of the store's reads (reads.py)."""

    def record_usage(self, *, run_id: str, pass_index: int, task_id: str, used: dict[int, ConceptUse]) -> None:
        """The usage of the concepts offered to one task (concept id -> its row), replacing what an
        earlier attempt at the same task of the same run and pass recorded."""
        with self._write() as session:
            connection = session.connection()
            connection.execute(_FORGET_TASK, {"run": run_id, "pass_": pass_index, "task": task_id})
            rows = [{"run_id": run_id, "pass_index": pass_index, "task_id": task_id, "concept_id": concept_id,
                     **{name: bool(getattr(counts, name)) for name in (*COUNTERS, *JUDGED)}, "created_at": utcnow()}
                    for concept_id, counts in used.items()]
            if rows:
                connection.execute(_INSERT, rows)

    def record_judgement(self, *, run_id: str, pass_index: int, task_id: str, verdicts: dict[int, str]) -> None:
        """A memory method's verdict (VERDICTS) on items one task of a run was shown, into that task's
        usage rows (a row is made for an item the run did not count as offered); a later verdict
        on the same row replaces the earlier one. ValueError, writing nothing, for a verdict that
        is not one of VERDICTS or an id that is no concept's."""
        wrong = {i: v for i, v in verdicts.items() if v not in VERDICTS or isinstance(i, bool) or not isinstance(i, int)}
        if wrong:
            raise ValueError(f"record_judgement: verdicts are {', '.join(VERDICTS)} by concept id, got {wrong!r}")
        u = USAGE.c
        with self._write() as session:
            ids, params = one_of("id", list(verdicts), "c")
            known = {i for i, in session.execute(sa.text(f"SELECT id FROM concept WHERE {ids}"), params)}
            if set(verdicts) - known:
                raise ValueError(f"record_judgement: no concept with id {', '.join(map(str, sorted(set(verdicts) - known)))}")
            mine = (u.run_id == run_id, u.pass_index == pass_index, u.task_id == task_id)
            have = set(session.execute(sa.select(u.concept_id).where(*mine, u.concept_id.in_(list(verdicts))))
                       .scalars())
            for concept_id, verdict in verdicts.items():
                marks = {"helpful": verdict == "helpful", "harmful": verdict == "harmful"}
                if concept_id in have:
                    session.execute(USAGE.update().where(*mine, u.concept_id == concept_id).values(**marks))
                else:
                    session.execute(USAGE.insert().values(
                        run_id=run_id, pass_index=pass_index, task_id=task_id, concept_id=concept_id,
                        **{name: False for name in COUNTERS}, **marks, created_at=utcnow()))


__all__ = ["COUNTERS", "JUDGED", "VERDICTS", "ConceptUse", "UsageRecords"]
