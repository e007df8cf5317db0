"""Plain-text tables for run summaries and for comparing runs side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    """A left-aligned text table with a rule under the header."""
    cells = [[str(c) for c in header]] + [[fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


UNKNOWN = "unknown (no test outputs)"


def fmt(value: Any) -> str:
    """A table cell: floats to two decimals (four when tiny), None as -."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}" if 0 < abs(value) < 0.01 else f"{value:.2f}"
    return str(value)


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
    if summary.get("stopped"):
        rows.append(("stopped", f"early: {summary['stopped']}"))
    return rows


COMPARE_HEADER = ("run", "selection", "solver model", "tasks", "oracle@1", "oracle@2", "strict", "oracle@2/pass",
                  "tokens", "cost USD")


def compare_rows(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple]:
    """One row per run (config, summary), in the columns of COMPARE_HEADER."""
    rows = []
    for config, summary in entries:
        settings = config.get("settings", {})
        usage = summary.get("usage", {})
        rows.append((
            summary["run_id"], settings.get("selection", "?"), config.get("models", {}).get("solver", "?"),
            summary["tasks"], summary["oracle1"], summary["oracle2"], summary["strict"], _passes(summary),
            usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0), f"{usage.get('cost_usd', 0):.4f}",
        ))
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
