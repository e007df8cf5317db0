"""The call log: numbered migrations (also of a log written before they existed), no secret
in it, and model text it can always keep (lone surrogates)."""

from __future__ import annotations

import sqlite3

import pytest
from llm_stub import StubServer, completion_body

from arcmemo.core.secrets import REDACTED, redact, register_secret
from arcmemo.llm import EndpointFatal
from arcmemo.llm.client import LLM, LLMSettings
from arcmemo.llm.log import CallLog
from arcmemo.llm.logdb import MIGRATIONS

KEY = "sk-proj-" + "Abc123xyz" * 4      # looks like a real key; registered by LLMSettings
MSG = [{"role": "user", "content": "2+2?"}]

# The schema the log had before migrations existed (arcmemo 0.1.0's log.py).
OLD_SCHEMA = """
CREATE TABLE calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT, created_at REAL NOT NULL, run_id TEXT, task_id TEXT,
    role TEXT, step TEXT, sample INTEGER NOT NULL DEFAULT 0, model TEXT NOT NULL, endpoint TEXT,
    cache_key TEXT NOT NULL, request_json TEXT NOT NULL, response_text TEXT, reasoning TEXT,
    choices_json TEXT, prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0, latency_s REAL NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0, cached INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 1,
    error TEXT);
CREATE INDEX calls_cache_key ON calls (cache_key) WHERE error IS NULL AND cached = 0;
CREATE INDEX calls_run ON calls (run_id);
INSERT INTO calls (created_at, run_id, model, cache_key, request_json, response_text, prompt_tokens)
    VALUES (1.0, 'old-run', 'gpt-4.1', 'k1', '{}', 'an old answer', 12);
INSERT INTO calls (created_at, run_id, model, cache_key, request_json, error)
    VALUES (2.0, 'old-run', 'gpt-4.1', 'k2', '{}', 'HTTP 500');
"""


def _schema(path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"))


def _applied(path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]


def test_a_new_log_gets_every_migration_once(tmp_path):
    path = tmp_path / "calls.db"
    CallLog(path).close()
    CallLog(path).close()
    assert _applied(path) == [fn.__name__ for fn in MIGRATIONS] == [
        "m001_calls", "m002_error_kind_and_task_index", "m003_finish_reason"]
    names = {name for _, name, _ in _schema(path)}
    assert {"calls", "_migrations", "calls_cache_key", "calls_run", "calls_task"} <= names


def test_a_log_from_before_migrations_is_migrated_without_losing_a_row(tmp_path):
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    with sqlite3.connect(old) as conn:
        conn.executescript(OLD_SCHEMA)
    with CallLog(old) as log:
        rows = log.list(run_id="old-run")
        assert [(r.response_text, r.prompt_tokens, r.error, r.error_kind, r.finish_reason) for r in rows] == [
            (None, 0, "HTTP 500", "error", None), ("an old answer", 12, None, None, None)]
        assert log.lookup("k1").response_text == "an old answer"
    CallLog(new).close()
    # an old log and a new one end with the same schema
    strip = [(t, n, " ".join(s.split()) if s else s) for t, n, s in _schema(old)]
    assert [x[:2] for x in strip] == [x[:2] for x in _schema(new)]


def test_an_answer_cut_at_the_token_limit_is_recorded_as_cut_live_and_from_the_cache(tmp_path):
    """The endpoint's finish reason ("length": the answer ended at max_tokens) is kept in the
    Completion and the log, and a cache hit of a cut answer is cut too."""
    with StubServer() as stub:
        stub.script({"body": completion_body("```python\ndef transform(g):", finish_reason="length")},
                    {"body": completion_body("done")})
        with LLM(LLMSettings(base_url=stub.base_url, api_key="sk-test", solver_model="m", aux_model="m",
                             select_model="m", log_path=str(tmp_path / "calls.db"))) as llm:
            cut = llm.chat(MSG, role="solver", step="solve", max_tokens=8)
            whole = llm.chat(MSG, role="solver", step="solve", sample=1, max_tokens=8)
            again = llm.chat(MSG, role="solver", step="solve", max_tokens=8)
            records = {c.call_id: llm.call_log.get(c.call_id) for c in (cut, whole, again)}
            usage = llm.call_log.usage(group_by=())
    assert (cut.finish_reason, cut.cut, whole.finish_reason, whole.cut) == ("length", True, "stop", False)
    assert again.cached and again.cut
    assert [(r.finish_reason, r.cut) for r in records.values()] == [("length", True), ("stop", False), ("length", True)]
    assert usage[0]["cut"] == 2 and records[cut.call_id].to_dict(full=False)["finish_reason"] == "length"


def test_the_api_key_is_never_in_the_log_or_the_run_config(isolated_home):
    with StubServer() as stub:
        stub.script({"body": completion_body(f"your key is {KEY}", reasoning=f"I saw {KEY}")},
                    stub.error(401, f"Incorrect API key provided: {KEY}"))
        settings = LLMSettings(base_url=stub.base_url, api_key=KEY, solver_model="m", aux_model="m",
                               select_model="m")
        with LLM(settings) as llm:
            # a key that leaked into feedback text is not sent either
            c = llm.chat([{"role": "user", "content": f"Traceback: env OPENAI_API_KEY={KEY}"}],
                         role="solver", step="solve")
            with pytest.raises(EndpointFatal) as info:
                llm.chat(MSG, role="solver", step="solve", sample=1)
        assert KEY not in stub.requests[0]["messages"][0]["content"]
        assert REDACTED in stub.requests[0]["messages"][0]["content"]
    assert KEY not in str(info.value) and KEY not in repr(settings)
    assert KEY not in str(settings.to_dict())
    assert c.text == f"your key is {KEY}"          # the caller's own answer is left as it came
    blob = (isolated_home / "calls.db").read_bytes()
    for wal in isolated_home.glob("calls.db*"):
        blob += wal.read_bytes()
    assert KEY.encode() not in blob and b"Abc123xyz" * 4 not in blob


def test_a_password_in_the_base_url_is_kept_out_of_the_run_config():
    s = LLMSettings(base_url="http://user:hunter2-secret@127.0.0.1:8000/v1")
    assert s.to_dict()["base_url"] == "http://user:***@127.0.0.1:8000/v1"
    assert redact("failed: http://user:hunter2-secret@host") == f"failed: http://user:{REDACTED}@host"


def test_redact_leaves_short_values_and_other_text_alone():
    register_secret("abc")                  # too short to be a key: not a secret
    register_secret(None)
    assert redact("abc and more") == "abc and more"
    register_secret("a-long-secret-value")
    assert redact("x a-long-secret-value y a-long-secret-value") == f"x {REDACTED} y {REDACTED}"


def test_a_lone_surrogate_in_an_answer_is_logged_with_its_tokens(fake_model, fake_llm):
    fake_model.queue("solve", "def transform(g):\n    return g  # \ud800 odd")
    c = fake_llm.chat([{"role": "user", "content": "a prompt with \udfff too"}], role="solver", step="solve")
    assert c.text == "def transform(g):\n    return g  # \ufffd odd"
    record = fake_llm._log.get(c.call_id)
    assert record.response_text == c.text and record.completion_tokens == c.completion_tokens > 0
    assert "\ufffd too" in record.request["messages"][0]["content"]
    again = fake_llm.chat([{"role": "user", "content": "a prompt with \udfff too"}], role="solver", step="solve")
    assert again.cached and again.text == c.text
