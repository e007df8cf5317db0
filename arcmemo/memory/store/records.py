"""The records that explain a memory's writes: failed writes (the raw model answer kept),
the runs that wrote (continual solves, and the seed runs' ledger of what they ingested),
and what one run wrote for one task.

`Memory` inherits these methods (`RunRecords`); they use its transactions, so a record
written inside `Memory.transaction()` commits or rolls back with the concepts around it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, func, select

from arcmemo.core.text import cap, clean_text, utf8_safe
from arcmemo.memory.store.models import Run, SelectionRecord, WriteFailure

SEED_KIND = "seed"
RUN_FIELDS = ("config", "status", "memory_revision_start", "memory_revision_end")
MAX_ERROR_CHARS = 4_000        # an error message is a line or two; a model's can be anything
MAX_RAW_CHARS = 200_000        # a raw answer is kept to read back, not a place for megabytes


@dataclass(frozen=True)
class WriteRecord:
    """What one run wrote to memory for one task, rebuilt from the store's own records."""

    added: list[str]
    extended: list[str]
    error: str | None
    failed: bool
    removed: list[str] = field(default_factory=list)


class RunRecords:
    """Write failures and run records; mixed into `Memory` (uses its `_read`/`_write`)."""

    # -- failed writes -------------------------------------------------------------------

    def record_write_failure(self, *, run_id: str | None, task_id: str, step: str, model: str | None,
                             error: str, raw: str | None) -> None:
        """Keep a failed write and the model's raw answer (cleaned and capped, so any text can be kept)."""
        with self._write() as session:
            session.add(WriteFailure(
                run_id=run_id, task_id=task_id, step=step, model=model,
                error=cap(clean_text(str(error)), MAX_ERROR_CHARS),
                raw=None if raw is None else cap(utf8_safe(str(raw)), MAX_RAW_CHARS)))

    def count_write_failures(self, task_id: str, steps: Iterable[str]) -> int:
        """How many failed writes of these steps the task has (in any run)."""
        query = select(func.count()).select_from(WriteFailure).where(
            WriteFailure.task_id == task_id, col(WriteFailure.step).in_(list(steps)))
        with self._read() as session:
            return int(session.exec(query).one())

    def write_failures(self, *, run_id: str | None = None, task_id: str | None = None) -> list[WriteFailure]:
        """Recorded failures, oldest first (optionally of one run and/or task)."""
        query = select(WriteFailure).order_by(WriteFailure.id)
        if run_id is not None:
            query = query.where(WriteFailure.run_id == run_id)
        if task_id is not None:
            query = query.where(WriteFailure.task_id == task_id)
        return self._rows(query)

    def writes_of(self, run_id: str, task_id: str) -> WriteRecord | None:
        """What `run_id` wrote for `task_id` (None: nothing, not even a failure).

        Concept and sheet revisions give the names added, extended and removed (a sheet's
        rewrite, even its first, counts as extending it: "cheatsheet", "dc-rs"; an item added
        and removed in the same write is neither); a run with only a recorded failure failed.
        """
        with self._reading() as rows:
            revisions = rows('SELECT name, op, "format" FROM conceptrevision WHERE run_id = :run_id AND task_id = :task_id '
                             'AND "format" != :type', {"run_id": run_id, "task_id": task_id, "type": "type"})
        with self._read() as session:
            failure = session.exec(select(WriteFailure.error).where(
                WriteFailure.run_id == run_id, WriteFailure.task_id == task_id).order_by(WriteFailure.id)).first()
        if not revisions and failure is None:
            return None
        gone = {name for name, op, _ in revisions if op == "delete"}
        added = {name for name, op, fmt in revisions if op == "add" and fmt != "sheet"}
        extended = {name for name, op, fmt in revisions if op not in ("add", "delete") or fmt == "sheet"} - added
        return WriteRecord(added=sorted(added - gone), extended=sorted(extended - gone), error=failure,
                           failed=not revisions, removed=sorted(gone - added))

    # -- runs --------------------------------------------------------------------------------

    def record_run(self, run_id: str, *, kind: str, **fields: Any) -> None:
        """Create or update the record of a run that writes memory (so revisions' run ids lead
        somewhere). `fields`: any of config, status, memory_revision_start, memory_revision_end."""
        unknown = sorted(set(fields) - set(RUN_FIELDS))
        if unknown:
            raise TypeError(f"record_run: unknown field(s) {', '.join(unknown)} (known: {', '.join(RUN_FIELDS)})")
        with self._write() as session:
            run = session.get(Run, run_id) or Run(id=run_id, kind=kind)
            run.kind = kind
            for name, value in fields.items():
                setattr(run, name, value)
            session.add(run)

    def runs(self, kind: str | None = None) -> list[Run]:
        """Recorded runs, oldest first (optionally of one kind: "solve", "seed")."""
        query = select(Run).order_by(Run.created_at, Run.id)
        if kind is not None:
            query = query.where(Run.kind == kind)
        return self._rows(query)

    # -- the seed ledger ---------------------------------------------------------------------

    def seeded(self) -> set[tuple[str, str, str]]:
        """(task_id, content hash, format) of everything any seed run ingested."""
        with self._read() as session:
            configs = session.exec(select(Run.config).where(Run.kind == SEED_KIND)).all()
        return {(item["task_id"], item["hash"], item["format"])
                for config in configs for item in (config or {}).get("done", [])}

    def save_seed_run(self, run_id: str, *, config: dict, done: Iterable[tuple[str, str, str]], status: str,
                      revision_start: int, revision_end: int | None = None) -> None:
        """Create or update a seed run's record: its config and the (task_id, hash, format) it ingested."""
        entries = [{"task_id": task_id, "hash": digest, "format": fmt} for task_id, digest, fmt in done]
        self.record_run(run_id, kind=SEED_KIND, config={**config, "done": entries}, status=status,
                        memory_revision_start=revision_start, memory_revision_end=revision_end)

    # -- selection records of older memories ---------------------------------------------------

    def selection_records(self, run_id: str, task_id: str | None = None) -> list[SelectionRecord]:
        """Selections an older version recorded in the memory file (new runs keep them in their
        run directory); in the order they were made."""
        query = select(SelectionRecord).where(SelectionRecord.run_id == run_id)
        if task_id is not None:
            query = query.where(SelectionRecord.task_id == task_id)
        return self._rows(query.order_by(SelectionRecord.id))

    def _rows(self, query: sa.Select) -> list:
        """ORM rows of `query`, safe to keep: detached, or copies inside a transaction (whose
        session lives on)."""
        with self._read() as session:
            rows = list(session.exec(query))
            if self._in_transaction(session):
                return [type(row)(**row.model_dump()) for row in rows]
            for row in rows:
                session.expunge(row)
            return rows


__all__ = ["RunRecords", "WriteRecord", "SEED_KIND"]
