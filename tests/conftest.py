"""Test-wide fixtures: every test gets its own user directory, so no test reads ~/.arcmemo."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

SLOW_OPTION = "--slow"
# What the suite itself reads from the environment (where CI's PostgreSQL is, what isolation the
# machine allows, where the released code's mirror is): kept; no setting of arcmemo is named so.
TEST_KNOBS = ("ARCMEMO_TEST_POSTGRES_URL", "ARCMEMO_EXPECT_ISOLATION", "ARCMEMO_RELEASED_MIRROR")
# Every other variable with these prefixes is removed, for the whole run and again for each test:
# arcmemo's settings (a user's ARCMEMO_LOG_DB would receive the suite's calls and answer one test
# from another's) and what the openai package reads (OPENAI_BASE_URL, OPENAI_ORG_ID, ...).
USER_PREFIXES = ("ARCMEMO_", "OPENAI_")


def user_settings() -> list[str]:
    """The variables of the environment the suite removes (USER_PREFIXES, but the TEST_KNOBS)."""
    return [var for var in os.environ if var.startswith(USER_PREFIXES) and var not in TEST_KNOBS]


def pytest_configure(config):
    """Collection has a user directory of its own too: test modules name the installed plugins at
    import (parametrize), and the entry points are remembered in the user directory. So has code
    that runs outside a test's own fixtures (session and module fixtures, subprocesses): nothing
    a test run does reaches the user's ~/.arcmemo, nor a call log named in the caller's shell, nor
    any other setting of the caller's."""
    for var in user_settings():
        del os.environ[var]
    config._arcmemo_collect_home = tempfile.mkdtemp(prefix="arcmemo-collect-")
    os.environ["ARCMEMO_HOME"] = config._arcmemo_collect_home


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_arcmemo_collect_home", ""), ignore_errors=True)


def pytest_addoption(parser):
    parser.addoption(SLOW_OPTION, action="store_true", default=False,
                     help="also run the tests marked slow (the embedded model, the browser, Ray, real processes "
                          "killed and timed); .ci/run does")


def pytest_collection_modifyitems(config, items):
    """Without --slow, the slow tests are deselected (not skipped: nothing to read in the summary for them)
    and the header says how many and how to run them."""
    if config.getoption(SLOW_OPTION) or config.getoption("markexpr"):
        return          # --slow, or the user chose with -m
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
        config.hook.pytest_deselected(items=slow)
        config._arcmemo_slow_deselected = len(slow)


def pytest_report_header(config):
    if not config.getoption(SLOW_OPTION):
        return f"slow tests are left out: run `pytest {SLOW_OPTION}` for them too (the embedded model, browsers, Ray)"
    return None


def pytest_terminal_summary(terminalreporter, config):
    count = getattr(config, "_arcmemo_slow_deselected", 0)
    if count:
        terminalreporter.write_line(f"{count} slow tests were left out; `pytest {SLOW_OPTION}` runs them too")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory):
    """A user directory of the test's own, and none of the caller's settings from the environment."""
    home = tmp_path_factory.mktemp("arcmemo_home")
    with pytest.MonkeyPatch.context() as patch:     # not the test's monkeypatch: its undo() leaves this
        for var in user_settings():
            patch.delenv(var)
        patch.setenv("ARCMEMO_HOME", str(home))
        patch.setenv("ARCMEMO_RUNS_DIR", str(home / "runs"))     # never ./runs of the checkout
        yield home


@pytest.fixture
def fake_model():
    """A scripted FakeModel registered as the model name "fake" (see arcmemo/llm/fake.py)."""
    from arcmemo.llm.backend import register_model, unregister_model
    from arcmemo.llm.fake import FakeModel

    fake = FakeModel("fake")
    register_model("fake", fake)
    yield fake
    unregister_model("fake")


@pytest.fixture
def fake_llm(fake_model):
    """An LLM whose three roles are the fake model; concurrency 4, tiny retry backoff.

    The response cache is on, as in the product: a repeated identical request (same
    messages, params and sample index) is served from the call log and does not consume a
    queued reply. Pass a different `sample=` to get a fresh reply for the same prompt.
    """
    from arcmemo.llm.client import LLM, LLMSettings

    settings = LLMSettings(solver_model="fake", aux_model="fake", select_model="fake",
                           concurrency=4, backoff_base_s=0.001, backoff_max_s=0.01, max_attempts=3)
    llm = LLM(settings)
    yield llm
    llm.close()


@pytest.fixture(scope="session")
def web_fixture(tmp_path_factory):
    """A memory and two finished runs (tests/web_support.py), built once for the report and page tests."""
    from web_support import build_fixture

    return build_fixture(tmp_path_factory.mktemp("web_fixture"))
