"""Start-up cost of the command line: CPU seconds (user + system) of a fresh process.

    python benchmarks/startup.py [--repeat 5]

Targets: `arcmemo --help` and the read-only commands (`concepts list/show/search/export/
history/graph/stats`, `runs list`, `models list`, `solvers list --no-check`) under 0.5 s of
CPU, on the shipped memory (`solvers list` imports every solver, numpy and scipy with them,
to check it loads: measured, no target). Each command runs `--repeat` times in a fresh
interpreter (the median counts), beside the same-run baselines of a bare interpreter and
one that only imports click. `python -X importtime -m arcmemo
--help` shows where the time goes.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_S = 0.5
ROOT = Path(__file__).resolve().parents[1]


def cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "ARCMEMO_HOME": tempfile.mkdtemp(prefix="arcmemo-startup-")}
    py = [sys.executable]
    arcmemo, db = py + ["-m", "arcmemo"], ["--db", str(ROOT / "memory.db")]
    cases = [
        ("python (baseline)", py + ["-c", "pass"], None),
        ("python + import click (baseline)", py + ["-c", "import click"], None),
        ("arcmemo --help", arcmemo + ["--help"], TARGET_S),
        ("arcmemo concepts list", arcmemo + ["concepts", "list", *db], TARGET_S),
        ("arcmemo concepts show 1", arcmemo + ["concepts", "show", "1", *db], TARGET_S),
        ("arcmemo concepts search grid", arcmemo + ["concepts", "search", "grid", *db], TARGET_S),
        ("arcmemo concepts export", arcmemo + ["concepts", "export", *db], TARGET_S),
        ("arcmemo concepts history", arcmemo + ["concepts", "history", *db], TARGET_S),
        ("arcmemo concepts graph 'rotate grid'", arcmemo + ["concepts", "graph", "rotate grid", *db], TARGET_S),
        ("arcmemo concepts stats", arcmemo + ["concepts", "stats", *db], TARGET_S),
        ("arcmemo models list", arcmemo + ["models", "list"], TARGET_S),
        ("arcmemo solvers list --no-check", arcmemo + ["solvers", "list", "--no-check"], TARGET_S),
        # its job is to import every solver (numpy, scipy): measured, no target
        ("arcmemo solvers list", arcmemo + ["solvers", "list"], None),
        ("arcmemo runs list", arcmemo + ["runs", "list", "--run-dir", tempfile.mkdtemp(prefix="arcmemo-runs-")],
         TARGET_S),
    ]
    rows = []
    for name, argv, target in cases:
        cpu_seconds(argv, env)                          # warm the file cache and .pyc files
        median = statistics.median(cpu_seconds(argv, env) for _ in range(args.repeat))
        rows.append((name, median, target))
    base = rows[0][1] or 1e-9
    width = max(len(r[0]) for r in rows)
    print(f"{'command'.ljust(width)}  cpu s   x bare python  target   result")
    print(f"{'-' * width}  ------  -------------  -------  ------")
    failed = False
    for name, median, target in rows:
        verdict = "-" if target is None else ("PASS" if median < target else "FAIL")
        failed |= verdict == "FAIL"
        print(f"{name.ljust(width)}  {median:6.2f}  {median / base:13.1f}  "
              f"{'-' if target is None else f'< {target:g} s':>7}  {verdict}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
