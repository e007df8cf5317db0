"""SQLModel tables of the memory database: custom types, solutions, usage counts and the records
that explain writes (runs, write failures, older selection records). The concept table and the
revision log are rows.py's (one row shape each: a `Concept`'s columns, a `Revision`'s),
registered in the same metadata.

The schema is created by the numbered migrations in `migrations.py`, never by
`create_all`; a test checks that the two agree.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from arcmemo.memory.schema.concept import utcnow
from arcmemo.memory.store.rows import CONCEPTS, REVISIONS

OPS = ("add", "extend", "edit", "delete", "import",
       "merge", "merged", "split")    # consolidation (merges.py): absorbed into, absorbed, undone


class CustomType(SQLModel, table=True):
    """A PS custom type (`name := definition`)."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    definition: str = Field(sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow)


class Solution(SQLModel, table=True):
    """A solution program for a task (human seed or verified self-solve)."""

    id: int | None = Field(default=None, primary_key=True)
    task_id: str = Field(index=True)
    code: str = Field(sa_type=Text)
    pseudocode: str | None = Field(default=None, sa_type=Text)
    summary: str | None = Field(default=None, sa_type=Text)
    origin: str = "human"
    verified: bool = False
    actor: str = ""
    run_id: str | None = None
    content_hash: str = Field(index=True)
    created_at: datetime = Field(default_factory=utcnow)


class Run(SQLModel, table=True):
    id: str = Field(primary_key=True)
    created_at: datetime = Field(default_factory=utcnow)
    kind: str = "solve"
    config: dict = Field(default_factory=dict, sa_type=JSON)
    status: str = "running"
    memory_revision_start: int | None = None
    memory_revision_end: int | None = None


class SelectionRecord(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    run_id: str | None = Field(default=None, index=True)
    task_id: str = Field(index=True)
    pass_index: int = 0
    mode: str
    concept_ids: list = Field(default_factory=list, sa_type=JSON)
    hint: str | None = Field(default=None, sa_type=Text)
    reasoning: str | None = Field(default=None, sa_type=Text)
    unmatched: list = Field(default_factory=list, sa_type=JSON)
    fallback: bool = False
    error: str | None = Field(default=None, sa_type=Text)
    usage: dict = Field(default_factory=dict, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow)


class ConceptUsage(SQLModel, table=True):
    """How one task of one run used one concept: the memory's own measure of its usefulness.

    One row per (run, pass, task, concept offered to the task), replaced if the task is
    solved again (a resumed run counts each task once). A funnel: `called` (a program called
    the concept's helper) needs `offered`, `called_passing` (by a program passing every train
    pair) needs `called`, `solved` (called in a task the run finally solved) needs `called`.
    `offered_passing`: offered to a task some program of which passed every train pair (train
    pairs alone decide it, for every method). `helpful` / `harmful`: the memory method's own
    verdict on the item for this task (ACE's reflector tags; neither: no verdict, or neutral).
    """

    __table_args__ = (UniqueConstraint("run_id", "pass_index", "task_id", "concept_id", name="uq_usage_task"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(index=True)
    pass_index: int = 1
    task_id: str
    concept_id: int = Field(index=True)
    offered: bool = True
    called: bool = False
    called_passing: bool = False
    solved: bool = False
    offered_passing: bool = False
    helpful: bool = False
    harmful: bool = False
    created_at: datetime = Field(default_factory=utcnow)


class WriteFailure(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    run_id: str | None = Field(default=None, index=True)
    task_id: str = Field(index=True)
    step: str
    model: str | None = None
    error: str = Field(sa_type=Text)
    raw: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow)


__all__ = ["CONCEPTS", "REVISIONS", "ConceptUsage", "CustomType", "OPS", "Run", "SelectionRecord", "Solution",
           "WriteFailure"]
