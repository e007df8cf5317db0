"""Test-wide fixtures: every test gets its own user directory, so no test reads ~/.arcmemo."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("arcmemo_home")
    monkeypatch.setenv("ARCMEMO_HOME", str(home))
    for var in ("ARCMEMO_DB", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ARCMEMO_SOLVER_MODEL",
                "ARCMEMO_AUX_MODEL", "ARCMEMO_SELECT_MODEL"):
        monkeypatch.delenv(var, raising=False)
    return home
