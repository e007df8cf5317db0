"""The suite leaves a user's settings and files alone: run from a shell whose environment names a
call log, an endpoint and models of its own, its tests neither write that log nor read those
settings (tests/conftest.py removes every ARCMEMO_* and OPENAI_* variable)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# a test whose model calls go to the default call log, and one that reads the endpoint and models
TESTS = ["tests/test_abstraction.py::test_retry_with_the_error_then_success",
         "tests/test_llm_settings.py::test_default_is_the_offline_model_when_no_endpoint"]


def test_the_suite_never_touches_a_users_call_log(tmp_path):
    user_log = tmp_path / "user" / "calls.db"
    env = {**os.environ, "ARCMEMO_LOG_DB": str(user_log), "HOME": str(tmp_path / "user"),
           "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-user",
           "ARCMEMO_SOLVER_MODEL": "users-model", "ARCMEMO_AUX_MODEL": "users-model",
           "ARCMEMO_SELECT_MODEL": "users-model", "ARCMEMO_CACHE": "false"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not user_log.exists() and not user_log.parent.exists()
