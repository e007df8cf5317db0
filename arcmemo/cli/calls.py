"""`arcmemo calls list|show|usage`: read the model call log (every request, answer and cost)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import click

from arcmemo.cli.common import AtLeast, UserError, echo_json, user_errors

CUT_LEGEND = "cut: the answer ended at the token limit (max_tokens), unfinished"
USAGE_GROUPS = ("model", "role", "step", "task_id", "run_id", "endpoint")   # what CallLog.usage groups by


def log_option(fn):
    return click.option("--log", "log_path", default=None,
                        help="Call log file (env ARCMEMO_LOG_DB, config log_path; default $ARCMEMO_HOME/calls.db).")(fn)


def _open(log_path, *, required: bool = False):
    """The log, or None when no call was ever logged there (an error if `required`)."""
    from arcmemo.llm.log import CallLog
    from arcmemo.llm.log import log_path as default_path

    path = Path(log_path) if log_path else default_path()
    if not path.exists():
        if required:
            raise UserError(f"no call log at {path} (no model calls made yet?)")
        return None
    return CallLog(path)


def _when(timestamp: float) -> str:
    return dt.datetime.fromtimestamp(timestamp, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


@click.group()
def calls() -> None:
    """The model call log: every request and answer, tokens, latency, cost, cache hits."""


@calls.command("list")
@click.option("--run", "run_id", default=None, help="Only calls of this run.")
@click.option("--task", "task_id", default=None, help="Only calls for this task.")
@click.option("--step", default=None, help="Only this prompt step (solve, select_ps, ...).")
@click.option("--model", default=None, help="Only this model.")
@click.option("--errors", is_flag=True, help="Only failed calls.")
@click.option("--limit", type=AtLeast(0), default=50, show_default=True, help="Newest N calls (0 = all).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@log_option
@user_errors
def list_calls(run_id, task_id, step, model, errors, limit, as_json, log_path) -> None:
    """List calls, newest first."""
    log = _open(log_path)
    if log is None:
        echo_json([]) if as_json else click.echo("no calls logged yet")
        return
    with log:
        records = log.list(run_id=run_id, task_id=task_id, step=step, model=model, errors_only=errors,
                           limit=limit or None)
    if as_json:
        echo_json([r.to_dict(full=False) for r in records])
        return
    if not records:
        click.echo("no calls")
        return
    from arcmemo.core.table import table

    rows = []
    for r in records:
        status = "cached" if r.cached else ("ERROR: " + r.error.splitlines()[0][:60] if r.error else "ok")
        if r.cut:
            status += ", cut"
        if r.error_kind in ("fatal", "unavailable"):     # the endpoint's fault, not this request's
            status += f" [endpoint {r.error_kind}]"
        rows.append((r.id, _when(r.created_at), r.step or "-", r.model, r.task_id or "-", r.sample, r.prompt_tokens,
                     r.completion_tokens, f"{r.cost_usd:.5f}", f"{r.latency_s:.1f}", status))
    click.echo(table(rows, ("id", "time (UTC)", "step", "model", "task", "s", "in", "out", "cost $", "secs", "status"),
                     rule=False, right=(0, 5, 6, 7, 8, 9)))
    if any(r.cut for r in records):
        click.echo(CUT_LEGEND)


@calls.command("show")
@click.argument("call_id", type=AtLeast(1))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@log_option
@user_errors
def show_call(call_id, as_json, log_path) -> None:
    """Show one call in full: request messages, parameters, answer, reasoning, accounting."""
    with _open(log_path, required=True) as log:
        record = log.get(call_id)
    if record is None:
        raise UserError(f"no call with id {call_id}")
    data = record.to_dict(full=True)
    if as_json:
        echo_json(data)
        return
    click.echo(f"call {record.id}  {_when(record.created_at)} UTC  run={record.run_id or '-'} "
               f"task={record.task_id or '-'} role={record.role} step={record.step} sample={record.sample}")
    click.echo(f"model {record.model} at {record.endpoint}; tokens in={record.prompt_tokens} "
               f"out={record.completion_tokens} reasoning={record.reasoning_tokens}; cost ${record.cost_usd:.6f}; "
               f"{record.latency_s:.2f}s; attempts {record.attempts}; {'cache hit' if record.cached else 'live'}"
               + (f"; finish {record.finish_reason}" if record.finish_reason else "")
               + (" (cut at the token limit: the answer is unfinished)" if record.cut else ""))
    request = record.request
    params = request.get("params") or {}
    if params:
        click.echo("params: " + json.dumps(params))
    for message in request.get("messages", []):
        click.echo(f"--- {message.get('role')} ---")
        content = message.get("content")
        click.echo(content if isinstance(content, str) else json.dumps(content, indent=2))
    if record.reasoning:
        click.echo("--- reasoning ---")
        click.echo(record.reasoning)
    if record.error:
        click.echo(f"--- error ({record.error_kind or 'error'}) ---")
        click.echo(record.error)
    else:
        for i, choice in enumerate(record.choices):
            click.echo("--- answer ---" if i == 0 else f"--- answer (choice {i}) ---")
            click.echo(choice)


@calls.command("usage")
@click.option("--run", "run_id", default=None, help="Only this run (default: every call logged).")
@click.option("--by", "group_by", default="model", show_default=True,
              help="Group by: comma-separated from model, role, step, task_id, run_id, endpoint ('' = total).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@log_option
@user_errors
def usage(run_id, group_by, as_json, log_path) -> None:
    """Calls, cache hits, errors, tokens and cost, per group. Cache hits cost nothing."""
    groups = tuple(g.strip() for g in group_by.split(",") if g.strip())
    unknown = sorted(set(groups) - set(USAGE_GROUPS))
    if unknown:
        raise UserError(f"--by: cannot group by {unknown}; choose from {', '.join(USAGE_GROUPS)}")
    log = _open(log_path)
    if log is None:
        echo_json([]) if as_json else click.echo("no calls logged yet")
        return
    with log:
        rows = log.usage(run_id=run_id, group_by=groups)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no calls" + (f" for run {run_id}" if run_id else ""))
        return
    from arcmemo.core.table import table

    total = {k: 0 for k in ("calls", "cache_hits", "errors", "cut", "prompt_tokens", "completion_tokens",
                            "reasoning_tokens", "cost_usd")}
    lines = []
    for row in rows:
        lines.append(_usage_row("/".join(str(row[g]) for g in groups) or "total", row))
        for key in total:
            total[key] += row[key]
    if len(rows) > 1:
        lines.append(_usage_row("total", total))
    click.echo(table(lines, ("/".join(groups) or "total", "calls", "cached", "errors", "cut", "in", "out", "reasoning",
                             "cost $"), rule=False, right=range(1, 9)))
    if total["cut"]:
        click.echo(CUT_LEGEND)


def _usage_row(name: str, row: dict) -> tuple:
    return (name, row["calls"], row["cache_hits"], row["errors"], row["cut"], row["prompt_tokens"],
            row["completion_tokens"], row["reasoning_tokens"], f"{row['cost_usd']:.4f}")


COMMANDS = [calls]
