"""Whether solve runs are repeats of one configuration, as `runs compare --mean` needs them.

Averaging runs as "one configuration run again" is only honest when (1) they were run with
the same settings, models and protocol, and (2) each asked the model for itself: a run
that got another run's answers from the call cache is a copy of it, and its spread is 0.
`unlike` says, in one line, what keeps a set of runs (config.json, summary.json each) from
being repeats; None when nothing does. A run's `repeat` (run/repeats.py) and what may
differ between repeats without changing the configuration (IGNORED) are not compared.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from arcmemo.core.table import counted

# settings repeats of one configuration may differ in: which repeat, the sampling seed, the
# spending cap, the file the settings were read from
IGNORED = ("repeat", "model_seed", "budget_usd", "config_file")
RECORDED = ("models", "call_defaults")     # config.json's other keys that shape the answers
OVERRIDE = "--allow-mismatch"


def _settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """A run's settings with the defaults of the settings it was recorded without (an older run)."""
    from arcmemo.run.config import RunConfig

    defaults = {f.name: f.default for f in dataclasses.fields(RunConfig) if f.default is not dataclasses.MISSING}
    return {**defaults, **config.get("settings", {})}


def _protocol(config: Mapping[str, Any]) -> dict[str, Any]:
    from arcmemo.run.protocol import from_record

    return dataclasses.asdict(from_record(config.get("protocol")))


def _short(value: Any) -> str:
    text = "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """What differs between two runs' configurations (config.json), as "name: A vs B"."""
    found = []
    sa, sb = _settings(a), _settings(b)
    for name in sorted(set(sa) | set(sb)):
        if name not in IGNORED and sa.get(name) != sb.get(name):
            found.append(f"{name}: {_short(sa.get(name))} vs {_short(sb.get(name))}")
    pa, pb = _protocol(a), _protocol(b)
    if pa != pb:
        choices = [c for c in pa if c != "name" and pa[c] != pb[c]]
        found.append(f"protocol: {pa['name']} vs {pb['name']}" if pa["name"] != pb["name"] else
                     "protocol: " + ", ".join(f"{c} {_short(pa[c])} vs {_short(pb[c])}" for c in choices))
    for key in RECORDED:
        ra, rb = a.get(key) or {}, b.get(key) or {}
        for role in sorted(set(ra) | set(rb)):
            if ra.get(role) != rb.get(role):
                found.append(f"{key}.{role}: {_short(ra.get(role))} vs {_short(rb.get(role))}")
    return found


def _repeat(config: Mapping[str, Any]) -> int:
    return int(config.get("settings", {}).get("repeat") or 0)


def replays(entries: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]], log: Any | None) -> str | None:
    """Why a run of the set is not a repeat of its own: it replayed another's answers from the
    call cache (the call log says so), or it was served from the cache and the log cannot say
    whose answers it got while another run of the set is the same repeat. A run whose summary
    counts no cache hit asked for everything itself. None when each asked for itself."""
    ids = [summary["run_id"] for _, summary in entries]
    twice = sorted({run for run in ids if ids.count(run) > 1})
    if twice:
        return (f"run {twice[0]} is given twice (a run and a copy of it?): --mean averages repeats that each asked "
                f"the model for itself; pass {OVERRIDE} to average them anyway")
    repeats = Counter(_repeat(config) for config, _ in entries)
    for config, summary in entries:
        run, hits = summary["run_id"], int((summary.get("usage") or {}).get("cache_hits") or 0)
        if not hits:
            continue
        served = log.replayed_from(run, [other for other in ids if other != run]) if log is not None else {}
        if served:
            source, n = max(served.items(), key=lambda item: item[1])
            calls = (summary.get("usage") or {}).get("calls", "?")
            return (f"run {run} replayed {n} of its {calls} model answers from run {source} through the call cache "
                    f"(both repeat {_repeat(config)}): not a repeat of its own; run the configuration again with "
                    f"`arcmemo solve ... --repeat N` (N not used yet), or pass {OVERRIDE}")
        logged = log is not None and any(row["calls"] for row in log.usage(run_id=run, group_by=()))
        if repeats[_repeat(config)] > 1 and not logged:
            where = f"the call log at {log.path} has" if log is not None else "there is no call log here with"
            return (f"run {run} was answered {counted(hits, 'time')} from the call cache, {where} no record of whose answers, "
                    f"and another run of the set is repeat {_repeat(config)} too: its answers may be replays; give "
                    f"each repeat its own --repeat, or pass {OVERRIDE}")
    return None


def unlike(entries: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]], log: Any | None) -> str | None:
    """One line saying why these runs are not repeats of one configuration (module docstring),
    naming the runs and what differs; None when they are."""
    if not entries:
        return None
    first, first_summary = entries[0]
    for config, summary in entries[1:]:
        found = differences(first, config)
        if found:
            return (f"runs {first_summary['run_id']} and {summary['run_id']} are not one configuration "
                    f"({'; '.join(found)}): --mean averages repeats of one; pass {OVERRIDE} to average them anyway")
    return replays(entries, log)


__all__ = ["IGNORED", "OVERRIDE", "differences", "replays", "unlike"]
