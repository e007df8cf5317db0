"""The paper's released data in tests: found from the checkout (benchmarks/shared_data.py). A
test that needs a file is marked `@needs_reference(name)`: without the file it is skipped with
a reason naming what is missing and where it was looked for, which the test summary lists at
the test's own line (`pytest -ra`, the default here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.shared_data import OE_LESSONS, PS_MEMORY, missing, reference


def needs_reference(*names: str) -> pytest.MarkDecorator:
    """Skip unless every released file named (PS_MEMORY, OE_LESSONS) is found."""
    absent = [name for name in names if reference(name) is None]
    return pytest.mark.skipif(bool(absent), reason="; ".join(missing(name) for name in absent))


def reference_file(name: str) -> Path:
    """The released file `name`, in a test marked as needing it."""
    path = reference(name)
    assert path is not None, f"mark the test @needs_reference({name!r}): {missing(name)}"
    return path


__all__ = ["OE_LESSONS", "PS_MEMORY", "needs_reference", "reference_file"]
