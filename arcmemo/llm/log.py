"""The call log and response cache: every model call in one SQLite file.

Location: the `log_path` setting ($ARCMEMO_LOG_DB, config `log_path`), else
$ARCMEMO_HOME/calls.db. One row per call (including cache hits and failures). The cache key
is the sha256 of the full request — resolved model, endpoint identity, messages and
parameters — plus the prompt step and the sample index, so
`n` independent samples of one prompt stay independent, two steps never share an answer,
and a re-run or resumed run is served from here. Only successful live calls are served
from the cache; failures are logged but never replayed. Each answer keeps its finish reason
(`length`: cut at the token limit), and a cache hit the original's. The local model's endpoint
identity is `local://<name>/<weights sha256 prefix>`, stable across server ports.
Several processes may write at once (WAL journal, busy timeout). The schema and its
numbered migrations are in logdb.py.

What is written is safe to keep: known secrets (the API key) are redacted from the request,
the answer and the error, and lone surrogates in model text become U+FFFD, so an answer
that carries one is still logged with its tokens.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arcmemo.core.config import setting_value, user_dir
from arcmemo.core.secrets import redact
from arcmemo.llm.logdb import connect
from arcmemo.llm.usage import is_cut

COLUMNS = ("id", "created_at", "run_id", "task_id", "role", "step", "sample", "model", "endpoint",
           "cache_key", "request_json", "response_text", "reasoning", "choices_json",
           "prompt_tokens", "completion_tokens", "reasoning_tokens", "latency_s", "cost_usd",
           "cached", "attempts", "error", "error_kind", "finish_reason")
ERROR_KINDS = ("fatal", "unavailable", "error")


def log_path() -> Path:
    """The `log_path` setting (ARCMEMO_LOG_DB, config `log_path`), else calls.db in the user directory."""
    return setting_value("log_path") or user_dir() / "calls.db"


def cache_key(request: dict[str, Any], sample: int) -> str:
    """sha256 over the canonical JSON of the request plus the sample index."""
    # imported here, as utf8_safe below: reading the log (`calls list`) needs neither
    import hashlib

    blob = json.dumps({"request": request, "sample": int(sample)}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class CallRecord:
    """One row of the log (what `arcmemo calls show` prints)."""

    id: int
    created_at: float
    run_id: str | None
    task_id: str | None
    role: str | None
    step: str | None
    sample: int
    model: str
    endpoint: str | None
    cache_key: str
    request_json: str
    response_text: str | None
    reasoning: str | None
    choices_json: str | None
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    latency_s: float
    cost_usd: float
    cached: bool
    attempts: int
    error: str | None
    error_kind: str | None = None   # fatal | unavailable | error (errors.py)
    finish_reason: str | None = None  # why the answer ended: stop, length (cut at max_tokens), ...

    @property
    def cut(self) -> bool:
        """The answer ended at the token limit (finish reason "length")."""
        return is_cut(self.finish_reason)

    @property
    def request(self) -> dict[str, Any]:
        return json.loads(self.request_json)

    @property
    def choices(self) -> list[str]:
        if self.choices_json:
            return json.loads(self.choices_json)
        return [] if self.response_text is None else [self.response_text]

    def to_dict(self, full: bool = True) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in COLUMNS if name not in ("request_json", "choices_json")}
        data["cached"] = bool(self.cached)
        if full:
            data["request"] = self.request
            data["choices"] = self.choices
        else:
            data.pop("response_text")
            data.pop("reasoning")
        return data


class CallLog:
    """Thread-safe handle on the log file (one connection, guarded by a lock)."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else log_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = connect(self.path)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> CallLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------
    def record(self, *, run_id, task_id, role, step, sample, model, endpoint, key, request,
               response_text=None, reasoning=None, choices=None, prompt_tokens=0,
               completion_tokens=0, reasoning_tokens=0, latency_s=0.0, cost_usd=0.0,
               cached=False, attempts=1, error=None, error_kind=None, finish_reason=None) -> int:
        if error is not None and error_kind not in ERROR_KINDS:
            error_kind = "error"
        choices_json = _safe(json.dumps(choices)) if choices is not None and len(choices) > 1 else None
        row = (time.time(), run_id, task_id, role, step, int(sample), model, endpoint, key,
               _safe(json.dumps(request, ensure_ascii=False, default=str)), _safe(response_text),
               _safe(reasoning), choices_json, int(prompt_tokens), int(completion_tokens),
               int(reasoning_tokens), float(latency_s), float(cost_usd), 1 if cached else 0, int(attempts),
               _safe(error), error_kind if error is not None else None,
               None if error is not None or not finish_reason else _safe(str(finish_reason)[:40]))
        with self._lock:
            cur = self._conn.execute(
                f"INSERT INTO calls ({', '.join(COLUMNS[1:])}) VALUES ({', '.join('?' * len(row))})", row)
            return int(cur.lastrowid)

    # -- reading -----------------------------------------------------------------------
    def lookup(self, key: str) -> CallRecord | None:
        """The earliest successful real (non-cached) call with this cache key."""
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM calls WHERE cache_key = ? AND error IS NULL AND cached = 0"
                " ORDER BY id LIMIT 1", (key,)).fetchone()
        return _record(row) if row else None

    def replayed_from(self, run_id: str, sources: list[str]) -> dict[str, int]:
        """How many of run `run_id`'s calls the cache answered with a call first made by each
        run of `sources` (a run replaying another's answers instead of asking afresh)."""
        if not sources:
            return {}
        marks = ",".join("?" * len(sources))
        with self._lock:
            rows = self._conn.execute(
                "SELECT first.run_id AS source, COUNT(*) AS n FROM calls AS hit"
                " JOIN calls AS first ON first.id = (SELECT MIN(id) FROM calls WHERE cache_key = hit.cache_key"
                " AND error IS NULL AND cached = 0)"
                f" WHERE hit.run_id = ? AND hit.cached = 1 AND first.run_id IN ({marks}) AND first.run_id != ?"
                " GROUP BY first.run_id", (run_id, *sources, run_id)).fetchall()
        return {row["source"]: int(row["n"]) for row in rows}

    def answerable(self, run_id: str, role: str) -> tuple[int, int]:
        """(requests, answered): how many distinct requests run `run_id` made of `role`'s model, and
        how many of them this log can still answer from its cache (a successful real call with
        the same key), as a run asking the same again would be answered."""
        with self._lock:
            row = self._conn.execute(
                "SELECT COUNT(DISTINCT asked.cache_key) AS requests, COUNT(DISTINCT CASE WHEN EXISTS ("
                " SELECT 1 FROM calls AS real WHERE real.cache_key = asked.cache_key AND real.error IS NULL"
                " AND real.cached = 0) THEN asked.cache_key END) AS answered"
                " FROM calls AS asked WHERE asked.run_id = ? AND asked.role = ?", (run_id, role)).fetchone()
        return int(row["requests"]), int(row["answered"])

    def get(self, call_id: int) -> CallRecord | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM calls WHERE id = ?", (int(call_id),)).fetchone()
        return _record(row) if row else None

    def list(self, *, run_id=None, task_id=None, step=None, model=None, errors_only=False,
             limit: int | None = 50) -> list[CallRecord]:
        """Newest first."""
        where, args = [], []
        for column, value in (("run_id", run_id), ("task_id", task_id), ("step", step), ("model", model)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        if errors_only:
            where.append("error IS NOT NULL")
        sql = "SELECT * FROM calls" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        return [_record(r) for r in rows]

    def usage(self, *, run_id=None, group_by: tuple[str, ...] = ("model",)) -> list[dict[str, Any]]:
        """Totals per group. Tokens and cost count real calls only; cache hits are counted apart."""
        allowed = {"model", "role", "step", "task_id", "run_id", "endpoint"}
        bad = set(group_by) - allowed
        if bad:
            raise ValueError(f"usage: cannot group by {sorted(bad)}; choose from {sorted(allowed)}")
        cols = ", ".join(group_by)
        sql = (f"SELECT {cols + ', ' if cols else ''}COUNT(*) AS calls,"
               " SUM(cached) AS cache_hits,"
               " SUM(CASE WHEN error IS NOT NULL THEN 1 ELSE 0 END) AS errors,"
               " SUM(CASE WHEN finish_reason = 'length' THEN 1 ELSE 0 END) AS cut,"
               " SUM(CASE WHEN cached = 0 THEN prompt_tokens ELSE 0 END) AS prompt_tokens,"
               " SUM(CASE WHEN cached = 0 THEN completion_tokens ELSE 0 END) AS completion_tokens,"
               " SUM(CASE WHEN cached = 0 THEN reasoning_tokens ELSE 0 END) AS reasoning_tokens,"
               " SUM(cost_usd) AS cost_usd,"
               " SUM(CASE WHEN cached = 0 THEN latency_s ELSE 0 END) AS latency_s"
               " FROM calls")
        args: list[Any] = []
        if run_id is not None:
            sql += " WHERE run_id = ?"
            args.append(run_id)
        if cols:
            sql += f" GROUP BY {cols} ORDER BY {cols}"
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        out = []
        for row in rows:
            data = dict(row)
            if not data["calls"]:
                continue
            for name in ("cache_hits", "errors", "cut", "prompt_tokens", "completion_tokens", "reasoning_tokens"):
                data[name] = int(data[name] or 0)
            data["cost_usd"] = round(float(data["cost_usd"] or 0.0), 6)
            data["latency_s"] = round(float(data["latency_s"] or 0.0), 3)
            out.append(data)
        return out


def _safe(text: str | None) -> str | None:
    """Text fit to keep: known secrets redacted, lone surrogates replaced."""
    from arcmemo.core.text import utf8_safe

    return None if text is None else utf8_safe(redact(text))


def _record(row: sqlite3.Row) -> CallRecord:
    data = {name: row[name] for name in COLUMNS}
    data["cached"] = bool(data["cached"])
    return CallRecord(**data)
