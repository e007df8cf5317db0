"""A run's summary and runs side by side, as tables (arcmemo.core.table) or rows for JSON."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import mean, stdev
from typing import Any

from arcmemo.core.table import cell as fmt
from arcmemo.core.table import table

__all__ = ["fmt", "table", "summary_rows", "summary_table", "COMPARE_HEADER", "compare_records", "compare_rows",
           "compare_table", "solved_alone", "UNKNOWN",
           "depth_text", "mean_records", "mean_text", "MismatchedRuns"]    # fmt: the one cell formatter, the pages use it too

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
        ("tasks where a helper call gave every train output (probe)", len(summary.get("probe_fit_tasks") or [])),
        ("tasks answered by memory's fit (its output submitted)", len(summary.get("fit_answer_tasks") or [])),
        ("selection fallbacks", summary.get("selection_fallbacks", 0)),
        ("selection levels (tasks)", ", ".join(f"{level} {n}" for level, n in
                                               (summary.get("selection_levels") or {}).items()) or "-"),
        ("threads, retries", f"{summary.get('threads', 1)}, {summary.get('retries', '?')}"),
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
            "table4": summary.get("table4"),
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


# ---------------------------------------------------------------------- the paper's tables
class MismatchedRuns(ValueError):
    """Runs whose tables cannot be averaged cell by cell (other threads or retries, no table)."""


def _with_std(value: float, std: float | None) -> str:
    return f"{value:.2f}" if std is None else f"{value:.2f} ({std:.2f})"


def _k_header(threads: int) -> list[str]:
    return [f"k={k}" + (" (official)" if k == 2 else "") for k in range(1, threads + 1)]


def depth_text(summary: dict[str, Any]) -> str | None:
    """A run's Table 4 block (oracle@k per retry depth, each thread alone as the paper's
    "individual run scores") and Table 5's strict block; None when the run has no table."""
    t = summary.get("table4")
    if not t:
        return None
    n, rows = t["threads"], []
    for d in range(t["retries"] + 1):
        rows.append([d, *t["per_thread"][d], *(_with_std(v, sd) for v, sd in zip(t["oracle"][d], t["oracle_std"][d]))])
    strict = [[d, *(_with_std(v, sd) for v, sd in zip(t["strict"][d], t["strict_std"][d]))]
              for d in range(t["retries"] + 1)]
    return "\n".join([
        f"oracle@k by retry depth (the paper's Table 4), % of {t['puzzles']} puzzles; {n} thread(s); "
        "bracketed: std over the k-subsets of threads\n(k counts threads; the oracle@1/@2 above score the two "
        "attempts submitted per test input)",
        table(rows, ["retry", *(f"thread {i}" for i in range(n)), *_k_header(n)]), "",
        "strict@k (Table 5: one program solves every test input of a puzzle)",
        table(strict, ["retry", *_k_header(n)])])


def mean_records(summaries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean and std (over the runs, sample std; None for one run) of every Table 4 and Table 5
    cell and of the submitted attempts' scores, over repeated runs of one setting."""
    tables = [s.get("table4") for s in summaries]
    missing = [s["run_id"] for s, t in zip(summaries, tables) if not t]
    if missing:
        raise MismatchedRuns(f"no per-depth table in run(s) {', '.join(missing)} (not scored, or from before "
                             "threads were recorded)")
    shapes = {(t["threads"], t["retries"]) for t in tables}
    if len(shapes) > 1:
        listed = ", ".join(f"{s['run_id']}: {t['threads']} threads, {t['retries']} retries"
                           for s, t in zip(summaries, tables))
        raise MismatchedRuns(f"--mean needs runs of one shape (threads and retries); got {listed}")
    (n, retries), = shapes

    def agg(values: list[float]) -> dict[str, float | None]:
        return {"mean": mean(values), "std": stdev(values) if len(values) > 1 else None}

    record: dict[str, Any] = {"runs": [s["run_id"] for s in summaries], "threads": n, "retries": retries}
    for name in ("oracle", "strict"):
        record[name] = [[agg([t[name][d][k] for t in tables]) for k in range(n)] for d in range(retries + 1)]
    for key in ("oracle1", "oracle2", "strict_submitted"):
        values = [s.get("strict" if key == "strict_submitted" else key) for s in summaries]
        record[key] = agg(values) if all(v is not None for v in values) else None
    return record


def mean_text(summaries: Sequence[dict[str, Any]]) -> str:
    """`mean_records` as tables (`runs compare --mean`)."""
    record = mean_records(summaries)
    n, runs = record["threads"], len(record["runs"])

    def cell(value: dict[str, float | None] | None) -> str:
        return UNKNOWN if value is None else _with_std(value["mean"], value["std"])

    blocks = []
    for name, title in (("oracle", "oracle@k (Table 4)"), ("strict", "strict@k (Table 5)")):
        rows = [[d, *(cell(c) for c in row)] for d, row in enumerate(record[name])]
        blocks += [f"{title}, mean (std) over {runs} runs", table(rows, ["retry", *_k_header(n)]), ""]
    rows = [(label, cell(record[key])) for label, key in (("oracle@1", "oracle1"), ("oracle@2 (official)", "oracle2"),
                                                          ("strict", "strict_submitted"))]
    blocks.append(table(rows, ("submitted attempts", f"mean (std) over {runs} runs")))
    return "\n".join(blocks)
