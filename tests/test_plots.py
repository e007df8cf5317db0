"""The charts: the numbers taken from runs, and the SVG/PNG drawn from them."""

from __future__ import annotations

import io
import json
import re
import shutil
import xml.etree.ElementTree as ET

import pytest
from PIL import Image
from web_support import LEARNED

from arcmemo.memory.store import Memory
from arcmemo.pictures import plots
from arcmemo.run.records.reader import RunRecord, find_run, read_run
from arcmemo.web.charts import concept_usage, depth_scores, efficiency_points, memory_series
from arcmemo.web.render import MemoryFacts, overview_charts

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    return ["".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_depth_chart_has_one_panel_per_k_and_a_line_per_setting():
    svg = plots.chart_svg(plots.depth_chart({"ps": {0: {1: 20.0, 2: 30.0}, 1: {1: 25.0, 2: 40.0}},
                                             "none": {0: {1: 10.0, 2: 15.0}}}))
    texts = _texts(svg)
    assert "oracle@1" in texts and "oracle@2" in texts and "retry depth" in texts and "ps" in texts
    assert not svg.startswith("<?xml") and "<metadata>" not in svg and "*{" not in svg
    ids = re.findall(r'\bid="([^"]+)"', svg)
    prefix = ids[0].split("-")[0]
    assert all(i.startswith(prefix + "-") for i in ids)          # unique to this chart on a shared page


def test_every_chart_draws_to_png_and_escapes_names():
    hostile = "<script>alert(1)</script>"
    figures = [plots.efficiency_chart({"a": [(1000, 0.5, 40.0)]}),
               plots.memory_chart({"a": [(0, 3, 0), (1, 4, 1), (2, 4, 2)]}),
               plots.usage_chart([(hostile, 3, 1), ("other", 1, 0)])]
    for fig in figures:
        assert Image.open(io.BytesIO(plots.chart_png(fig))).format == "PNG"
    svg = plots.chart_svg(figures[2])
    assert "<script" not in svg and "&lt;script&gt;" in svg
    ET.fromstring(svg)


def test_numbers_from_a_continual_run(web_fixture):
    fx = web_fixture
    view = find_run(fx.continual, fx.runs)
    assert depth_scores(view) == {0: {1: pytest.approx(200 / 3)}}         # one thread, --retries 0, 2 of 3 solved
    ((tokens, cost, score),) = efficiency_points(view)
    assert tokens == view.progress()["tokens"] > 0 and score == pytest.approx(200 / 3)
    # one concept at the start (the hostile one); the learned one added after the second task
    assert memory_series(view, 1) == [(0, 1, 0), (1, 1, 1), (2, 1, 1), (2, 2, 1), (3, 2, 2), (3, 2, 2)]
    with Memory(str(fx.memory)) as memory:
        learned = memory.get(LEARNED).id
        usage = concept_usage([view])
        assert usage[1] == (3, 2)             # offered to every task, two of them solved
        assert usage[learned] == (1, 1)
        charts, note = overview_charts([view], MemoryFacts(memory))
    assert note is None and [c.title for c in charts] == ["Score by retry depth", "Score against tokens and cost",
                                                          "Memory over the run", "Concept usage"]
    assert LEARNED in charts[3].svg


def test_a_run_summary_with_a_depth_table_gives_the_whole_line(web_fixture, tmp_path):
    from arcmemo.scoring import PuzzleThreads, depth_table

    # two threads, one retry: thread 0 solves at depth 1, thread 1 never
    table = depth_table([PuzzleThreads("t", 1, (((False,), (True,)), ((False,), (False,))))], threads=2, retries=1)
    copy = tmp_path / "run"
    shutil.copytree(web_fixture.runs / web_fixture.baseline, copy)
    summary = json.loads((copy / "summary.json").read_text())
    (copy / "summary.json").write_text(json.dumps(dict(summary, table4=table.to_dict())))
    assert depth_scores(read_run(copy)) == {0: {1: 0.0, 2: 0.0}, 1: {1: 50.0, 2: 100.0}}


def _retried(source, target, retries: int) -> RunRecord:
    """A copy of the run as if each task had been solved at its last retry (steps at depths
    0..retries), still running (no summary yet)."""
    shutil.copytree(source, target)
    (target / "summary.json").unlink()
    config = json.loads((target / "config.json").read_text())
    config["settings"] = dict(config["settings"], retries=retries)
    (target / "config.json").write_text(json.dumps(config))
    events = [json.loads(line) for line in (target / "events.jsonl").read_text().splitlines()]
    for event in events:
        if event.get("type") == "task":
            for thread in event["threads"]:
                last = thread["steps"][-1]
                thread["steps"] = [dict(last, round=d, test_correct=[d == retries] * len(last["test_correct"]))
                                   for d in range(retries + 1)]
    (target / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return read_run(target)


def test_the_depth_chart_draws_every_depth_of_a_running_run(web_fixture, tmp_path):
    """Without a summary (the run goes on) the line is made from the event log: depths 0, 1 and 2."""
    view = _retried(web_fixture.runs / web_fixture.baseline, tmp_path / "run", retries=2)
    scores = depth_scores(view)
    assert scores == {0: {1: 0.0}, 1: {1: 0.0}, 2: {1: 100.0}}
    svg = plots.chart_svg(plots.depth_chart({view.label: scores}))
    line = next(g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("id", "").endswith("depth-line-1-0"))
    assert len(list(line.iter(f"{SVG}use"))) == 3                     # a marker at each depth
    ticks = ["".join(t.itertext()) for g in ET.fromstring(svg).iter(f"{SVG}g") if "xtick_" in g.get("id", "")
             for t in g.iter(f"{SVG}text")]
    assert ticks == ["0", "1", "2"]                                     # and a tick at each


def test_no_legend_lies_over_a_plot():
    """Legends go below the plots, however many settings and bars there are."""
    charts = [plots.depth_chart({f"setting {i} · model · 20261126-120000-abcdef": {0: {1: 90.0}, 1: {1: 100.0}}
                                 for i in range(3)}),
              plots.efficiency_chart({"a": [(1000, 0.5, 100.0)], "b": [(10, 0.01, 0.0)]}),
              plots.memory_chart({"a": [(0, 3, 0), (5, 9, 6)]}),
              plots.usage_chart([(f"concept {i}", 9, 9) for i in range(12)])]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    for fig in charts:
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        legends = [legend.get_window_extent(renderer) for legend in fig.legends]
        assert legends and not any(ax.legend_ for ax in fig.axes)
        for ax in fig.axes:
            plot = ax.get_window_extent(renderer)
            assert not any(legend.overlaps(plot) for legend in legends)
