"""Charts a researcher expects from the ArcMemo paper, drawn with matplotlib from plain numbers.

- `depth_chart`: score vs retry depth per setting, one panel per k (the paper's Table 4 as a chart);
- `efficiency_chart`: score vs tokens and vs cost (the paper's token-efficiency figure);
- `memory_chart`: memory size and distinct concepts used as a continual run goes on;
- `usage_chart`: per concept, how often it was offered and how often it was in a solved task.

The numbers come from run directories (arcmemo.web.charts); this module knows nothing of
runs. Each function returns a matplotlib Figure (no pyplot, no global state); `chart_svg`
and `chart_png` write it out. matplotlib is the `[plots]` extra: `PlotsUnavailable` says so.
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arcmemo.core.errors import ArcmemoError

INSTALL_HINT = "charts need matplotlib: pip install 'arcmemo[plots]'"
_CHART_RC = {"svg.fonttype": "none", "svg.hashsalt": "arcmemo", "font.size": 9, "axes.spines.top": False,
             "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3}


# matplotlib's style (rcParams) is global: one chart at a time is drawn under the house style, so
# charts drawn from several threads (the web app's requests) never see each other's settings.
_STYLE_LOCK = threading.RLock()


class PlotsUnavailable(ArcmemoError, ImportError):
    """matplotlib is not installed."""


def available() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def _chart(draw: Callable) -> Callable:
    """Run a chart function under the house style (matplotlib reads it as each artist is made)."""

    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        if not available():
            raise PlotsUnavailable(INSTALL_HINT)
        import matplotlib

        with _STYLE_LOCK, matplotlib.rc_context(_CHART_RC):
            return draw(*args, **kwargs)

    return wrapper


def _figure(width: float, height: float, panels: int = 1):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, list(fig.subplots(1, panels, squeeze=False)[0])


@_chart
def depth_chart(settings: Mapping[str, Mapping[int, Mapping[int, float]]]):
    """`settings[label][depth][k]` = oracle@k in percent after `depth` retries; one panel per k,
    a point at every depth (line `depth-line-K-I`: setting I's line in the oracle@K panel)."""
    ks = sorted({k for by_depth in settings.values() for row in by_depth.values() for k in row})
    depths = sorted({d for by_depth in settings.values() for d in by_depth})
    fig, axes = _figure(max(3.2, 2.8 * len(ks)), 2.8, max(1, len(ks)))
    for ax, k in zip(axes, ks):
        for i, (label, by_depth) in enumerate(settings.items()):
            points = sorted((d, row[k]) for d, row in by_depth.items() if k in row)
            if points:
                ax.plot([d for d, _ in points], [s for _, s in points], marker="o", label=label,
                        gid=f"depth-line-{k}-{i}")
        ax.set_title(f"oracle@{k}")
        ax.set_xlabel("retry depth")
        ax.set_xticks(depths)
        ax.set_xlim(min(depths) - 0.3, max(depths) + 0.3)
        ax.set_ylim(0, 105)
    axes[0].set_ylabel("score (%)")
    _legend(fig, axes[0])
    return fig


@_chart
def efficiency_chart(runs: Mapping[str, Sequence[tuple[float, float, float]]]):
    """`runs[label]` = [(tokens, cost USD, score %), ...] (one point per retry depth where known)."""
    fig, (by_tokens, by_cost) = _figure(6.4, 2.8, 2)
    for label, points in runs.items():
        points = sorted(points)
        by_tokens.plot([p[0] for p in points], [p[2] for p in points], marker="o", label=label)
        by_cost.plot([p[1] for p in points], [p[2] for p in points], marker="o", label=label)
    by_tokens.set_xlabel("tokens (prompt + completion)")
    by_cost.set_xlabel("cost (USD)")
    by_tokens.set_ylabel("oracle@k over threads (%)")
    for ax in (by_tokens, by_cost):
        ax.set_ylim(0, 105)
        ax.set_xlim(left=0)
    _legend(fig, by_tokens)
    return fig


@_chart
def memory_chart(runs: Mapping[str, Sequence[tuple[int, int, int]]]):
    """`runs[label]` = [(tasks done, concepts in memory, distinct concepts offered so far), ...]."""
    fig, (size, used) = _figure(6.4, 2.8, 2)
    for label, points in runs.items():
        size.plot([p[0] for p in points], [p[1] for p in points], drawstyle="steps-post", label=label)
        used.plot([p[0] for p in points], [p[2] for p in points], drawstyle="steps-post", label=label)
    size.set_title("concepts in memory")
    used.set_title("distinct concepts offered so far")
    for ax in (size, used):
        ax.set_xlabel("tasks done")
        ax.set_ylim(bottom=0)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.yaxis.get_major_locator().set_params(integer=True)
    _legend(fig, size)
    return fig


@_chart
def usage_chart(rows: Sequence[tuple[str, int, int]], top: int = 20):
    """`rows` = [(concept name, times offered, times in a solved task)]; the `top` most offered."""
    rows = sorted(rows, key=lambda r: (-r[1], -r[2], r[0]))[:top]
    fig, (ax,) = _figure(6.4, 0.8 + 0.22 * max(len(rows), 1))
    names = [_short(r[0]) for r in rows][::-1]
    ax.barh(names, [r[1] for r in rows][::-1], color="#9ecae1", label="offered")
    ax.barh(names, [r[2] for r in rows][::-1], color="#2ECC40", label="in a solved task")
    ax.set_xlabel("tasks")
    ax.xaxis.get_major_locator().set_params(integer=True)
    _legend(fig, ax)
    return fig


def _legend(fig: Any, ax: Any) -> None:
    """The legend of `ax`'s lines or bars below the plots, outside them: it never covers a point or a bar."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        columns = 1 if max(map(len, labels)) > 30 else min(len(labels), 4)
        fig.legend(handles, labels, loc="outside lower center", ncols=columns, fontsize=7, frameon=False)


def _short(name: str, n: int = 40) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def chart_svg(fig: Any) -> str:
    """The chart as an SVG element for an HTML page: text as text, no prologue, no metadata, and
    its element ids prefixed by a hash of the chart, so several charts can share one page."""
    import matplotlib

    out = io.StringIO()
    with _STYLE_LOCK, matplotlib.rc_context(_CHART_RC):
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = out.getvalue()
    svg = svg[svg.index("<svg"):]
    # no metadata, and no page-wide `*{...}` style rule when the SVG sits inside a page
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r'<style type="text/css">\*\{[^}]*\}</style>\s*', "", svg)
    prefix = "c" + hashlib.sha1(svg.encode()).hexdigest()[:8] + "-"
    return re.sub(r'(\bid="|url\(#|href="#)', lambda m: m.group(1) + prefix, svg)


def chart_png(fig: Any, dpi: int = 150) -> bytes:
    import matplotlib

    out = io.BytesIO()
    with _STYLE_LOCK, matplotlib.rc_context(_CHART_RC):
        fig.savefig(out, format="png", dpi=dpi, metadata={"Software": None})
    return out.getvalue()
