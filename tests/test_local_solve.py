"""Smoke test: `arcmemo solve` end to end on the real embedded model (the [local] extra).

A trivial puzzle (mirror every row) and a memory holding one relevant concept with a
concrete implementation note: the measured behaviour of the 1.5B model is that it solves
such a task with the concept and not without it. Slow (about a minute on 2 cores).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arcmemo.llm import local
from arcmemo.memory.store import Memory

TASK = Path(__file__).parent / "data" / "mirror_rows.json"
CONCEPT = {
    "format": "ps", "name": "mirror each row", "kind": "routine", "routine_subtype": "grid manipulation",
    "output_typing": "grid", "description": "reverse the order of the cells in every row (left-right mirror)",
    "parameters": [{"name": "grid", "typing": "grid", "description": "the input grid"}],
    "cues": ["each output row holds the input row's cells in reverse order"],
    "implementation": ["return [list(row)[::-1] for row in grid]"],
}


@pytest.mark.slow
@pytest.mark.local_model
def test_embedded_model_solves_a_trivial_task_with_one_concept(tmp_path):
    reason = local.unavailable("local")
    if reason:
        pytest.skip(f"the [local] extra is not installed: {reason}")
    Memory(str(tmp_path / "memory.db")).add(CONCEPT, actor="test")
    result = subprocess.run(
        [sys.executable, "-m", "arcmemo", "solve", "--split", str(TASK), "--selection", "all", "--retries", "1",
         "--temperature", "0", "--db", str(tmp_path / "memory.db"), "--run-dir", str(tmp_path / "runs"), "-q"],
        capture_output=True, text=True, timeout=900, env={**os.environ, "ARCMEMO_HOME": str(tmp_path / "home")},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    config = json.loads((run_dir / "config.json").read_text())
    assert config["models"]["solver"] == "local"
    assert summary["usage"]["calls"] >= 1 and summary["usage"]["completion_tokens"] > 0
    assert summary["oracle2"] == 100.0, (run_dir / "events.jsonl").read_text()[-3000:]
