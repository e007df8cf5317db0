"""The test suite never touches the user's ~/.arcmemo (issue 39 point 11: `pytest` left an empty
~/.arcmemo/calls.db): every test has a user directory of its own, which the test's own
`monkeypatch.undo()` does not take away, and whatever runs outside a test has the run's own. Nor
the user's settings (issue 42.6): run from a shell whose environment names a call log, an
endpoint and models of its own, the tests neither write that log nor read those settings
(tests/conftest.py removes every ARCMEMO_* and OPENAI_* variable but the suite's own knobs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arcmemo.core.config import user_dir
from arcmemo.llm.log import log_path

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def home_outside_tests() -> str | None:
    """ARCMEMO_HOME as a module fixture finds it: before any test's own fixtures are set up."""
    return os.environ.get("ARCMEMO_HOME")


def test_a_tests_monkeypatch_undo_leaves_its_own_user_directory(monkeypatch, isolated_home):
    monkeypatch.setenv("ARCMEMO_SOLVER_MODEL", "any")
    monkeypatch.undo()              # undoes this test's patches only, not the isolation
    assert user_dir() == isolated_home and log_path() == isolated_home / "calls.db"


def test_code_outside_a_test_has_a_user_directory_of_the_runs_own(home_outside_tests):
    assert home_outside_tests and Path(home_outside_tests).name.startswith("arcmemo-collect-")
    assert Path(home_outside_tests) != Path.home() / ".arcmemo"


@pytest.mark.slow     # a pytest of its own: 5-17 s
def test_tests_that_undo_their_patches_leave_home_untouched(tmp_path):
    """Run, with HOME an empty folder, the tests that call monkeypatch.undo() and then count tokens
    or export memory: the folder stays empty (before, ~/.arcmemo/calls.db appeared)."""
    env = {k: v for k, v in os.environ.items() if k not in ("ARCMEMO_HOME", "ARCMEMO_LOG_DB")}
    env["HOME"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_llm_tokens.py::test_a_moved_fast_route_counts_through_the_public_api_and_says_so",
                           "tests/test_memory_io.py::test_the_export_command_never_leaves_a_half_written_file"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_no_setting_of_the_callers_reaches_a_test():
    from conftest import TEST_KNOBS, USER_PREFIXES

    left = {var for var in os.environ if var.startswith(USER_PREFIXES)} - set(TEST_KNOBS)
    assert left == {"ARCMEMO_HOME", "ARCMEMO_RUNS_DIR"}          # the test's own user directory


# a test whose model calls go to the default call log, and one that reads the endpoint and models
TESTS = ["tests/test_abstraction.py::test_retry_with_the_error_then_success",
         "tests/test_llm_settings.py::test_default_is_the_offline_model_when_no_endpoint"]


@pytest.mark.slow     # a pytest of its own: 5-10 s
def test_the_suite_never_touches_a_users_call_log_nor_reads_their_settings(tmp_path):
    user_log = tmp_path / "user" / "calls.db"
    env = {**os.environ, "ARCMEMO_LOG_DB": str(user_log), "HOME": str(tmp_path / "user"),
           "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-user",
           "ARCMEMO_SOLVER_MODEL": "users-model", "ARCMEMO_AUX_MODEL": "users-model",
           "ARCMEMO_SELECT_MODEL": "users-model", "ARCMEMO_CACHE": "false",
           "ARCMEMO_BASE_URL": "http://127.0.0.1:9/v1", "ARCMEMO_CONCURRENCY": "0", "OPENAI_ORG_ID": "org-user"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not user_log.exists() and not user_log.parent.exists()
