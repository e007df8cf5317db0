"""The README's test command (`pytest`) leaves the slow tests out and says so; `pytest --slow` runs them (CI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _collect(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "tests/test_sandbox_hostile.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_plain_pytest_leaves_the_slow_tests_out_and_says_how_to_run_them():
    out = _collect()
    assert "test_recursion_bomb_with_raised_limit_runs_out_of_memory" not in out
    assert "deselected" in out and "`pytest --slow` runs them too" in out


def test_slow_option_runs_them():
    out = _collect("--slow")
    assert "test_recursion_bomb_with_raised_limit_runs_out_of_memory" in out and "deselected" not in out
