"""The store's user-facing errors: one base, `StoreError`, for everything a user can cause
(a path that is not a memory, a name that is not there, data that does not fit the schema).

Each also subclasses the builtin its callers caught before (ValueError, LookupError), so
existing `except` clauses keep working. Internal bugs are never StoreErrors.
"""

from __future__ import annotations

from arcmemo.core.errors import ArcmemoError


class StoreError(ArcmemoError):
    """A memory could not be opened, or refused a request; the message says what and where."""


class ConceptDataError(StoreError, ValueError):
    """A concept's data is malformed; `field` names the offending field (dotted path) and
    `detail` says what is wrong with it (the message without the field; the whole message
    when not given)."""

    def __init__(self, message: str, field: str | None = None, detail: str | None = None):
        super().__init__(message)
        self.field = field
        self.detail = message if detail is None else detail


class ConceptExists(StoreError, ValueError):
    """A concept with this name (or, for a lesson, this content) is already in memory."""


class UnknownConcept(StoreError, LookupError):
    """No concept matches the name or id given; the message suggests close names."""


class MergeRefused(StoreError, ValueError):
    """Two concepts cannot be merged into one (or a merge cannot be undone) without losing or
    breaking something; the message names both concepts and says why."""


__all__ = ["StoreError", "ConceptDataError", "ConceptExists", "UnknownConcept", "MergeRefused"]
