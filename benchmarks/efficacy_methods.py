"""Every memory method side by side on one protocol: the `--methods` mode of benchmarks/efficacy.py
(issue 29 "Measured", issue 30's ablations).

Each row is one ordinary continual `arcmemo solve`, run as a process of its own (nothing of one
row's process, such as a method's in-process state, reaches another), with the same tasks,
models, seed, temperature, attempts, retries and block size k, in a directory of its own,
WORK/<row>/:

    memory.db   its own copy of the starting memory (--memory; default the shipped one). A
                method reads only its own formats, so one whose formats the starting memory
                lacks (ACE's playbook, ReasoningBank's bank, DC-RS's cases, the cheatsheet when
                no sheet was built) starts empty; the table says what each started with
    runs/       its run directory: arcmemo's ordinary records
    row.json    the solve settings the row was started with: the benchmark run again with other
                settings on the same WORK is refused, never mixed into the row
    solve.log   the solve's own output

The rows: every installed memory method (`arcmemo methods list`) or those named, then issue 30's
ablations of ps and oe as rows of their own, each one solve flag (--learn-from-failures,
--use-prior, --consolidate-every N), for each flag this arcmemo's solve has.

Running the benchmark again resumes: a row whose run finished is only read; one that stopped
(killed, or tasks lost to the endpoint) is continued with `arcmemo solve --resume`. The call
cache is the user's usual one, shared by the rows: a request one row already made (the same
prompt, model, settings and sample index, as in block 1 of two methods that both start
empty) is answered from it, so such rows share those samples (a paired comparison), and the
table counts each call at what it cost when it was made.

The table is read from the rows' records, never from numbers this script keeps: config.json
(the settings, the memory revision at the start), summary.json (for a run not finished, what
its events hold: run/records/reader.py), the call log (tokens and model seconds of the run's
calls) and the row's memory (its items of the method's formats, and of any format the run
wrote, as of the revision at the start, after each block's writes, and at the end).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

# issue 30's ablations: name -> the solve flags that make one ("{n}": --consolidate-every's N)
ABLATIONS = {"learn-from-failures": ("--learn-from-failures",), "use-prior": ("--use-prior",),
             "consolidate-every": ("--consolidate-every", "{n}")}
ABLATED = ("ps", "oe")          # the methods the ablations are rows of
BASELINE = "none"               # the row the others' solved tasks are set against
TYPES = "type"                  # the store's revisions of custom types: not items of a method
EXIT_LOST = 3                   # arcmemo solve: finished, some tasks lost to the endpoint


class RowError(Exception):
    """A row that cannot be run as asked (the message names its directory and why)."""


@dataclass(frozen=True)
class Row:
    """One solve of the comparison: a method, with the flags of an ablation if it is one."""

    name: str
    method: str
    flags: tuple[str, ...] = ()


def solve_flags() -> set[str]:
    """Every flag this arcmemo's `solve` takes (an ablation row exists only if its flag does)."""
    from arcmemo.cli.solve import solve

    return {opt for param in solve.params for opt in getattr(param, "opts", ())}


def plan_rows(methods: list[str], ablations: list[str] | None, *, available: set[str], consolidate_every: int,
              ablate: tuple[str, ...] = ABLATED) -> tuple[list[Row], list[str]]:
    """The rows: one per method, then each ablation of each method in `ablate` that is among them.
    `ablations` None: those whose flag this arcmemo has (the rest named in the notes returned);
    named ones whose flag is missing are a RowError."""
    unknown = [a for a in ablations or () if a not in ABLATIONS]
    if unknown:
        raise RowError(f"unknown ablation(s) {', '.join(unknown)}; known: {', '.join(ABLATIONS)}")
    missing = [a for a in (ablations if ablations is not None else ABLATIONS) if ABLATIONS[a][0] not in available]
    if ablations is not None and missing:
        raise RowError(f"this arcmemo's solve has no {', '.join(ABLATIONS[a][0] for a in missing)} "
                       f"(ablation {', '.join(missing)}): merge the branch that adds it, or leave it out")
    rows = [Row(method, method) for method in methods]
    for base in (m for m in ablate if m in methods):
        for name in (a for a in (ablations if ablations is not None else ABLATIONS) if a not in missing):
            flags = tuple(f.format(n=consolidate_every) for f in ABLATIONS[name])
            label = f"{name}-{consolidate_every}" if "{n}" in ABLATIONS[name] else name
            rows.append(Row(f"{base}+{label}", base, flags))
    notes = [f"ablation {a}: not in this arcmemo (its solve has no {ABLATIONS[a][0]})" for a in missing]
    return rows, notes


# ---------------------------------------------------------------------- running a row

def row_record(row: Row, settings: list[str]) -> dict[str, Any]:
    """What row.json holds: the row and the solve settings it was started with."""
    return {"row": row.name, "method": row.method, "flags": list(row.flags), "solve": settings}


def check_row(row: Row, root: Path, settings: list[str]) -> bool:
    """Whether the row has a run (to resume or read); RowError when that run was not started by
    this benchmark with these settings (row.json), naming what differs."""
    if not _runs(root):
        return False
    record = root / "row.json"
    if not record.exists():
        raise RowError(f"{root}: holds runs this benchmark did not start (no row.json); give another --work")
    recorded, wanted = json.loads(record.read_text(encoding="utf-8")), row_record(row, settings)
    if recorded != wanted:
        was, now = _flag_values(recorded.get("solve") or []), _flag_values(settings)
        differ = [f"{flag} {was.get(flag, '(none)')} -> {now.get(flag, '(none)')}"
                  for flag in dict.fromkeys([*was, *now]) if was.get(flag) != now.get(flag)]
        differ += [f"{key} {recorded.get(key)!r} -> {wanted[key]!r}" for key in ("method", "flags")
                   if recorded.get(key) != wanted[key]]
        raise RowError(f"{root}: its run was started with other settings ({'; '.join(differ)}); give another "
                       "--work, or remove the directory to start the row afresh")
    return True


def _flag_values(flags: list[str]) -> dict[str, str]:
    """A solve command line's flags and their values ("" for a flag that takes none)."""
    values: dict[str, str] = {}
    for i, token in enumerate(flags):
        if token.startswith("-") and not token.lstrip("-").replace(".", "").isdigit():
            following = flags[i + 1] if i + 1 < len(flags) else ""
            values[token] = "" if following.startswith("-") and not following.lstrip("-").isdigit() else following
    return values


def prepare_row(row: Row, root: Path, settings: list[str], memory: str) -> bool:
    """Make the row's directory ready; True when its run exists (to resume or read), False when
    it is to start: then it gets a fresh copy of `memory` and its row.json (check_row's RowError
    for a run started otherwise)."""
    if check_row(row, root, settings):
        return True
    root.mkdir(parents=True, exist_ok=True)
    copy_memory(memory, root / "memory.db")
    record = root / "row.json"
    tmp = record.with_suffix(".tmp")
    tmp.write_text(json.dumps(row_record(row, settings), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, record)
    return False


def copy_memory(source: str, target: Path) -> None:
    """A fresh copy of the starting memory at `target` (replacing any copy no run has used)."""
    from arcmemo.memory.store import Memory

    path = Path(source.removeprefix("sqlite:///"))
    if "://" in source and not source.startswith("sqlite"):
        raise RowError(f"{source}: each row starts from its own copy of the memory, so it must be a SQLite file")
    if not path.is_file():
        raise RowError(f"{path}: no such memory file (--memory)")
    tmp = target.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    with Memory(str(path), read_only=True) as memory:
        memory.copy_to(tmp)
    os.replace(tmp, target)


def _runs(root: Path) -> list:
    from arcmemo.run.records.rundir import list_runs

    return list_runs(root / "runs")


def finished(root: Path) -> bool:
    """Whether the row's run finished every task (nothing to resume)."""
    runs = _runs(root)
    summary = runs[-1].summary() if runs else None
    return bool(summary) and not summary.get("tasks_lost") and summary.get("tasks") == summary.get("tasks_planned")


def solve_command(arcmemo: list[str], row: Row, root: Path, settings: list[str], *, base_url: str | None,
                  resume: bool, quiet: bool = True) -> list[str]:
    """The `arcmemo solve` that starts the row (or, `resume`, continues its run)."""
    place = ["--db", str(root / "memory.db"), "--run-dir", str(root / "runs")]
    how = ["--resume", str(_runs(root)[-1].path)] if resume else [*settings, "--method", row.method, *row.flags]
    return [*arcmemo, "solve", *how, *place, *(["--base-url", base_url] if base_url else []),
            *(["-q"] if quiet else [])]


def run_row(row: Row, root: Path, settings: list[str], *, memory: str, arcmemo: list[str],
            base_url: str | None, quiet: bool = True) -> str | None:
    """Run (or resume) the row's solve to its end unless it finished; None, or why it stopped
    (the end of its log)."""
    started = prepare_row(row, root, settings, memory)
    if started and finished(root):
        return None
    command = solve_command(arcmemo, row, root, settings, base_url=base_url, resume=started, quiet=quiet)
    say(f"{row.name}: {'resuming' if started else 'starting'} (log {root / 'solve.log'})")
    began = time.monotonic()
    with open(root / "solve.log", "a", encoding="utf-8") as log:
        log.write(f"\n$ {shlex.join(command)}\n")
        log.flush()
        code = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    say(f"{row.name}: exit {code} after {time.monotonic() - began:.0f} s")
    if code == 0:
        return None
    tail = (root / "solve.log").read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
    what = "some tasks lost to the endpoint (run again to resume)" if code == EXIT_LOST else f"exit {code}"
    return f"{what}: {' / '.join(line.strip() for line in tail)}"


def say(text: str) -> None:
    """A progress line on stderr, with the time and the machine's load average (timings depend on it)."""
    print(f"[{time.strftime('%H:%M:%S')}, load {os.getloadavg()[0]:.1f}] {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------- reading a row's records

@dataclass
class RowResult:
    """What a row's records hold (`run` None: no run yet; `error`: why its solve stopped)."""

    row: Row
    run: Any = None                      # run/records/reader.RunRecord
    error: str | None = None
    memory: dict[str, Any] | None = None     # memory_sizes()
    asked: dict[str, Any] | None = None      # asked_usage()

    @property
    def summary(self) -> dict[str, Any]:
        return (self.run.summary if self.run is not None else None) or {}


def read_row(row: Row, root: Path, error: str | None = None) -> RowResult:
    """The row's run as its records hold it, its memory over the run and its calls."""
    from arcmemo.run.records.reader import read_run

    runs = _runs(root)
    if not runs:
        return RowResult(row, error=error or "not started")
    record = read_run(runs[-1])
    return RowResult(row, record, error, memory_sizes(root / "memory.db", record.recorded, record.summary or {},
                                                      method_formats(row.method)),
                     asked_usage(record.run_id))


def method_formats(name: str) -> tuple[str, ...]:
    """The store formats a memory method keeps its items in (none if it does not load here)."""
    from arcmemo.methods.discovery import MethodError, load_method

    try:
        return tuple(getattr(load_method(name), "formats", ()) or ())
    except MethodError:
        return ()


def memory_sizes(db: Path, config: dict[str, Any], summary: dict[str, Any], formats: tuple[str, ...]) -> dict:
    """Items per format in the row's memory as of the run's start, after each finished block's
    writes and at its end. Formats: the method's, and any the run wrote (ps with lessons from
    failures writes OE lessons). Every revision after the start is the run's (the row's memory
    is its own); a block ends just before the first revision of a later block's task (what a
    consolidation wrote between the two is the earlier block's), the last at the end."""
    from arcmemo.memory.store import Memory

    settings = config.get("settings", {})
    tasks, k = list(config.get("task_ids") or []), int(settings.get("k") or 1)
    done = set(summary.get("per_task") or ())
    with Memory(str(db), read_only=True) as memory:
        start = int(config.get("memory_revision_start") or 0)
        end = int(summary.get("memory_revision_end") or memory.revision())
        revisions = [r for r in memory.history() if r.id > start]
        counted = tuple(dict.fromkeys([*formats, *(r.format for r in revisions if r.format != TYPES)]))
        block_of = {task: i // k for i, task in enumerate(tasks)}
        first: dict[int, int] = {}
        for revision in revisions:
            if revision.task_id in block_of:
                first.setdefault(block_of[revision.task_id], revision.id)
        blocks = [tasks[i:i + k] for i in range(0, len(tasks), k)]
        ends = []
        for b, block in enumerate(blocks):
            if not set(block) <= done:
                break
            later = [rid for other, rid in first.items() if other > b]
            ends.append(min(later) - 1 if later else end)

        def size(revision: int) -> dict[str, int]:
            return {f: len(memory.list(f, as_of=revision)) for f in counted}

        return {"formats": counted, "start": size(start), "blocks": [size(r) for r in ends], "end": size(end)}


def asked_usage(run_id: str) -> dict[str, Any]:
    """The run's calls from the call log: how many, how many the cache answered, and tokens in,
    out and model seconds with each cache hit counted at what its call cost when it was made."""
    from arcmemo.llm.log import CallLog

    totals = {"calls": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0}
    with CallLog() as log:
        for call in log.list(run_id=run_id, limit=None):
            made = (log.lookup(call.cache_key) or call) if call.cached else call
            totals["calls"] += 1
            totals["cached"] += bool(call.cached)
            totals["prompt_tokens"] += made.prompt_tokens
            totals["completion_tokens"] += made.completion_tokens
            totals["seconds"] += made.latency_s
    return totals


# ---------------------------------------------------------------------- the table

def sign_test(won: int, lost: int) -> float:
    """Two-sided exact sign test over the tasks two rows disagree on: the chance of a split at
    least this uneven if neither row were better."""
    n = won + lost
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(comb(n, i) for i in range(min(won, lost) + 1)) / 2 ** n)


def _sizes(sizes: dict[str, int]) -> str:
    total = sum(sizes.values())
    parts = [f"{n} {f}" for f, n in sizes.items()]
    return str(total) if len(parts) < 2 else f"{total} ({', '.join(parts)})"


def _versus(result: RowResult, baseline: RowResult | None) -> str:
    if baseline is None or result is baseline or not result.summary or not baseline.summary:
        return "-"
    both = set(result.summary.get("per_task") or ()) & set(baseline.summary.get("per_task") or ())
    mine, theirs = set(result.summary.get("solved", [])) & both, set(baseline.summary.get("solved", [])) & both
    won, lost = len(mine - theirs), len(theirs - mine)
    return f"+{won} -{lost} (p {sign_test(won, lost):.2f})"


def score_columns(results: list[RowResult]) -> tuple[list[str], Any]:
    """The per-depth score headers (the headline's name at depth 0..R) and a row's score."""
    from arcmemo.run.records.report import score_of

    scored = [r for r in results if r.summary]
    if not scored:
        return [], None
    first = score_of(scored[0].run.recorded, scored[0].summary)
    depth = first.retry_depth or 0
    return [f"{first.name.split(' ')[0]} d{d}" for d in range(depth + 1)], first


def depth_cells(result: RowResult, depths: int) -> list[str]:
    """The headline (the paper's oracle@k over threads) at each retry depth, from Table 4."""
    from arcmemo.run.records.report import score_of

    if not result.summary:
        return ["-"] * depths
    score = score_of(result.run.recorded, result.summary)
    table = result.summary.get("table4") or {}
    oracle = table.get("oracle") or []
    return [score.mark(oracle[d][score.k - 1]) if d < len(oracle) else "-" for d in range(depths)]


def table(results: list[RowResult]) -> tuple[list[str], list[list[Any]]]:
    """The comparison's header and rows (module docstring: every cell from the records)."""
    depth_names, _ = score_columns(results)
    baseline = next((r for r in results if r.row.name == BASELINE and r.summary), None)
    header = ["row", "state", "solved", "passed train", *depth_names, "tokens in", "tokens out", "model s",
              "calls (cached)", "memory start", "after each block", "memory end", "writes (failed)",
              f"vs {BASELINE}"]
    rows = []
    for result in results:
        s, run = result.summary, result.run
        if run is None:
            rows.append([result.row.name, result.error or "-", *["-"] * (len(header) - 2)])
            continue
        asked, memory = result.asked or {}, result.memory or {}
        state = "error" if result.error else ("partial" if run.partial or s.get("tasks_lost") else "done")
        rows.append([
            result.row.name, state, f"{len(s.get('solved', []))}/{s.get('tasks_planned', '?')}",
            len(s.get("passed_train", [])), *depth_cells(result, len(depth_names)),
            asked.get("prompt_tokens", 0), asked.get("completion_tokens", 0), round(asked.get("seconds", 0.0)),
            f"{asked.get('calls', 0)} ({asked.get('cached', 0)})",
            _sizes(memory.get("start", {})), ", ".join(str(sum(b.values())) for b in memory.get("blocks", [])) or "-",
            _sizes(memory.get("end", {})), f"{s.get('writes', 0)} ({s.get('write_failures', 0)})",
            _versus(result, baseline)])
    return header, rows


def notes(results: list[RowResult]) -> list[str]:
    """What the table's cells do not say: per row, its formats, what it solved and why it stopped."""
    out = []
    for result in results:
        s, memory = result.summary, result.memory or {}
        start = sum((memory.get("start") or {}).values())
        begins = "empty" if result.run is not None and not start else f"{start} items" if result.run else "-"
        method = " ".join([result.row.method, *result.row.flags])
        formats = ", ".join(memory.get("formats", ())) or "-"
        solved = " ".join(s.get("solved", [])) or "-"
        out.append(f"{result.row.name}: method {method}; formats {formats}; starts {begins}; solved {solved}"
                   + (f"; {result.error}" if result.error else ""))
    return out


__all__ = ["ABLATIONS", "ABLATED", "BASELINE", "Row", "RowError", "RowResult", "asked_usage", "check_row",
           "copy_memory", "finished", "memory_sizes", "notes", "plan_rows", "prepare_row", "read_row", "run_row",
           "sign_test", "solve_command", "solve_flags", "table"]
