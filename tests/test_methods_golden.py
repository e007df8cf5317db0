"""The shipped memory methods give what they gave before they were plugins: the same submissions,
the same memory and the same model requests, byte for byte (tests/methods_golden.py made the
records in tests/data/methods_golden/ on the code before the change)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from methods_golden import METHODS, run_method

GOLDEN = Path(__file__).resolve().parent / "data" / "methods_golden"


@pytest.mark.parametrize("method", list(METHODS))
def test_method_reproduces_its_recorded_run(method, tmp_path):
    recorded = json.loads((GOLDEN / f"{method}.json").read_text())
    now = json.loads(json.dumps(run_method(method, tmp_path)))
    assert now["calls"] == recorded["calls"]              # every request, in order, with the same messages
    assert now["memory"] == recorded["memory"]            # the memory export, byte for byte
    assert now["submissions"] == recorded["submissions"]
    assert (now["passed_train"], now["writes"]) == (recorded["passed_train"], recorded["writes"])


def test_the_recorded_runs_cover_reads_writes_and_the_train_only_filter():
    """What makes the comparison worth something: memory changes a result, and the task that
    never passed its train pairs wrote nothing."""
    from methods_golden import NEEDS_MEMORY, NEVER

    runs = {m: json.loads((GOLDEN / f"{m}.json").read_text()) for m in METHODS}
    assert NEEDS_MEMORY not in runs["none"]["passed_train"]
    for method in ("ps", "oe", "cheatsheet", "all"):
        assert NEEDS_MEMORY in runs[method]["passed_train"], method
    for method in ("ps", "oe"):
        assert runs[method]["writes"] == 3 and NEVER not in runs[method]["memory"], method
    # Dynamic Cheatsheet's curator runs after every task, the never-solved one too (issue 40)
    assert runs["cheatsheet"]["writes"] == 4 and NEVER in runs["cheatsheet"]["memory"]
