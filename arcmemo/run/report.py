"""A run's summary and runs side by side, as tables (arcmemo.core.table) or rows for JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arcmemo.core.table import table

UNKNOWN = "unknown (no test outputs)"


def _passes(summary: dict[str, Any]) -> str:
    return " / ".join("?" if p.get("oracle2") is None else f"{p['oracle2']:.1f}"
                      for p in summary.get("passes", [])) or "-"


def _score(summary: dict[str, Any], name: str) -> Any:
    return UNKNOWN if summary.get(name) is None else summary[name]


def summary_table(summary: dict[str, Any]) -> str:
    usage = summary.get("usage", {})
    rows = [
        ("tasks", f"{summary['tasks']} of {summary['tasks_planned']}"),
        ("oracle@1", _score(summary, "oracle1")),
        ("oracle@2 (official)", _score(summary, "oracle2")),
        ("strict", _score(summary, "strict")),
        ("oracle@2 per pass", _passes(summary)),
        ("passed train pairs", len(summary.get("passed_train", []))),
        ("concepts selected / task", summary.get("concepts_selected_per_task", 0)),
        ("selection fallbacks", summary.get("selection_fallbacks", 0)),
        ("concepts written", f"{len(summary.get('concepts_added', []))} added, "
                             f"{len(summary.get('concepts_extended', []))} extended, "
                             f"{summary.get('write_failures', 0)} failed writes"),
        ("tokens in / out / reasoning", f"{usage.get('prompt_tokens', 0)} / {usage.get('completion_tokens', 0)}"
                                        f" / {usage.get('reasoning_tokens', 0)}"),
        ("model calls (cache hits, errors)", f"{usage.get('calls', 0)} ({usage.get('cache_hits', 0)}, "
                                            f"{usage.get('errors', 0)})"),
        ("cost USD", f"{usage.get('cost_usd', 0):.4f}"),
        ("wall time s", summary.get("wall_time_s", 0)),
    ]
    lost, writes_lost = summary.get("tasks_lost") or [], summary.get("writes_lost") or []
    if lost or writes_lost:
        rows.append(("lost to endpoint errors", f"{len(lost)} tasks, {len(writes_lost)} memory writes "
                                                "(--resume retries them)"))
    if summary.get("stopped"):
        rows.append(("stopped", f"early: {summary['stopped']}"))
    return table(rows, ("run " + summary["run_id"], ""))


def compare_rows(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per run (config, summary): its settings, scores, usage, and the tasks only it solves."""
    solved = [set(s.get("solved", [])) for _, s in entries]
    rows = []
    for i, (config, summary) in enumerate(entries):
        settings, usage = config.get("settings", {}), summary.get("usage", {})
        others = set().union(*(solved[:i] + solved[i + 1:])) if len(solved) > 1 else set()
        rows.append({
            "run": summary["run_id"], "selection": settings.get("selection", "?"),
            "solver_model": config.get("models", {}).get("solver", "?"), "tasks": summary["tasks"],
            "oracle1": summary["oracle1"], "oracle2": summary["oracle2"], "strict": summary["strict"],
            "oracle2_per_pass": [p["oracle2"] for p in summary.get("passes", [])],
            "tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0),
            "cost_usd": usage.get("cost_usd", 0), "only_solves": sorted(solved[i] - others),
        })
    return rows


def compare_table(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """Runs side by side (config, summary), then the tasks each solves that the others don't."""
    rows = compare_rows(entries)
    text = table([(r["run"], r["selection"], r["solver_model"], r["tasks"], r["oracle1"], r["oracle2"], r["strict"],
                   " / ".join(f"{p:.1f}" for p in r["oracle2_per_pass"]) or "-", r["tokens"], f"{r['cost_usd']:.4f}")
                  for r in rows],
                 ("run", "selection", "solver model", "tasks", "oracle@1", "oracle@2", "strict", "oracle@2/pass",
                  "tokens", "cost USD"))
    lines = [text, ""]
    for r in rows:
        lines.append(f"only {r['run']} solves ({len(r['only_solves'])}): {', '.join(r['only_solves']) or '-'}")
    return "\n".join(lines)
