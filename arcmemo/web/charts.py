"""The numbers behind the charts, taken from runs, and the charts themselves as inline SVG.

A run's scores are the ones every view shows (arcmemo.scoring.runscore): the score-vs-retry-
depth chart draws the run's Table 4 block (oracle[d][k-1] in percent over its threads,
arcmemo.scoring.DepthTable.to_dict()) from its summary (`table4`), or made from its event log
while it runs, and the efficiency chart the run's headline. A run recorded before threads
were kept has no line: its submitted attempts' scores are another statistic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arcmemo.pictures import plots
from arcmemo.run.records.reader import RunRecord
from arcmemo.run.records.scores import run_depth_table


@dataclass(frozen=True)
class Chart:
    title: str
    svg: str


def depth_scores(view: RunRecord) -> dict[int, dict[int, float]]:
    """oracle@k (%) over the run's threads by retry depth, every depth: its Table 4 block, from
    its summary or, while it runs, from its event log; {} for a run without one (not scored, or
    recorded before threads)."""
    table = (view.written_summary or {}).get("table4")
    if not (isinstance(table, dict) and table.get("oracle")) and view.latest:
        made = run_depth_table(list(view.latest.values()), view.threads, view.retries)
        table = made.to_dict() if made is not None else None
    if isinstance(table, dict) and table.get("oracle"):
        return {d: {k: float(v) for k, v in enumerate(row, 1)} for d, row in enumerate(table["oracle"])}
    return {}


def efficiency_points(view: RunRecord) -> list[tuple[float, float, float]]:
    """(tokens, cost USD, score %) of the run as a whole: its headline (oracle@k over threads)."""
    progress = view.progress()
    if not progress["done"] or progress["score"] is None:
        return []
    return [(progress["tokens"], progress["cost_usd"], progress["score"])]


def memory_series(view: RunRecord, start_size: int | None) -> list[tuple[int, int, int]]:
    """(tasks done, concepts in memory, distinct concepts offered so far) after each task, in run order.

    Memory grows by the concepts each write added, counted when the write is logged."""
    size = start_size or 0
    offered: set[int] = set()
    points = [(0, size, 0)]
    outcomes, growth = view.outcomes, view.log.growth
    written = 0
    for done in range(len(outcomes) + 1):
        while written < len(growth) and growth[written][0] == done:
            size += growth[written][1]
            points.append((done, size, len(offered)))
            written += 1
        if done < len(outcomes):
            offered.update(outcomes[done].selected or [])
            points.append((done + 1, size, len(offered)))
    return points


def concept_usage(views: Sequence[RunRecord]) -> dict[int, tuple[int, int]]:
    """concept id -> (tasks it was offered to, of those the tasks solved), over the latest pass of each task."""
    counts: dict[int, list[int]] = {}
    for view in views:
        for outcome in view.latest.values():
            for concept_id in dict.fromkeys(outcome.selected):
                row = counts.setdefault(concept_id, [0, 0])
                row[0] += 1
                row[1] += outcome.solved
    return {cid: (row[0], row[1]) for cid, row in counts.items()}


def run_charts(views: Sequence[RunRecord], *, names: dict[int, str] | None = None,
               start_sizes: dict[str, int | None] | None = None) -> tuple[list[Chart], str | None]:
    """The charts for these runs, and a note when they cannot be drawn (matplotlib missing).

    `names` maps concept ids to names (from the run's memory); `start_sizes` the memory's size
    when each run started (by run id), for the memory chart."""
    if not plots.available():
        return [], plots.INSTALL_HINT
    names, start_sizes = names or {}, start_sizes or {}
    charts: list[Chart] = []
    depth = {v.label: s for v in views if (s := depth_scores(v))}
    if depth:
        charts.append(Chart("Score by retry depth", plots.chart_svg(plots.depth_chart(depth))))
    efficiency = {v.label: p for v in views if (p := efficiency_points(v))}
    if efficiency:
        charts.append(Chart("Score against tokens and cost", plots.chart_svg(plots.efficiency_chart(efficiency))))
    growing = [v for v in views if v.settings.get("continual") or start_sizes.get(v.run_id)]
    if growing:
        series = {v.label: memory_series(v, start_sizes.get(v.run_id)) for v in growing}
        charts.append(Chart("Memory over the run", plots.chart_svg(plots.memory_chart(series))))
    usage = concept_usage(views)
    if usage:
        rows = [(names.get(cid, f"#{cid}"), offered, solved) for cid, (offered, solved) in usage.items()]
        charts.append(Chart("Concept usage", plots.chart_svg(plots.usage_chart(rows))))
    return charts, None

