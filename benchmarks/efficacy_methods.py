"""Memory methods side by side on equal terms (issue 40): every method x memory's probe on/off x an
empty or a seeded start, on the same tasks, one command.

    python benchmarks/efficacy_methods.py --tasks ID,ID,... [--model local] [--work DIR] [--records DIR]
    python benchmarks/efficacy_methods.py --from-records DIR [--work DIR]     # the same grid again

Each row is one ordinary continual `arcmemo solve`, run as a process of its own, with the same
tasks, models, seed, temperature, attempts, retries and block size k, in WORK/<row>/:

    memory.db   its own memory: empty, or the method's seeded start (below)
    calls.db    its own call log: no row is answered from another row's cache, so every row
                draws fresh samples; a resumed row replays only its own answers
    runs/       its run directory: arcmemo's ordinary records
    row.json    the exact solve command, the seed command of its start, the model, the tasks, the
                date: the benchmark run again with other settings on the same WORK is refused
    solve.log   the solve's own output

Starts: the method's own items are `empty`, or `seeded`: what `arcmemo seed SEEDS --method M`
makes of the same seed solutions (--seeds) through the method's own write path (ps and oe:
ArcMemo's annotations; ACE: its reflector and curator; ...), built once per method in
WORK/_starts/<method>/ with its own call log. `--probe both` gives each method a row with
memory's probe (its verified helpers tried on the train pairs, the fits named in the hint and
submitted as candidate answers) and one without. Memory's helpers are the helpers of ps's
concepts, so a probed row's memory also holds ps's seeded concepts, the same library for every
method (they are ps's items: no other method's read shows them); for ps and `all`, which read
those very items, a probed row is a seeded one. `none` reads and writes nothing: its rows differ
by the probe alone. Rows of the ablations of ps and oe (--learn-from-failures,
--use-prior, --consolidate-every N) are added with --ablations.

Running the benchmark again resumes: a row whose run finished is only read; one that stopped
(killed, or tasks lost to the endpoint) is continued with `arcmemo solve --resume`.

The table is read from the rows' records, never from numbers this script keeps: config.json,
summary.json (or, for a run not finished, what its events hold), the row's call log (calls made
and cache hits, each cache hit at zero cost and zero tokens) and the row's memory (its items at
the start, after each block and at the end). "vs none" sets each row against the `none` row of
the same probe setting, over the tasks both finished, which the notes name. With --records DIR
the rows' records (row.json, config.json, summary.json), the table and the command that made it
are written to DIR, which `--from-records DIR` reads to run the same grid again.
"""

from __future__ import annotations

import argparse
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

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# the ablations: name -> the solve flags that make one ("{n}": --consolidate-every's N)
ABLATIONS = {"learn-from-failures": ("--learn-from-failures",), "use-prior": ("--use-prior",),
             "consolidate-every": ("--consolidate-every", "{n}")}
ABLATED = ("ps", "oe")          # the methods the ablations are rows of
BASELINE = "none"               # the rows the others' solved tasks are set against
TYPES = "type"                  # the store's revisions of custom types: not items of a method
EXIT_LOST = 3                   # arcmemo solve: finished, some tasks lost to the endpoint
STARTS = ("empty", "seeded")
SEEDS = ROOT / "seeds"
# The seed solutions seeded starts learn from: each one's annotation holds a helper the default tasks'
# rules call (a colour table, a turn, a periodic pattern, a flip), so memory's probe has something to try
DEFAULT_SEEDS = ("0d3d703e", "46442a0e", "53b68214", "b8825c91")
LIBRARY_OWNER = "ps"            # memory's verified helpers are the helpers of ps's concepts


class RowError(Exception):
    """A row that cannot be run as asked (the message names its directory and why)."""


@dataclass(frozen=True)
class Row:
    """One solve of the comparison: a method, probed or not, from an empty or a seeded start, with the
    flags of an ablation if it is one."""

    name: str
    method: str
    probe: bool = False
    start: str = "empty"
    flags: tuple[str, ...] = ()


def row_name(method: str, probe: bool, start: str) -> str:
    return f"{method}.{'probe' if probe else 'plain'}.{start}"


def writes_memory(method: str) -> bool:
    from arcmemo.methods.discovery import load_method

    return load_method(method).writes_memory


def owns_library(method: str) -> bool:
    """Whether memory's helper library is the method's own items (ps, and `all`, which reads ps's)."""
    from arcmemo.methods.discovery import load_method

    return load_method(method).owner() == LIBRARY_OWNER


def solve_flags() -> set[str]:
    """Every flag this arcmemo's `solve` takes (an ablation row exists only if its flag does)."""
    from arcmemo.cli.solve import solve

    return {opt for param in solve.params for opt in getattr(param, "opts", ())}


def plan_rows(methods: list[str], ablations: list[str] | None = (), *, probes=(True, False), starts=STARTS,
              available: set[str] | None = None, consolidate_every: int = 1,
              ablate: tuple[str, ...] = ABLATED) -> tuple[list[Row], list[str]]:
    """The grid: each method x probe x start (a method that learns nothing has only the empty
    start), then each ablation of each method in `ablate` (probe as the first probe setting, empty
    start). `ablations` None: those whose flag this arcmemo has; named ones whose flag is missing
    are a RowError."""
    available = solve_flags() if available is None else available
    unknown = [a for a in ablations or () if a not in ABLATIONS]
    if unknown:
        raise RowError(f"unknown ablation(s) {', '.join(unknown)}; known: {', '.join(ABLATIONS)}")
    wanted = list(ABLATIONS) if ablations is None else list(ablations)
    missing = [a for a in wanted if ABLATIONS[a][0] not in available]
    if ablations is not None and missing:
        raise RowError(f"this arcmemo's solve has no {', '.join(ABLATIONS[a][0] for a in missing)} "
                       f"(ablation {', '.join(missing)}): merge the branch that adds it, or leave it out")
    rows = [Row(row_name(method, probe, start), method, probe, start)
            for method in methods for start in (starts if writes_memory(method) else starts[:1]) for probe in probes
            if not (probe and start == "empty" and writes_memory(method) and owns_library(method))]
    for base in (m for m in ablate if m in methods):
        for name in (a for a in wanted if a not in missing):
            flags = tuple(f.format(n=consolidate_every) for f in ABLATIONS[name])
            label = f"{name}-{consolidate_every}" if "{n}" in ABLATIONS[name] else name
            rows.append(Row(f"{row_name(base, probes[0], starts[0])}+{label}", base, probes[0], starts[0], flags))
    notes = [f"ablation {a}: not in this arcmemo (its solve has no {ABLATIONS[a][0]})" for a in missing]
    return rows, notes


# ---------------------------------------------------------------------- starts and rows

@dataclass(frozen=True)
class Grid:
    """What every row shares: the solve flags, the model, where rows live and how starts are seeded."""

    settings: tuple[str, ...]           # the solve flags of every row
    work: Path
    arcmemo: tuple[str, ...]            # the arcmemo command rows run
    model: str
    seeds: tuple[str, ...] = DEFAULT_SEEDS
    base_url: str | None = None
    quiet: bool = True


def seed_folder(grid: Grid) -> Path:
    """The chosen seed solutions (and the helper library their annotations use), in WORK/_seeds/."""
    import shutil

    from arcmemo.memory.helpers.seedlibrary import LIBRARY

    folder = grid.work / "_seeds"
    folder.mkdir(parents=True, exist_ok=True)
    for name in [*(f"{s}{ext}" for s in grid.seeds for ext in (".py", ".yaml")), LIBRARY]:
        if (SEEDS / name).exists() and not (folder / name).exists():
            shutil.copy(SEEDS / name, folder / name)
    return folder


def seed_command(grid: Grid, method: str, root: Path) -> list[str]:
    """The `arcmemo seed` that makes `method`'s seeded start in `root`."""
    return [*grid.arcmemo, "seed", str(seed_folder(grid)), "--method", method, "--model", grid.model,
            "--db", str(root / "memory.db"), "--run-dir", str(root / "runs"), "-q",
            *(["--base-url", grid.base_url] if grid.base_url else [])]


def start_folder(work: Path, method: str) -> Path:
    """Where `method`'s seeded start is built, with its seed run and record (seeded.json)."""
    return work / "_starts" / method


def seeded(grid: Grid, method: str) -> tuple[Path, list[str]]:
    """`method`'s items seeded from the chosen seeds (built once, with its own call log), and the command."""
    root = start_folder(grid.work, method)
    command = seed_command(grid, method, root)
    if not (root / "seeded.json").exists():
        root.mkdir(parents=True, exist_ok=True)
        (root / "memory.db").unlink(missing_ok=True)
        say(f"{method}: seeding its start from {len(grid.seeds)} seed(s) (log {root / 'seed.log'})")
        code = _logged(command, root / "seed.log", {"ARCMEMO_LOG_DB": str(root / "calls.db")})
        outcome = seed_outcome(root)
        if code != 0 and not (code == 1 and outcome.get("failed") == 0 and outcome.get("write_failures")):
            raise RowError(f"{root}: `arcmemo seed` for {method} exited {code} (see {root / 'seed.log'})")
        _write_json(root / "seeded.json", {"command": command, "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
                                           **{key: outcome.get(key) for key in SEED_OUTCOME}})
    return root / "memory.db", command


# what a start's record keeps of its seed run (the run's summary.json)
SEED_OUTCOME = ("files", "verified", "concepts_added", "concepts_extended", "write_failures", "problems", "usage")


def seed_outcome(root: Path) -> dict[str, Any]:
    """The summary of the last seed run under `root` ({} if it wrote none). A seed the method's
    write could not learn from (the model's answer unreadable after its retry) is part of what
    that write path gives with this model, as a failed write is in a row: the start keeps the
    others and its record counts the failures. A seed that fails verification stops the grid."""
    found = sorted((root / "runs").glob("*/summary.json"))
    return json.loads(found[-1].read_text(encoding="utf-8")) if found else {}


def start_memory(grid: Grid, row: Row) -> tuple[Path, list[list[str]]]:
    """The memory a row starts from and the seed commands that made it: its method's items (none, or
    seeded), and, probed, memory's helper library (ps's seeded concepts: the module docstring),
    joined once per kind of start in WORK/_starts/."""
    own = row.start == "seeded" and writes_memory(row.method)
    library = row.probe and not (own and owns_library(row.method))
    path = grid.work / "_starts" / f"{row.method if own else 'nothing'}{'+library' if library else ''}.db"
    parts, commands, base = [], [], None
    for wanted, method in ((own, row.method), (library, LIBRARY_OWNER)):
        if wanted:
            start, command = seeded(grid, method)
            commands.append(command)
            if method == LIBRARY_OWNER or owns_library(method):
                base = start            # ps's concepts carry the helpers: copied whole
            else:
                parts.append(start)
    if not path.exists():
        join_memories(parts, path, base)
    return path, commands


def join_memories(parts: list[Path], target: Path, base: Path | None = None) -> None:
    """One memory holding every item of `base` (copied: ps's concepts, whose helpers an import would
    have to verify again) and of `parts` (imported: items without helpers); each keeps its owner."""
    from arcmemo.memory.io.export import export_yaml
    from arcmemo.memory.io.imports import import_file
    from arcmemo.memory.store import Memory

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    if base is not None:
        copy_memory(str(base), tmp)
    exported = target.with_suffix(".yaml")
    with Memory(str(tmp)) as memory:
        for part in parts:
            with Memory(str(part), read_only=True) as source:
                exported.write_text(export_yaml(source), encoding="utf-8")
            import_file(memory, exported, actor="benchmark", reason=f"a start: {part.parent.name}'s seeded items")
    exported.unlink(missing_ok=True)
    os.replace(tmp, target)


def row_record(row: Row, grid: Grid, command: list[str], seeded_by: list[list[str]]) -> dict[str, Any]:
    """What row.json holds: the row, the exact solve command (paths under the work folder as WORK),
    the seed commands of its start, the model and the seeds."""
    return {"row": row.name, "method": row.method, "probe": row.probe, "start": row.start, "flags": list(row.flags),
            "model": grid.model, "seeds": list(grid.seeds), "solve": _relative(command, grid.work),
            "seeded_by": [_relative(c, grid.work) for c in seeded_by]}


def _relative(command: list[str], work: Path) -> list[str]:
    return [token.replace(str(work), "WORK") for token in command]


def check_row(row: Row, root: Path, wanted: dict[str, Any]) -> bool:
    """Whether the row has a run (to resume or read); RowError when that run was not started by
    this benchmark with these settings (row.json), naming what differs."""
    if not _runs(root):
        return False
    record = root / "row.json"
    if not record.exists():
        raise RowError(f"{root}: holds runs this benchmark did not start (no row.json); give another --work")
    recorded = json.loads(record.read_text(encoding="utf-8"))
    differ = [f"{key} {recorded.get(key)!r} -> {wanted[key]!r}" for key in wanted
              if key not in ("date",) and recorded.get(key) != wanted[key]]
    if differ:
        raise RowError(f"{root}: its run was started with other settings ({'; '.join(differ)}); give another "
                       "--work, or remove the directory to start the row afresh")
    return True


def solve_command(grid: Grid, row: Row, root: Path, *, resume: bool) -> list[str]:
    """The `arcmemo solve` that starts the row (or, `resume`, continues its run)."""
    place = ["--db", str(root / "memory.db"), "--run-dir", str(root / "runs")]
    how = (["--resume", str(_runs(root)[-1].path)] if resume else
           [*grid.settings, "--method", row.method, "--probe-helpers" if row.probe else "--no-probe-helpers",
            *row.flags])
    return [*grid.arcmemo, "solve", *how, *place, *(["--base-url", grid.base_url] if grid.base_url else []),
            *(["-q"] if grid.quiet else [])]


def run_row(grid: Grid, row: Row) -> str | None:
    """Run (or resume) the row's solve to its end unless it finished; None, or why it stopped."""
    root = grid.work / row.name
    start, seeded_by = start_memory(grid, row)
    wanted = row_record(row, grid, solve_command(grid, row, root, resume=False), seeded_by)
    started = check_row(row, root, wanted)
    if started and finished(root):
        return None
    if not started:
        root.mkdir(parents=True, exist_ok=True)
        copy_memory(str(start), root / "memory.db")
        (root / "calls.db").unlink(missing_ok=True)
        _write_json(root / "row.json", {**wanted, "date": time.strftime("%Y-%m-%d %H:%M:%S %z")})
    command = solve_command(grid, row, root, resume=started)
    say(f"{row.name}: {'resuming' if started else 'starting'} (log {root / 'solve.log'})")
    began = time.monotonic()
    code = _logged(command, root / "solve.log", {"ARCMEMO_LOG_DB": str(root / "calls.db")})
    say(f"{row.name}: exit {code} after {time.monotonic() - began:.0f} s")
    if code == 0:
        return None
    tail = (root / "solve.log").read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
    what = "some tasks lost to the endpoint (run again to resume)" if code == EXIT_LOST else f"exit {code}"
    return f"{what}: {' / '.join(line.strip() for line in tail)}"


def _logged(command: list[str], log_path: Path, env: dict[str, str]) -> int:
    with open(log_path, "a", encoding="utf-8") as log:
        log.write(f"\n$ {shlex.join(command)}\n")
        log.flush()
        return subprocess.call(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               env={**os.environ, **env})


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def copy_memory(source: str, target: Path) -> None:
    """A fresh copy of the starting memory at `target` (replacing any copy no run has used)."""
    from arcmemo.memory.store import Memory

    path = Path(source.removeprefix("sqlite:///"))
    if not path.is_file():
        raise RowError(f"{path}: no such memory file")
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


def say(text: str) -> None:
    """A progress line on stderr, with the time and the machine's load average (timings depend on it)."""
    print(f"[{time.strftime('%H:%M:%S')}, load {os.getloadavg()[0]:.1f}] {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------- reading a row's records

@dataclass
class RowResult:
    """What a row's records hold (`run` None: no run yet; `error`: why its solve stopped)."""

    row: Row
    run: Any = None                      # records.reader.RunRecord
    error: str | None = None
    memory: dict[str, Any] | None = None     # memory_sizes()
    asked: dict[str, Any] | None = None      # asked_usage()
    seeded: dict[str, Any] | None = None     # a seeded start's record (`seeded`)

    @property
    def summary(self) -> dict[str, Any]:
        return (self.run.summary if self.run is not None else None) or {}


def read_row(row: Row, root: Path, error: str | None = None) -> RowResult:
    """The row's run as its records hold it, its memory over the run and its calls."""
    from arcmemo.run.records.reader import read_run

    runs = _runs(root)
    start = start_folder(root.parent, row.method) / "seeded.json"
    seeded = json.loads(start.read_text(encoding="utf-8")) if row.start == "seeded" and start.exists() else None
    if not runs:
        return RowResult(row, error=error or "not started", seeded=seeded)
    record = read_run(runs[-1])
    return RowResult(row, record, error, memory_sizes(root / "memory.db", record.recorded, record.summary or {},
                                                      method_formats(row.method)),
                     asked_usage(record.run_id, root / "calls.db"), seeded)


def method_formats(name: str) -> tuple[str, ...]:
    """The store formats a memory method keeps its items in (none if it does not load here)."""
    from arcmemo.methods.discovery import MethodError, load_method

    try:
        return tuple(load_method(name).formats)
    except MethodError:
        return ()


def memory_sizes(db: Path, config: dict[str, Any], summary: dict[str, Any], formats: tuple[str, ...]) -> dict:
    """Items per format in the row's memory as of the run's start, after each finished block's
    writes and at its end. Formats: the method's, and any the run wrote. Every revision after the
    start is the run's (the row's memory is its own); a block ends just before the first revision
    of a later block's task, the last at the end."""
    from arcmemo.memory.store import Memory

    settings = config.get("settings", {})
    tasks, k = list(config.get("task_ids") or []), int(settings.get("k") or 1)
    done = set(summary.get("per_task") or ())
    with Memory(str(db), read_only=True) as memory:
        start = int(config.get("memory_revision_start") or 0)
        end = int(summary.get("memory_revision_end") or memory.revision())
        revisions = [r for r in memory.history(format=None) if r.id > start]
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


def asked_usage(run_id: str, log_path: Path) -> dict[str, Any]:
    """The run's calls from the row's own call log: how many, how many the cache answered (each at
    zero cost: nothing was asked), and the tokens and model seconds of the calls made."""
    from arcmemo.llm.log import CallLog

    totals = {"calls": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0, "cost_usd": 0.0}
    if not log_path.exists():
        return totals
    with CallLog(str(log_path)) as log:
        for call in log.list(run_id=run_id, limit=None):
            totals["calls"] += 1
            if call.cached:
                totals["cached"] += 1
                continue
            totals["prompt_tokens"] += call.prompt_tokens
            totals["completion_tokens"] += call.completion_tokens
            totals["seconds"] += call.latency_s
            totals["cost_usd"] += call.cost_usd or 0.0
    return totals


# ---------------------------------------------------------------------- the table

def sign_test(won: int, lost: int) -> float:
    """Two-sided exact sign test over the tasks two rows disagree on: the chance of a split at
    least this uneven if neither row were better."""
    n = won + lost
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(comb(n, i) for i in range(min(won, lost) + 1)) / 2 ** n)


def _total(sizes: dict[str, int]) -> int:
    return sum(sizes.values())


def baseline_for(result: RowResult, results: list[RowResult]) -> RowResult | None:
    """The `none` row with the same probe setting (None: there is none, or it has no summary)."""
    return next((r for r in results if r.row.method == BASELINE and r.row.probe == result.row.probe
                 and not r.row.flags and r.summary), None)


def versus(result: RowResult, baseline: RowResult | None) -> tuple[str, list[str]]:
    """(+won -lost of n (p), the tasks compared): over the tasks both rows finished."""
    if baseline is None or result is baseline or not result.summary:
        return "-", []
    both = sorted(set(result.summary.get("per_task") or ()) & set(baseline.summary.get("per_task") or ()))
    mine = set(result.summary.get("solved", [])) & set(both)
    theirs = set(baseline.summary.get("solved", [])) & set(both)
    won, lost = len(mine - theirs), len(theirs - mine)
    return f"+{won} -{lost} of {len(both)} (p {sign_test(won, lost):.2f})", both


def _score(result: RowResult) -> str:
    from arcmemo.run.records.report import score_of

    score = score_of(result.run.recorded, result.summary)
    return "-" if score.value is None else score.mark(score.value)


HEADER = ["row", "state", "solved", "passed train", "score", "fits answered", "tokens in/out", "model s",
          "calls (cached)", "items start>end", "writes (failed)", f"vs {BASELINE}"]


def table(results: list[RowResult]) -> tuple[list[str], list[list[Any]]]:
    """The comparison's header and rows (module docstring: every cell from the records)."""
    rows = []
    for result in results:
        s, run = result.summary, result.run
        if run is None:
            rows.append([result.row.name, result.error or "-", *["-"] * (len(HEADER) - 2)])
            continue
        asked, memory = result.asked or {}, result.memory or {}
        state = "error" if result.error else ("partial" if run.partial or s.get("tasks_lost") else "done")
        rows.append([
            result.row.name, state, f"{len(s.get('solved', []))}/{s.get('tasks_planned', '?')}",
            len(s.get("passed_train", [])), _score(result), len(s.get("fit_answer_tasks", [])),
            f"{asked.get('prompt_tokens', 0)}/{asked.get('completion_tokens', 0)}", round(asked.get("seconds", 0.0)),
            f"{asked.get('calls', 0)} ({asked.get('cached', 0)})",
            f"{_total(memory.get('start', {}))}>{_total(memory.get('end', {}))}",
            f"{s.get('writes', 0)} ({s.get('write_failures', 0)})",
            versus(result, baseline_for(result, results))[0]])
    return HEADER, rows


def notes(results: list[RowResult]) -> list[str]:
    """What the table's cells do not say: per row, its formats, memory after each block, what it
    solved, the tasks its "vs none" compares, seeds its start could not learn from, why it stopped."""
    from arcmemo.core.table import counted

    out = []
    for result in results:
        s, memory = result.summary, result.memory or {}
        blocks = ", ".join(str(_total(b)) for b in memory.get("blocks", [])) or "-"
        _, both = versus(result, baseline_for(result, results))
        out.append(f"{result.row.name}: method {' '.join([result.row.method, *result.row.flags])}; formats "
                   f"{', '.join(memory.get('formats', ())) or '-'}; items after each block {blocks}; solved "
                   f"{' '.join(s.get('solved', [])) or '-'}"
                   + (f"; vs {BASELINE} over {', '.join(both)}" if both else "")
                   + (f"; its start could not learn from {counted(result.seeded['write_failures'], 'seed')} "
                      f"of {result.seeded.get('verified')}" if result.seeded and result.seeded.get("write_failures")
                      else "")
                   + (f"; {result.error}" if result.error else ""))
    return out


# ---------------------------------------------------------------------- records and the command

def write_records(directory: Path, results: list[RowResult], grid: Grid, argv: list[str], text: str) -> None:
    """The rows' records, the table and the command that made them, into `directory` (to ship)."""
    directory.mkdir(parents=True, exist_ok=True)
    _write_json(directory / "settings.json", {"argv": argv, "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
                                              "arcmemo": _version()})
    for result in results:
        root = grid.work / result.row.name
        target = directory / result.row.name
        target.mkdir(exist_ok=True)
        if (root / "row.json").exists():
            _write_json(target / "row.json", json.loads((root / "row.json").read_text(encoding="utf-8")))
        if result.seeded is not None:
            _write_json(target / "seeded.json", result.seeded)
        if result.run is not None:
            _write_json(target / "summary.json", result.summary)
            _write_json(target / "usage.json", result.asked)
    (directory / "table.txt").write_text(text, encoding="utf-8")


def _version() -> str:
    import arcmemo

    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
    except OSError:
        commit = ""
    return f"{arcmemo.__version__}{' ' + commit if commit else ''}"


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=None, help="ARC-AGI-1 training task ids, comma-separated (not seeds).")
    parser.add_argument("--model", default="local", help="The model for every role (default: the embedded one).")
    parser.add_argument("--methods", default="", metavar="NAME,...", help="The methods (default: every installed).")
    parser.add_argument("--probe", choices=("both", "on", "off"), default="both", help="Rows with memory's probe.")
    parser.add_argument("--starts", default=",".join(STARTS), help="empty, seeded or both (comma-separated).")
    parser.add_argument("--seeds", default=",".join(DEFAULT_SEEDS), metavar="ID,...",
                        help="The seed solutions (of seeds/) seeded starts learn from (default: %(default)s).")
    parser.add_argument("--ablations", default="", metavar="NAME,...", help="Ablation rows of ps and oe.")
    parser.add_argument("--consolidate-every", type=int, default=1, metavar="N")
    parser.add_argument("-k", type=int, default=2, help="Tasks per continual block (default: %(default)s).")
    parser.add_argument("--attempts", type=int, default=1)
    parser.add_argument("--retries", type=int, default=0)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0, help="The models' sampling seed.")
    parser.add_argument("--max-tokens", type=int, default=768, help="At most this many tokens per answer.")
    parser.add_argument("--solve-args", default="", metavar="FLAGS", help="More `arcmemo solve` flags for every row.")
    parser.add_argument("--base-url", default=None, help="An OpenAI-compatible endpoint (key: OPENAI_API_KEY).")
    parser.add_argument("--work", default=str(Path.home() / ".arcmemo" / "methods"), help="Where the rows live.")
    parser.add_argument("--arcmemo", default=None, metavar="COMMAND", help="The arcmemo command rows run.")
    parser.add_argument("--records", default=None, metavar="DIR", help="Write the rows' records and table here.")
    parser.add_argument("--from-records", default=None, metavar="DIR",
                        help="Run the grid DIR's records were made with (its settings.json's command).")
    parser.add_argument("--report", action="store_true", help="Run nothing: print what the rows' records hold.")
    parser.add_argument("--progress", action="store_true", help="Show each run's progress in its log.")
    args = parser.parse_args(argv)
    if args.from_records:
        recorded = json.loads((Path(args.from_records) / "settings.json").read_text(encoding="utf-8"))["argv"]
        argv = [*recorded, *without(argv, ("--from-records",))]
        args = parser.parse_args(argv)
    if not args.tasks:
        parser.error("--tasks is needed (or --from-records)")
    args.grid_argv = without(argv, ("--records", "--report", "--from-records"))
    return args


def without(argv: list[str], options: tuple[str, ...]) -> list[str]:
    """`argv` less `options` and their values (`--report` takes none): what a record keeps of a
    command is the grid it runs, not where the records went or whether it only reported."""
    kept, skip = [], False
    for arg in argv:
        name = arg.split("=", 1)[0]
        if skip or name in options:
            skip = not skip and name in options and "=" not in arg and name != "--report"
            continue
        kept.append(arg)
    return kept


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    from arcmemo.methods.discovery import method_names

    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    starts = tuple(s.strip() for s in args.starts.split(",") if s.strip())
    seeds = tuple(s.strip() for s in args.seeds.split(",") if s.strip())
    if set(tasks) & set(seeds):
        raise SystemExit(f"efficacy_methods: {', '.join(sorted(set(tasks) & set(seeds)))}: among the seeds the "
                         "starts learn from, so not held out")
    installed = method_names()
    methods = [m.strip() for m in args.methods.split(",") if m.strip()] or list(installed)
    unknown = [m for m in methods if m not in installed]
    if unknown:
        raise SystemExit(f"efficacy_methods: no memory method {', '.join(unknown)} here ({', '.join(installed)})")
    probes = {"both": (True, False), "on": (True,), "off": (False,)}[args.probe]
    try:
        rows, missing = plan_rows(methods, [a.strip() for a in args.ablations.split(",") if a.strip()],
                                  probes=probes, starts=starts, consolidate_every=args.consolidate_every)
    except RowError as exc:
        raise SystemExit(f"efficacy_methods: {exc}") from None
    settings = ["--split", "training", "--tasks", ",".join(tasks), "--continual", "-k", str(args.k), "--attempts",
                str(args.attempts), "--retries", str(args.retries), "--temperature", str(args.temperature),
                "--model-seed", str(args.seed), "--max-tokens", str(args.max_tokens)]
    settings += [flag for role in ("solver", "aux", "select") for flag in (f"--{role}-model", args.model)]
    settings += shlex.split(args.solve_args)
    grid = Grid(settings=tuple(settings), work=Path(args.work).resolve(), model=args.model,
                arcmemo=tuple(shlex.split(args.arcmemo) if args.arcmemo else (sys.executable, "-m", "arcmemo")),
                seeds=seeds, base_url=args.base_url, quiet=not args.progress)
    results = []
    for row in rows:
        error = None
        if not args.report:
            try:
                error = run_row(grid, row)
            except RowError as exc:
                error = str(exc)
        results.append(read_row(row, grid.work / row.name, error))
    lines = [f"memory methods on {len(tasks)} ARC-AGI-1 training tasks ({', '.join(tasks)}), model {args.model}"
             f"{' at ' + args.base_url if args.base_url else ''}: continual k={args.k}, {args.attempts} attempt(s), "
             f"{args.retries} retries, temperature {args.temperature}, seed {args.seed}, at most {args.max_tokens} "
             f"tokens per answer; starts and memory's helpers from the seeds {', '.join(seeds)}; every row its own "
             f"memory and call "
             f"log under {grid.work}", f"command: python benchmarks/efficacy_methods.py {shlex.join(argv)}",
             f"date: {time.strftime('%Y-%m-%d')}, arcmemo {_version()}"]
    header, cells = table(results)
    widths = [max(len(str(r[i])) for r in [header, *cells]) for i in range(len(header))]
    lines += ["", *("  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip() for row in [header, *cells]), ""]
    lines += ["score: the run's headline (oracle@1, one thread). fits answered: tasks whose submitted answer was "
              "memory's fit. tokens and model seconds: the calls the row made (cache hits cost nothing and are "
              f"counted in brackets). vs {BASELINE}: tasks this row solved and {BASELINE} (same probe setting) did "
              "not (+) and the reverse (-), over the tasks both finished, with the two-sided sign test's p.",
              *notes(results), *missing]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.records:
        write_records(Path(args.records), results, grid, args.grid_argv, text)
    return 0 if all(r.run is not None and finished(grid.work / r.row.name) for r in results) else 1


__all__ = ["ABLATIONS", "BASELINE", "Grid", "Row", "RowError", "RowResult", "asked_usage", "check_row",
           "copy_memory", "finished", "main", "memory_sizes", "notes", "plan_rows", "read_row", "run_row",
           "sign_test", "solve_command", "table", "versus", "write_records"]

if __name__ == "__main__":
    sys.exit(main())
