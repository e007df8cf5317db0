"""A run's summary and runs side by side, as tables (arcmemo.core.table) or rows for JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arcmemo.core.table import cell as fmt
from arcmemo.core.table import table

__all__ = ["fmt", "table", "summary_rows", "summary_table", "COMPARE_HEADER", "compare_records", "compare_rows",
           "compare_table", "solved_alone", "UNKNOWN"]    # fmt: the one cell formatter, the pages use it too

UNKNOWN = "unknown (no test outputs)"


def _passes(summary: dict[str, Any]) -> str:
    return " / ".join("?" if p.get("oracle2") is None else f"{p['oracle2']:.1f}"
                      for p in summary.get("passes", [])) or "-"


def _score(summary: dict[str, Any], name: str) -> Any:
    return UNKNOWN if summary.get(name) is None else summary[name]


def summary_table(summary: dict[str, Any]) -> str:
    return table(summary_rows(summary), ("run " + summary["run_id"], ""))


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, Any]]:
    """(label, value) rows of a run's summary, for the text table and the HTML report."""
    usage = summary.get("usage", {})
    rows = [
        ("tasks", f"{summary['tasks']} of {summary['tasks_planned']}"),
        ("oracle@1", _score(summary, "oracle1")),
        ("oracle@2 (official)", _score(summary, "oracle2")),
        ("strict", _score(summary, "strict")),
        ("oracle@2 per pass", _passes(summary)),
        ("passed train pairs", len(summary.get("passed_train", []))),
        ("concepts selected / task", summary.get("concepts_selected_per_task", 0)),
        ("concepts offered / helper called / by a passing program / in a solved task",
         " / ".join(str((summary.get("concept_use") or {}).get(k, 0))
                    for k in ("offered", "called", "called_passing", "solved"))),
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
    return rows


COMPARE_HEADER = ("run", "selection", "solver model", "tasks", "oracle@1", "oracle@2", "strict", "oracle@2/pass",
                  "tokens", "cost USD")


def compare_records(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per run (config, summary): its settings, scores, usage, and the tasks only it solves (--json)."""
    alone = dict(solved_alone(entries))
    records = []
    for config, summary in entries:
        settings, usage = config.get("settings", {}), summary.get("usage", {})
        records.append({
            "run": summary["run_id"], "selection": settings.get("selection", "?"),
            "solver_model": config.get("models", {}).get("solver", "?"), "tasks": summary["tasks"],
            "oracle1": summary["oracle1"], "oracle2": summary["oracle2"], "strict": summary["strict"],
            "oracle2_per_pass": [p.get("oracle2") for p in summary.get("passes", [])],
            "tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0),
            "cost_usd": usage.get("cost_usd", 0), "only_solves": alone[summary["run_id"]],
        })
    return records


def compare_rows(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple]:
    """One row per run (config, summary), in the columns of COMPARE_HEADER."""
    rows = []
    for (_, summary), r in zip(entries, compare_records(entries)):
        rows.append((r["run"], r["selection"], r["solver_model"], r["tasks"], r["oracle1"], r["oracle2"], r["strict"],
                     _passes(summary), r["tokens"], f"{r['cost_usd']:.4f}"))
    return rows


def compare_table(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """Runs side by side (config, summary), then the tasks each solves that the others don't."""
    lines = [table(compare_rows(entries), COMPARE_HEADER), ""]
    for run_id, only in solved_alone(entries):
        lines.append(f"only {run_id} solves ({len(only)}): {', '.join(only) or '-'}")
    return "\n".join(lines)


def solved_alone(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple[str, list[str]]]:
    """(run id, the tasks it solves and none of the other runs does) per run."""
    solved = [set(s.get("solved", [])) for _, s in entries]
    result = []
    for i, (_, summary) in enumerate(entries):
        others = set().union(*(solved[:i] + solved[i + 1:])) if len(solved) > 1 else set()
        result.append((summary["run_id"], sorted(solved[i] - others)))
    return result
