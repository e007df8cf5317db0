"""Benchmark: the page under load, beside runs it cannot read (issue 37, point 5).

    python benchmarks/page_load.py [--runs 1000] [--requests 200] [--rounds 2] [--big-mb 50]

Two runs folders of --runs solve runs each, made from the runs of the page tests (the real run
loop with the scripted fake model, tests/web_support.py), copied under new ids, half of them
finished, a quarter killed (no summary, their status running without the lock) and a quarter
of another memory method:
- "bad": among them one run whose event log is a FIFO (reading it would wait forever for a
  writer) and one whose event log is --big-mb MB (a long run: task events of about 10 KB);
- "baseline": the same folder with two ordinary runs in their place.

Over each, the real server (`arcmemo serve` in a subprocess) gets one request for the runs
list first (the folder read cold: every run's files), then --rounds bursts of --requests
requests at once, each on its own connection: half the runs list, the others run pages, task
pages, the progress fragment, a concept page (it reads what every run offered) and, in the
bad folder, the pages of the two bad runs (the baseline asks for the two ordinary runs in
their place).

Printed per folder and page: requests, how they were answered, the median, p95 and largest
latency; the server's peak memory (VmHWM of its process); and the ratio of the runs list's
p95 over the bad folder to the baseline's, measured in the same run. Targets: every page but
the bad runs' answers 200 (the FIFO run's page answers 500 with its error, the big run's
within the page time limit), the runs list's p95 under 1 s, the server under 300 MB. Exit
status 1 when a target is missed. The machine's load average is printed: with 2 shared
cores, other jobs stretch every latency alike.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from benchmarks.table import print_table  # noqa: E402

P95_TARGET_S = 1.0
MEMORY_TARGET = 300 * 1024 * 1024
FIFO_RUN, BIG_RUN = "20260101-000000-f1f0f1", "20260101-000000-b16b16"


# ---------------------------------------------------------------------- the runs folders

def base_runs(work: Path):
    """The page tests' memory and two real runs (continual ps, and the no-memory baseline)."""
    from web_support import build_fixture

    (work / "fixture").mkdir()
    return build_fixture(work / "fixture")


def _edit_config(run: Path, **changes) -> None:
    config = json.loads((run / "config.json").read_text())
    for key, value in changes.items():
        if key == "settings":
            config["settings"].update(value)
        else:
            config[key] = value
    (run / "config.json").write_text(json.dumps(config))


def make_folder(fixture, root: Path, n: int, *, bad: bool, big_mb: int) -> Path:
    """A runs folder of n runs (module docstring); with `bad`, a FIFO log and a big log among them."""
    runs = root / "runs"
    runs.mkdir(parents=True)
    sources = [fixture.runs / fixture.continual, fixture.runs / fixture.baseline]
    rng = random.Random(7)
    for i in range(n - 2):
        run = runs / f"20260102-{i // 3600:02d}{i // 60 % 60:02d}{i % 60:02d}-{i:06x}"
        shutil.copytree(sources[i % 2], run)
        _edit_config(run, started_at=f"2026-01-02T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}+0000",
                     settings={"selection": rng.choice(["ps", "none", "oe"])} if i % 4 == 3 else {})
        if i % 4 == 1:           # killed: no summary, its status says running, nobody holds its lock
            (run / "summary.json").unlink()
            (run / "status.json").write_text(json.dumps({"status": "running", "pid": 999999}))
    for name in (FIFO_RUN, BIG_RUN):
        shutil.copytree(sources[1], runs / name)
    if bad:
        (runs / FIFO_RUN / "events.jsonl").unlink()
        os.mkfifo(runs / FIFO_RUN / "events.jsonl")
        big_log(runs / BIG_RUN, big_mb)
    return runs


def big_log(run: Path, megabytes: int) -> None:
    """The run's event log grown to `megabytes` MB of task events (its tasks over and over under
    new ids, each with the reasoning and code a real task event carries, about 10 KB), and its
    config planning them."""
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    tasks = [e for e in events if e["type"] == "task"]
    rng = random.Random(3)
    ids, size = [], 0
    with open(run / "events.jsonl", "w", encoding="utf-8") as fh:
        fh.write(json.dumps(events[0]) + "\n")
        while size < megabytes * 1024 * 1024:
            event = dict(tasks[len(ids) % len(tasks)], task_id=f"{len(ids):08x}")
            event["reasoning"] = " ".join(rng.choice(("grid", "cell", "colour", "row", "object", "the", "each"))
                                          for _ in range(700))
            event["code"] = (event.get("code") or "") + "\n# " + "x" * 2000
            line = json.dumps(event) + "\n"
            fh.write(line)
            size += len(line)
            ids.append(event["task_id"])
        fh.write(json.dumps(events[-1]) + "\n")
    _edit_config(run, task_ids=ids)
    summary = json.loads((run / "summary.json").read_text())
    summary.update(tasks=len(ids), tasks_planned=len(ids))
    (run / "summary.json").write_text(json.dumps(summary))


# ---------------------------------------------------------------------- the server and its load

class Server:
    """`arcmemo serve` over one runs folder, in a subprocess."""

    def __init__(self, runs: Path, memory: Path, home: Path):
        env = dict(os.environ, ARCMEMO_HOME=str(home), PYTHONUNBUFFERED="1",
                   PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        self.process = subprocess.Popen([sys.executable, "-m", "arcmemo", "serve", "--db", str(memory), "--runs",
                                         str(runs), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, env=env, cwd=ROOT)
        line = ""
        while "http://" not in line:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                raise RuntimeError(f"arcmemo serve exited with {self.process.returncode}")
        self.port = int(line.split("http://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        threading.Thread(target=self.process.stdout.read, daemon=True).start()     # its later output

    def peak_memory(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        return 0

    def get(self, path: str) -> tuple[int | str, float]:
        """(status or the error, seconds) of one GET on a connection of its own."""
        started = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            connection.request("GET", path, headers={"Connection": "close"})
            response = connection.getresponse()
            response.read()
            status: int | str = response.status
            connection.close()
        except OSError as exc:
            status = type(exc).__name__
        return status, time.monotonic() - started

    def stop(self) -> float:
        """SIGTERM; the seconds until it ended."""
        started = time.monotonic()
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return time.monotonic() - started


def burst(server: Server, fixture, runs: Path, requests: int, seed: int) -> list[tuple[str, int | str, float]]:
    """`requests` requests at once (module docstring): (page kind, status, seconds) each."""
    rng = random.Random(seed)
    names = sorted(p.name for p in runs.iterdir() if p.name not in (FIFO_RUN, BIG_RUN))
    shown = rng.sample(names, 8)                   # the runs people look at
    kinds = []
    for i in range(requests):
        slot = i % 20
        if slot < 10:
            kinds.append(("runs list", "/runs"))
        elif slot < 13:
            kinds.append(("run page", f"/runs/{rng.choice(shown)}"))
        elif slot < 15:
            kinds.append(("task page", f"/runs/{rng.choice(shown)}/tasks/{rng.choice(fixture.tasks)}"))
        elif slot < 16:
            kinds.append(("progress", f"/runs/{rng.choice(shown)}/progress"))
        elif slot < 18:
            kinds.append(("concept page", "/concepts/1"))
        elif slot < 19:
            kinds.append(("FIFO-log run", f"/runs/{FIFO_RUN}"))
        else:
            kinds.append(("50 MB-log run", f"/runs/{BIG_RUN}"))
    gate = threading.Barrier(len(kinds))

    def one(kind_path):
        kind, path = kind_path
        gate.wait()
        status, seconds = server.get(path)
        return kind, status, seconds

    with ThreadPoolExecutor(len(kinds)) as pool:
        return list(pool.map(one, kinds))


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def measure(label: str, runs: Path, fixture, args, home: Path) -> dict:
    server = Server(runs, fixture.memory, home)
    try:
        status, cold = server.get("/runs")
        results = [("runs list, first (cold)", status, cold)]
        for round_ in range(args.rounds):
            results += burst(server, fixture, runs, args.requests, seed=round_)
        peak = server.peak_memory()
    finally:
        stopped = server.stop()
    by_kind = defaultdict(list)
    for kind, status, seconds in results:
        by_kind[kind].append((status, seconds))
    return {"label": label, "by_kind": by_kind, "peak": peak, "stopped": stopped}


def answered(items: list) -> str:
    counts: dict = defaultdict(int)
    for status, _ in items:
        counts[status] += 1
    return ", ".join(f"{n}x {status}" for status, n in sorted(counts.items(), key=lambda kv: str(kv[0])))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--big-mb", type=int, default=50)
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="page_load_") as tmp:
        work = Path(tmp)
        made = time.monotonic()
        fixture = base_runs(work)
        folders = {"baseline": make_folder(fixture, work / "baseline", args.runs, bad=False, big_mb=args.big_mb),
                   "bad": make_folder(fixture, work / "bad", args.runs, bad=True, big_mb=args.big_mb)}
        print(f"{args.runs} runs per folder made in {time.monotonic() - made:.0f} s; "
              f"the big run's log is {(folders['bad'] / BIG_RUN / 'events.jsonl').stat().st_size / 1e6:.0f} MB")
        found = {label: measure(label, runs, fixture, args, work / f"home-{label}") for label, runs in folders.items()}
    rows, failures = [], []
    for label, result in found.items():
        for kind, items in result["by_kind"].items():
            seconds = [s for _, s in items]
            rows.append((label, kind, len(items), answered(items), f"{statistics.median(seconds):.3f}",
                         f"{p95(seconds):.3f}", f"{max(seconds):.3f}"))
            expected = 500 if (label, kind) == ("bad", "FIFO-log run") else 200
            if any(status != expected for status, _ in items):
                failures.append(f"{label} {kind}: answered {answered(items)}, not all {expected}")
        rows.append((label, "server peak memory (MB)", "", "", f"{result['peak'] / 2**20:.0f}", "", ""))
        rows.append((label, "stopped after SIGTERM (s)", "", "", f"{result['stopped']:.2f}", "", ""))
        if result["peak"] > MEMORY_TARGET:
            failures.append(f"{label}: the server reached {result['peak'] / 2**20:.0f} MB, over "
                            f"{MEMORY_TARGET / 2**20:.0f} MB")
    print_table(("folder", "page", "requests", "answered", "median s", "p95 s", "max s"), rows)
    print("(baseline: the FIFO-log and 50 MB-log rows ask for the two ordinary runs in their place)")
    lists = {label: p95([s for _, s in r["by_kind"]["runs list"]]) for label, r in found.items()}
    print(f"\nruns list p95: {lists['bad']:.3f} s with the bad runs, {lists['baseline']:.3f} s without them "
          f"(ratio {lists['bad'] / lists['baseline']:.2f}); target under {P95_TARGET_S:.1f} s")
    if lists["bad"] >= P95_TARGET_S:
        failures.append(f"the runs list's p95 is {lists['bad']:.3f} s, not under {P95_TARGET_S} s")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    for failure in failures:
        print(f"MISSED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
