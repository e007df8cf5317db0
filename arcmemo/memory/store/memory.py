"""`Memory`: the only API that reads and writes concepts.

Any SQLAlchemy URL works; a bare path means SQLite. Writes are serialised: SQLite runs
in WAL mode with a busy timeout and every write transaction starts with
`BEGIN IMMEDIATE`; PostgreSQL write transactions take one transaction-level advisory
lock. So a merge (read, combine, write) is one write transaction and two processes
writing the same database lose nothing.

Every write appends a revision whose id is the store's global revision number and
whose snapshot is the full concept row after the change, so `list(as_of=N)` rebuilds
the memory exactly as it was after revision N.

`Memory(url, read_only=True)` (the read-only commands) writes nothing at all: no schema
into an empty file, no migration, no journal mode; its connections refuse changes
(SQLite `query_only`, a PostgreSQL session of read-only transactions) and a write method
is a StoreError.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, select

from arcmemo.memory.errors import ConceptDataError, ConceptExists, StoreError, UnknownConcept
from arcmemo.memory.helpers.source import check_helper_of
from arcmemo.memory.helpers.value import Helper
from arcmemo.memory.schema import merge_rule as cdata
from arcmemo.memory.schema import rules as schema
from arcmemo.memory.schema.concept import Concept, utcnow
from arcmemo.memory.store.merges import ConceptMerges
from arcmemo.memory.store.migrations import applied, migrate, pending
from arcmemo.memory.store.models import CustomType, Solution
from arcmemo.memory.store.reader import readable_file, sqlite_file
from arcmemo.memory.store.reads import ConceptReads, Rows, concept_of
from arcmemo.memory.store.records import RunRecords
from arcmemo.memory.store.sql import HELPERS, LATEST_REVISION, WRITTEN_SINCE, concepts_where, one_of
from arcmemo.memory.store.usage import UsageRecords
from arcmemo.memory.store.writes import change_concept, delete_concept, encode, insert_concepts, log_revision

_PG_WRITE_LOCK = 0x6172636D  # "arcm": one advisory lock key for all memory writes
# Custom types one write transaction may create: one task's concepts or annotation define a
# few (the shipped seeds at most 3); more is a model defining a type per parameter.
MAX_NEW_TYPES = 20


class MergeResult(NamedTuple):
    concept: Concept
    action: str  # "added" | "extended" | "unchanged"


@dataclass
class TypeCap:
    """The custom types one write transaction may create (`limit`): those it `created`, and those
    over the limit it did not create (`dropped`, in the order met), for the writer to report.
    The typings naming a dropped type keep its name as their text."""

    limit: int
    created: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    def admit(self, name: str) -> bool:
        """Whether the type `name` may be created now (counted as created if so, else as dropped)."""
        if len(self.created) < self.limit:
            self.created.append(name)
            return True
        if name not in self.dropped:
            self.dropped.append(name)
        return False


def _json_dumps(value: Any) -> str:
    # ensure_ascii=False keeps JSON columns searchable with LIKE for non-ASCII text
    return encode(value)


def _postgres_driver(url: str) -> str:
    """A driverless postgresql:// URL means psycopg (v3) to SQLAlchemy 2.1; use psycopg2 when only it is installed."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            import importlib.util

            if importlib.util.find_spec("psycopg") is None and importlib.util.find_spec("psycopg2") is not None:
                return "postgresql+psycopg2://" + url[len(prefix):]
            return "postgresql://" + url[len(prefix):]
    return url


def make_engine(url: str, *, read_only: bool = False) -> sa.Engine:
    """An engine for a path or URL, configured for safe concurrent writers (or, `read_only`,
    for connections that cannot change the database)."""
    url = str(url)
    if url == ":memory:":
        url = "sqlite://"
    elif "://" not in url:
        url = "sqlite:///" + str(Path(url).expanduser())
    if not url.startswith("sqlite"):
        url = _postgres_driver(url)
        # an unreachable server fails within seconds instead of the OS's TCP timeout
        connect_args = {} if "connect_timeout" in url else {"connect_timeout": 10}
        if read_only:
            connect_args["options"] = "-c default_transaction_read_only=on"
        return sa.create_engine(url, json_serializer=_json_dumps, pool_pre_ping=True, connect_args=connect_args)

    in_memory = url in ("sqlite://", "sqlite:///:memory:")
    engine = sa.create_engine(
        url, json_serializer=_json_dumps,
        connect_args={"timeout": 60, "check_same_thread": False},
        **({"poolclass": StaticPool} if in_memory else {}),
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (see _on_begin)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout = 60000")
        if read_only:
            cur.execute("PRAGMA query_only = ON")      # setting the journal mode would write the file
        else:
            cur.execute("PRAGMA journal_mode = WAL")
            cur.execute("PRAGMA synchronous = NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        write = conn.get_execution_options().get("arcmemo_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


class _RevisionWatch:
    """SQLite's `PRAGMA data_version` on a connection kept for it alone: it changes whenever
    another connection (of this process or another) commits, and costs microseconds, where
    reading the revision through SQLAlchemy costs a few hundred; a run asks for the revision
    several times per task (every prepared view of memory is keyed by it). After a change the
    revision is read on the same connection: a run's usage rows commit once per task."""

    def __init__(self, path: Path):
        self._connection = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._connection.execute("PRAGMA query_only = ON")
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None        # (data_version, revision read after it)

    def revision(self) -> int:
        """The revision read after the last change (the version read first, then the revision: a
        commit in between only makes the kept revision newer than its version)."""
        with self._lock:
            version = self._connection.execute("PRAGMA data_version").fetchone()[0]
            if self._seen is None or self._seen[0] != version:
                self._seen = (version, self._connection.execute(LATEST_REVISION).fetchone()[0] or 0)
            return self._seen[1]

    def close(self) -> None:
        self._connection.close()


class Memory(RunRecords, UsageRecords, ConceptMerges, ConceptReads):
    """A concept memory in one database. Thread-safe; returned Concepts are plain values
    (keep or mutate them freely; writes go through the methods only).

    Every read and write of the memory file is a method here (the record methods are in
    `records.py`, the usage counters in `usage.py`, merging concepts and undoing it in
    `merges.py`, the concept reads, shared with the lean `reader.py`, in `reads.py`); the
    statements on concepts and revisions are sql.py's, the writes writes.py's; nothing
    outside this package writes SQL."""

    def __init__(self, url: str | Path = "memory.db", *, read_only: bool = False):
        """Open (and bring up to date) the memory at a path or URL; StoreError if it cannot be used.
        `read_only`: open it as it is, writing nothing (module docstring)."""
        self.url = str(url)
        self.read_only = read_only
        self._local = threading.local()
        try:
            path = sqlite_file(self.url)
            if read_only and path is not None:
                readable_file(path)
            self.engine = make_engine(self.url, read_only=read_only)
            self._writer = self.engine.execution_options(arcmemo_write=True)
            self._postgres = self.engine.dialect.name == "postgresql"
            with self.engine.connect() as conn:
                todo = pending(conn)
                known = applied(conn) if read_only and todo else []
            if todo and read_only:
                raise StoreError(_not_up_to_date(self.url, todo, known))
            if todo:
                with self._write() as session:
                    migrate(session.connection())
            self._watch = _RevisionWatch(path) if path is not None else None
        except (sa.exc.SQLAlchemyError, sqlite3.Error, ImportError, OSError, StoreError) as exc:
            if hasattr(self, "engine"):
                self.engine.dispose()
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"cannot open memory database {_label(self.url)}: {_open_problem(exc, self.url)}") from None

    def close(self) -> None:
        if getattr(self, "_watch", None) is not None:
            self._watch.close()
        self.engine.dispose()

    def revision(self) -> int:
        """The latest revision number (0 for an empty store): asked of the database only when
        another connection committed since it was last read (_RevisionWatch)."""
        watch = self._usable_watch()
        return watch.revision() if watch is not None else super().revision()

    def _revision_within(self, rows: Rows) -> int:
        watch = self._usable_watch()
        return watch.revision() if watch is not None else super()._revision_within(rows)

    def _usable_watch(self) -> _RevisionWatch | None:
        """The revision watch, unless there is none (not a SQLite file) or this thread is in a
        transaction (whose reads see its own writes, which the watch cannot)."""
        return None if self.in_transaction() else self._watch

    def copy_to(self, path: str | Path) -> None:
        """A consistent copy of this SQLite memory as a new file at `path` (SQLite's online backup,
        the WAL folded in); StoreError for a memory that is not a SQLite file."""
        if self.engine.dialect.name != "sqlite" or self.engine.url.database in (None, "", ":memory:"):
            raise StoreError(f"only a SQLite memory file can be copied, not {_label(self.url)}")
        with self.engine.connect() as conn:
            source = conn.connection.driver_connection
            with contextlib.closing(sqlite3.connect(str(path))) as target:
                source.backup(target)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Memory({_label(self.url)!r})"

    def migrations(self) -> list[str]:
        """Names of the schema migrations this memory has had."""
        with self.engine.connect() as conn:
            return applied(conn)

    # -- sessions and transactions -------------------------------------------------

    @contextmanager
    def _write(self, max_new_types: int = MAX_NEW_TYPES) -> Iterator[Session]:
        """One write transaction (joined if this thread is already inside `transaction()`), which
        creates at most `max_new_types` custom types (`self._local.types`, a TypeCap)."""
        active = getattr(self._local, "session", None)
        if active is not None:
            yield active
            return
        if self.read_only:
            raise StoreError(f"memory {_label(self.url)} is open read-only; nothing was written")
        with Session(self._writer, expire_on_commit=False) as session:
            if self._postgres:
                session.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_WRITE_LOCK})
            else:
                session.connection()  # emits BEGIN IMMEDIATE now, before any read
            self._local.session, self._local.types = session, TypeCap(max_new_types)
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise
            finally:
                self._local.session = None

    @contextmanager
    def _read(self) -> Iterator[Session]:
        active = getattr(self._local, "session", None)
        if active is not None:
            yield active
            return
        with Session(self.engine) as session:
            yield session

    @contextmanager
    def _reading(self) -> Iterator[Rows]:
        """The shared reads (`reads.py`) run through SQLAlchemy, inside this thread's transaction if
        any, else on a plain connection (an ORM session costs more than many of these reads)."""
        active = getattr(self._local, "session", None)
        if active is not None:
            yield _rows(active)
            return
        with self.engine.connect() as connection:
            yield _rows(connection)

    def _in_transaction(self, session: Session) -> bool:
        return session is getattr(self._local, "session", None)

    @contextmanager
    def transaction(self, *, max_new_types: int = MAX_NEW_TYPES) -> Iterator[TypeCap]:
        """Writes inside the block are all-or-nothing (one write transaction). Together they create
        at most `max_new_types` custom types; the TypeCap given says which they created and which
        they did not (a block inside another transaction shares the outer one's)."""
        with self._write(max_new_types):
            yield self._local.types

    def in_transaction(self) -> bool:
        """True inside `transaction()` on this thread: reads see its writes, which may still roll back."""
        return getattr(self._local, "session", None) is not None

    # -- writes ----------------------------------------------------------------------

    def _log(self, session: Session, concept: Concept, op: str, *, actor: str, reason: str = "",
             run_id=None, task_id=None, model=None, extra: dict | None = None) -> int:
        """Append a revision (its number is returned); `extra` adds keys to its snapshot that are not
        the concept's (a second verified helper offered for it, kept in its history as
        `offered_helper`; what a merge joined, merges.py)."""
        return log_revision(session.connection(), concept_id=concept.id, format=concept.format, name=concept.name,
                            op=op, actor=actor, reason=reason, run_id=run_id, task_id=task_id, model=model,
                            snapshot={**concept.snapshot(), **(extra or {})}, when=utcnow())

    @staticmethod
    def _one(session: Session, condition: str, params: dict[str, Any]) -> Concept | None:
        """The concept meeting `condition` (SQL on the concept table, sql.py), read in the write's transaction."""
        found = _rows(session)(concepts_where(condition, order=" ORDER BY id LIMIT 1"), params)
        return concept_of(found[0]) if found else None

    def _find(self, session: Session, data: dict[str, Any]) -> Concept | None:
        """The existing concept `data` merges into: by name, or for OE by content first."""
        if data["format"] == "oe":
            found = self._one(session, '"format" = :format AND content_hash = :hash',
                              {"format": "oe", "hash": schema.content_hash(data)})
            if found is not None:
                return found
        return self._one(session, '"format" = :format AND name = :name', {"format": data["format"], "name": data["name"]})

    def _insert(self, session: Session, data: dict, op: str, *, actor, reason="", run_id=None,
                task_id=None, model=None) -> Concept:
        now = utcnow()
        [concept_id] = insert_concepts(session.connection(), [(data, model)], op=op, actor=actor, reason=reason,
                                       run_id=run_id, task_id=task_id, when=now)
        self._learn_types(session, data, actor=actor, run_id=run_id, task_id=task_id, model=model)
        return Concept.from_data(data, id=concept_id, created_by_model=model, content_hash=schema.content_hash(data),
                                 created_at=now, updated_at=now)

    def _update(self, session: Session, concept: Concept, data: dict, op: str, **log) -> Concept:
        """The concept rewritten with `data` (same id, creation and model), logged as `op`."""
        changed = Concept.from_data({**concept.snapshot(), **data, "content_hash": schema.content_hash(data),
                                     "created_at": concept.created_at, "updated_at": utcnow()})
        change_concept(session.connection(), concept.id, data, changed.content_hash, changed.updated_at)
        self._log(session, changed, op, **log)
        return changed

    def add(self, data: dict, *, actor: str, reason: str = "", run_id: str | None = None,
            task_id: str | None = None, source: str = "human", model: str | None = None) -> Concept:
        """Add a new concept; raises ValueError if its name (or an OE lesson's content) exists."""
        clean = schema.normalize(data, source=source)
        if task_id and task_id not in clean["used_in"]:
            clean["used_in"].append(task_id)
        with self._write() as session:
            if self._find(session, clean) is not None:
                raise ConceptExists(f"{clean['format']} concept {clean['name']!r} already exists (use merge or edit)")
            self._check_helper(session, clean)
            return self._insert(session, clean, "add", actor=actor, reason=reason, run_id=run_id,
                                task_id=task_id, model=model)

    def merge(self, data: dict, *, actor: str, run_id: str | None = None, task_id: str | None = None,
              source: str = "self", model: str | None = None, reason: str = "",
              op: str | None = None) -> MergeResult:
        """Add, or merge into the concept with the same key (PS: name; OE: content) by the paper's rule.

        `task_id` is added to `used_in`. `op` overrides the revision op ("import" for importers).
        A concept that has a helper keeps it; a different verified helper offered for it is
        kept in its history (a revision whose snapshot holds it as `offered_helper`).
        """
        clean = schema.normalize(data, source=source)
        if task_id and task_id not in clean["used_in"]:
            clean["used_in"].append(task_id)
        log = dict(actor=actor, reason=reason, run_id=run_id, task_id=task_id, model=model)
        with self._write() as session:
            return self._merge(session, clean, op, log)

    def _merge(self, session: Session, clean: dict, op: str | None, log: dict,
               helpers: Mapping[str, str] | None = None) -> MergeResult:
        """`merge` of normalised data in an open write transaction; `helpers` (helper -> concept name)
        are helpers written in the same batch, which `clean`'s helper may call."""
        existing = self._find(session, clean)
        if existing is None:
            self._check_helper(session, clean, helpers)
            return MergeResult(self._insert(session, clean, op or "add", **log), "added")
        old = existing.to_data()
        merged = cdata.merge(old, clean)
        second = cdata.second_helper(old, clean)
        if merged == old and second is None:
            return MergeResult(existing, "unchanged")
        if merged["helper"] != old["helper"]:
            self._check_helper(session, merged, helpers)
        changed = self._update(session, existing, merged, op or "extend", **log) if merged != old else existing
        if second is not None:
            self._log(session, changed, op or "extend", **{**log, "reason": (
                f"{log.get('reason') or ''}; " if log.get("reason") else "") + "a second verified helper was "
                "offered; the first stays"}, extra={"offered_helper": second})
        self._learn_types(session, merged, **{k: log[k] for k in ("actor", "run_id", "task_id", "model")})
        return MergeResult(changed, "extended" if merged != old else "unchanged")

    def merge_many(self, items: list[tuple[dict, str | None]], *, actor: str, reason: str = "",
                   source: str = "import", op: str = "import", run_id: str | None = None,
                   validated: bool = False) -> dict:
        """`merge` for many `(data, model)` items in one transaction, with bulk inserts for new
        concepts (what makes importing 100k concepts take seconds, not minutes).
        `validated=True`: the data already went through `data.normalize` (importers).

        Returns {"added": n, "extended": n, "unchanged": n, "names": [names in input order]}.
        """
        batch: dict[tuple, tuple[dict, str | None]] = {}
        oe_names: dict[str, tuple] = {}
        for data, model in items:
            clean = data if validated else schema.normalize(data, source=source)
            key = cdata.merge_key(clean)
            if key[0] == "oe" and oe_names.setdefault(clean["name"], key) != key:
                raise ConceptExists(f"two different OE lessons are both named {clean['name']!r}")
            if key in batch:
                batch[key] = (cdata.merge(batch[key][0], clean), batch[key][1])
            else:
                batch[key] = (clean, model)
        counts = {"added": 0, "extended": 0, "unchanged": 0, "names": []}
        helpers = {data["helper"]["name"]: data["name"] for data, _ in batch.values() if data.get("helper")}
        with self._write() as session:
            existing = self._existing_keys(session, [data for data, _ in batch.values()])
            fresh = []
            for key, (data, model) in batch.items():
                counts["names"].append(data["name"])
                if ("name", data["format"], data["name"]) in existing or (key[0] == "oe" and ("hash", key[1]) in existing):
                    result = self._merge(session, data, op, dict(actor=actor, reason=reason, run_id=run_id,
                                                                  task_id=None, model=model), helpers)
                    counts[result.action] += 1
                else:
                    self._check_helper(session, data, helpers)
                    fresh.append((data, model))
            self._bulk_insert(session, fresh, op=op, actor=actor, reason=reason, run_id=run_id)
            counts["added"] += len(fresh)
        return counts

    @staticmethod
    def _existing_keys(session: Session, datas: list[dict], chunk: int = 500) -> set[tuple]:
        """Which of these concepts already exist: ("name", format, name) and, for OE, ("hash", content hash)."""
        found: set[tuple] = set()
        queries: dict[tuple, list[str]] = {}
        for d in datas:
            queries.setdefault(("name", d["format"]), []).append(d["name"])
            if d["format"] == "oe":
                queries.setdefault(("hash", "oe"), []).append(schema.content_hash(d))
        rows = _rows(session)
        for (what, fmt), values in queries.items():
            column = "name" if what == "name" else "content_hash"
            for i in range(0, len(values), chunk):
                some, params = one_of(column, values[i:i + chunk], "v")
                found.update(("name", fmt, v) if what == "name" else ("hash", v) for v, in
                             rows(f'SELECT {column} FROM concept WHERE "format" = :format AND {some}',
                                  {**params, "format": fmt}))
        return found

    def _bulk_insert(self, session: Session, items: list[tuple[dict, str | None]], *, op: str, actor: str,
                     reason: str, run_id: str | None) -> None:
        """New concepts and their revisions by plain executemany INSERTs (writes.py), then the custom
        types they define."""
        insert_concepts(session.connection(), items, op=op, actor=actor, reason=reason, run_id=run_id, when=utcnow())
        for data, model in items:
            self._learn_types(session, data, actor=actor, run_id=run_id, model=model)

    def edit(self, ref: int | str, changes: dict, *, actor: str, reason: str, format: str = "ps",
             run_id: str | None = None, task_id: str | None = None, model: str | None = None) -> Concept:
        """Replace the given fields (validated as a whole concept); renames keep the id. A memory
        method's edit names its run, task and model, as its adds do (the revision keeps them)."""
        with self._write() as session:
            concept = self._get(session, ref, format)
            if concept is None:
                raise UnknownConcept(_missing(ref, format))
            wanted = {**concept.to_data(), **dict(changes)}
            clean = schema.normalize(wanted, format=concept.format)
            if clean["format"] != concept.format:
                raise ConceptDataError("format: a concept's format cannot be edited", "format")
            if clean == concept.to_data():
                return concept
            clash = self._one(session, '"format" = :format AND name = :name AND id != :id',
                              {"format": clean["format"], "name": clean["name"], "id": concept.id})
            if clash is not None:
                raise ConceptExists(f"name: {clean['format']} concept {clean['name']!r} already exists (id {clash.id})")
            old, new = concept.helper, Helper.from_data(clean["helper"]) if clean["helper"] else None
            if old and new and new != old and new.verified == old.verified:
                raise ConceptDataError("helper: it changed but was not verified again (`concepts edit` verifies "
                                       "an edited helper in the sandbox before storing it)", "helper")
            if new and new != old:
                self._check_helper(session, clean)
            if old and (not new or new.name != old.name):
                self._check_no_callers(session, old.name, concept.name)
            return self._update(session, concept, clean, "edit", actor=actor, reason=reason, run_id=run_id,
                                task_id=task_id, model=model)

    def delete(self, ref: int | str, *, actor: str, reason: str, format: str = "ps", run_id: str | None = None,
               task_id: str | None = None, model: str | None = None) -> None:
        """Delete a concept (its revisions stay: `list(as_of=...)` still has it); run, task and model as for edit."""
        with self._write() as session:
            concept = self._get(session, ref, format)
            if concept is None:
                raise UnknownConcept(_missing(ref, format))
            if concept.helper:
                self._check_no_callers(session, concept.helper.name, concept.name)
            self._log(session, concept, "delete", actor=actor, reason=reason, run_id=run_id, task_id=task_id,
                      model=model)
            delete_concept(session.connection(), concept.id)

    # -- helpers -----------------------------------------------------------------------

    @staticmethod
    def _helper_rows(session: Session) -> list[tuple[str, Helper]]:
        """(concept name, helper) of every PS concept that has one."""
        found = []
        for name, helper in _rows(session)(HELPERS, {"ps": "ps"}):
            helper = json.loads(helper) if isinstance(helper, str) else helper
            if helper:
                found.append((name, Helper.from_data(helper)))
        return found

    def _check_helper(self, session: Session, data: dict, batch: Mapping[str, str] | None = None) -> None:
        """A helper about to be stored with the concept `data` (merged, if it merges): it fits the
        concept's parameters, its function name is not another concept's helper's, and every helper
        it calls is in memory (or among `batch`: helper -> concept name, written with it)."""
        helper = data.get("helper")
        if not helper:
            return
        check_helper_of(data["name"], [p["name"] for p in data["parameters"]], helper["name"], helper["source"],
                        helper["depends"])
        owners = {h.name: name for name, h in self._helper_rows(session)} | dict(batch or {})
        owner = owners.get(helper["name"])
        if owner is not None and owner != data["name"]:
            raise ConceptDataError(f"helper: concept {owner!r} already has a helper named {helper['name']}", "helper")
        missing = [name for name in helper["depends"] if name not in owners]
        if missing:
            raise ConceptDataError(f"helper: calls {', '.join(missing)}, which no concept's helper in memory "
                                   "defines", "helper.depends")

    def _check_no_callers(self, session: Session, helper: str, concept: str) -> None:
        """A helper may only go (its concept deleted, or the helper removed) when no other helper calls it."""
        callers = sorted(name for name, h in self._helper_rows(session) if helper in h.depends and name != concept)
        if callers:
            raise ConceptDataError(f"helper: {helper} is called by the helpers of {', '.join(map(repr, callers))}; "
                                   "change those first", "helper")

    def helpers(self) -> dict[str, Concept]:
        """The PS concepts that have a helper, by the helper's function name."""
        return {c.helper.name: c for c in self.list("ps") if c.helper}

    # -- reads -------------------------------------------------------------------------

    def _get(self, session: Session, ref: int | str, format: str) -> Concept | None:
        if isinstance(ref, int) and not isinstance(ref, bool):
            return self._one(session, "id = :id", {"id": ref})
        return self._one(session, '"format" = :format AND name = :name', {"format": format, "name": ref})

    def get(self, ref: int | str, format: str = "ps") -> Concept | None:
        """A concept by id (any format) or by name within `format`; None if absent."""
        with self._read() as session:
            return self._get(session, ref, format)

    def written_since(self, revision: int) -> list[tuple[str, int | None]]:
        """(format, concept id) of each concept written after `revision`, once each; a custom
        type written appears as ("type", None). What a copy taken at `revision` must re-read."""
        with self._reading() as rows:
            return [tuple(row) for row in rows(WRITTEN_SINCE, {"revision": revision})]

    # -- custom types ------------------------------------------------------------------

    def add_custom_type(self, name: str, definition: str, *, actor: str, reason: str = "",
                        run_id: str | None = None, task_id: str | None = None, model: str | None = None) -> None:
        """Define (or redefine) a PS custom type `name := definition`; logged as a revision. A new
        type counts against the write's cap (`transaction`): over it, it is not created."""
        name, definition = schema.custom_type(name, definition)
        with self._write() as session:
            self._set_type(session, name, definition, actor=actor, reason=reason, run_id=run_id,
                           task_id=task_id, model=model, overwrite=True)

    def _set_type(self, session: Session, name: str, definition: str, *, overwrite: bool, actor: str,
                  reason: str = "", run_id=None, task_id=None, model=None) -> None:
        """Create (or, `overwrite`, redefine) a custom type; a new one only within the transaction's TypeCap."""
        row = session.exec(select(CustomType).where(CustomType.name == name)).first()
        if row is not None and (row.definition == definition or not overwrite):
            return
        if row is None and not self._local.types.admit(name):
            return
        op = "add" if row is None else "edit"
        row = row or CustomType(name=name, definition=definition)
        row.definition = definition
        session.add(row)
        session.flush()
        log_revision(session.connection(), concept_id=None, format="type", name=name, op=op, actor=actor,
                     reason=reason, run_id=run_id, task_id=task_id, model=model,
                     snapshot={"name": name, "definition": definition}, when=utcnow())

    def _learn_types(self, session: Session, data: dict, **log) -> None:
        """Record custom types defined inline in typing fields (first definition wins)."""
        for name, definition in schema.custom_types_in(data).items():
            self._set_type(session, name, definition, overwrite=False, **log)

    # -- solutions -----------------------------------------------------------------------

    def add_solution(self, task_id: str, code: str, *, pseudocode: str | None = None,
                     summary: str | None = None, origin: str, verified: bool, actor: str,
                     run_id: str | None = None) -> Solution:
        """Store a solution; the same code for the same task is stored once (returns the existing row)."""
        digest = hashlib.sha256(f"{task_id}\0{code}".encode()).hexdigest()
        with self._write() as session:
            row = session.exec(select(Solution).where(Solution.content_hash == digest)).first()
            if row is None:
                row = Solution(task_id=task_id, code=code, pseudocode=pseudocode, summary=summary, origin=origin,
                               verified=verified, actor=actor, run_id=run_id, content_hash=digest)
                session.add(row)
                session.flush()
            session.expunge(row)
            return row

    def solutions(self, task_id: str | None = None) -> list[Solution]:
        with self._read() as session:
            query = select(Solution).order_by(Solution.id)
            if task_id is not None:
                query = query.where(Solution.task_id == task_id)
            rows = list(session.exec(query))
            for row in rows:
                session.expunge(row)
            return rows


def _rows(connection: Session | sa.Connection) -> Rows:
    """The `Rows` of reads.py on a connection or session: sql.py's statements run through SQLAlchemy."""
    return lambda sql, params: connection.execute(sa.text(sql), params).all()


def _label(url: str) -> str:
    """The path or URL as it may be shown: a password in a URL is masked."""
    return re.sub(r"(//[^/:@]*:)[^/@]*@", r"\1***@", url)


def _open_problem(exc: BaseException, url: str) -> str:
    """What is wrong with a memory that cannot be opened, in a few words."""
    if isinstance(exc, ImportError):
        name = getattr(exc, "name", None) or str(exc)
        hint = " (pip install 'arcmemo[postgres]')" if "psycopg" in name else ""
        return f"the database driver {name!r} is not installed{hint}"
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
    path = sqlite_file(url)
    if path is not None:
        if not path.parent.is_dir():
            return f"the directory {path.parent} does not exist"
        if path.is_dir():
            return "it is a directory, not a database file"
        if "not a database" in reason:
            return "the file is not an SQLite database"
    return reason


def _not_up_to_date(url: str, todo: list[str], known: list[str]) -> str:
    """Why a memory cannot be read as it is (read-only opening runs no migration)."""
    if not known:
        return f"{_label(url)} is not an arcmemo memory database (it has none of its tables)"
    return (f"cannot read memory database {_label(url)} as it is: an older arcmemo wrote it, and it lacks "
            f"{', '.join(todo)}; read-only commands leave it unchanged (the next command that writes memory, "
            "such as `arcmemo concepts import`, brings it up to date)")


def _missing(ref: int | str, format: str) -> str:
    if isinstance(ref, int):
        return f"no concept with id {ref}"
    return f"no {format} concept named {ref!r}"


__all__ = ["Memory", "MergeResult", "TypeCap", "MAX_NEW_TYPES", "make_engine"]
