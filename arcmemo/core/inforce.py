"""A choice in force for the whole process while a run lasts (its grid text, its templates).

A run's tasks and threads, on threads of their own, all render prompts the same way; a
value they read from here, set once when the run starts (`with choice.set(value):`) and
restored when it ends, needs no passing down through every step, and, unlike a
contextvars.ContextVar, is seen by threads the run starts (which do not inherit a context).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class InForce(Generic[T]):
    """A value every thread of the process reads (`.value`), set for the length of a block."""

    def __init__(self, default: T):
        self.value = default

    @contextmanager
    def set(self, value: T) -> Iterator[T]:
        previous, self.value = self.value, value
        try:
            yield value
        finally:
            self.value = previous


__all__ = ["InForce"]
