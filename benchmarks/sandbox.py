"""Benchmark: the sandbox against a fresh interpreter per program and plain in-process exec.

Runs N small correct programs (default 1,000), each on the train pairs of the real ARC
training task it solves, three ways:

  (a) a fresh `python` process per program (import numpy, exec, run, print JSON) — the
      way simple harnesses do it; measured on a sample and extrapolated per program, with
      the sandbox workers' environment (one BLAS/OpenMP thread), sequentially and from as
      many threads as cores;
  (b) plain in-process `exec` + call — no isolation at all, the lower limit;
  (c) arcmemo.sandbox.Sandbox — one forked, rlimited process per program, from a pool of
      warm workers (one per core), called from as many threads as workers, and also
      sequentially from one thread (per-run latency);
  (f) for reference, an empty fork + exit + wait, repeated n times, in a fresh process with
      numpy loaded (like a worker) and one with numpy and scipy (like its scipy server),
      mixed as the workload's programs are: what any one-process-per-run design pays at
      least on this machine.

Wall time depends on other load on the machine; the CPU column (every process involved:
this one, the workers and everything they fork) much less so; compare ratios on both.
Sequential runs are compared with sequential ones and parallel with parallel; each target
line says PASS or FAIL.

Programs: a built-in set of small solutions plus, with `--seeds DIR`, the `<task_id>.py`
seed solutions found there (default: the project's seeds/). Every program is checked
in-process first and only programs that solve all train pairs are used. Each of the N
runs gets a distinct source text (a trailing comment), so no method can reuse a compiled
program. Usage: python benchmarks/sandbox.py [-n 1000] [--sample-a 30] [--seeds DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arcmemo.core.tasks import load_tasks
from arcmemo.sandbox import Sandbox
from arcmemo.sandbox.pool import WORKER_ENV

BUILTIN = {
    "3c9b0459": "import numpy as np\ndef transform(grid):\n    return np.rot90(grid, 2)\n",
    "6150a2bd": "import numpy as np\ndef transform(grid):\n    return grid[::-1, ::-1]\n",
    "67a3c6ac": "def transform(grid):\n    return grid[:, ::-1]\n",
    "68b16354": "def transform(grid):\n    return grid[::-1]\n",
    "74dd1130": "def transform(grid):\n    return grid.T\n",
    "9dfd6313": "def transform(grid):\n    return grid.T\n",
    "a416b8f3": "import numpy as np\ndef transform(grid):\n    return np.concatenate([grid, grid], axis=1)\n",
    "c8f0f002": "def transform(grid):\n    out = grid.copy()\n    out[out == 7] = 5\n    return out\n",
    "b1948b0a": "def transform(grid):\n    out = grid.copy()\n    out[out == 6] = 2\n    return out\n",
    "d511f180": (
        "def transform(grid):\n"
        "    out = grid.copy()\n"
        "    out[grid == 5] = 8\n"
        "    out[grid == 8] = 5\n"
        "    return out\n"
    ),
    "25ff71a9": (
        "import numpy as np\n"
        "def transform(grid):\n"
        "    out = np.zeros_like(grid)\n"
        "    out[1:] = grid[:-1]\n"
        "    return out\n"
    ),
    "f25ffba3": (
        "import numpy as np\n"
        "def transform(grid):\n"
        "    h = grid.shape[0] // 2\n"
        "    out = grid.copy()\n"
        "    out[:h] = grid[h:][::-1]\n"
        "    return out\n"
    ),
    "a85d4709": (
        "def transform(grid):\n"
        "    colours = {0: 2, 1: 4, 2: 3}\n"
        "    rows = []\n"
        "    for row in grid.tolist():\n"
        "        c = colours[row.index(5)]\n"
        "        rows.append([c] * len(row))\n"
        "    return rows\n"
    ),
    "d037b0a7": (
        "def transform(grid):\n"
        "    out = grid.copy()\n"
        "    h, w = out.shape\n"
        "    for r in range(1, h):\n"
        "        for c in range(w):\n"
        "            if out[r, c] == 0:\n"
        "                out[r, c] = out[r - 1, c]\n"
        "    return out\n"
    ),
}

FRESH_RUNNER = r"""
import json, sys
import numpy as np
req = json.loads(sys.stdin.read())
ns = {}
exec(compile(req["source"], "<program>", "exec"), ns)
out = []
for g in req["grids"]:
    r = ns["transform"](np.array(g, dtype=int))
    out.append(np.asarray(r).tolist())
print(json.dumps(out))
"""


def to_lists(grid):
    return [list(r) for r in grid]


def collect_programs(seeds_dir: Path | None) -> list[tuple[str, str, list, list]]:
    """(task_id, source, inputs, outputs) for every program that solves its train pairs."""
    tasks = load_tasks("training")
    index = {t.id: t for t in tasks.tasks}
    sources = dict(BUILTIN)
    if seeds_dir is not None and seeds_dir.is_dir():
        for path in sorted(seeds_dir.glob("*.py")):
            text = path.read_text()
            if path.stem in index and "def transform" in text and "from common" not in text:
                sources[path.stem] = text
    programs = []
    for task_id, source in sources.items():
        task = index.get(task_id)
        if task is None:
            continue
        inputs = [to_lists(p.input) for p in task.train]
        outputs = [to_lists(p.output) for p in task.train]
        try:
            if run_inprocess(source, inputs) == outputs:
                programs.append((task_id, source, inputs, outputs))
        except Exception:
            pass
    return programs


def run_inprocess(source: str, inputs: list) -> list:
    ns: dict = {"__name__": "__program__"}
    exec(compile(source, "<program>", "exec"), ns)
    fn = ns["transform"]
    return [np.asarray(fn(np.array(g, dtype=int))).tolist() for g in inputs]


def run_fresh(source: str, inputs: list) -> list:
    proc = subprocess.run([sys.executable, "-c", FRESH_RUNNER], input=json.dumps({"source": source, "grids": inputs}),
                          capture_output=True, text=True, timeout=60, env=WORKER_ENV)
    return json.loads(proc.stdout)


def proc_cpu(pid: int) -> float:
    """CPU seconds of a process and its reaped children (utime+stime+cutime+cstime)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def descendants(root: int) -> list[int]:
    """`root` and every live process below it (workers fork a scipy server that is only
    reaped at exit, so its CPU is not in the worker's cutime)."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, ppid in parent.items() if ppid in frontier]
        found.extend(frontier)
    return found


def sandbox_cpu(sb: Sandbox) -> float:
    """CPU of this process plus the workers and everything under them."""
    total = time.process_time()
    for w in sb._idle:
        for pid in descendants(w.pid):
            try:
                total += proc_cpu(pid)
            except OSError:
                pass
    return total


FORK_LOOP = r"""
import os, resource, sys, time
import {modules}
n = int(sys.argv[1])
t, r = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
wall = time.perf_counter() - t
s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, s.ru_utime + s.ru_stime - r.ru_utime - r.ru_stime + c.ru_utime + c.ru_stime)
"""


def empty_forks(n: int, modules: str) -> tuple[float, float]:
    """(wall, CPU) seconds of n empty fork+exit+wait in a fresh process that imported `modules`."""
    out = subprocess.run([sys.executable, "-I", "-c", FORK_LOOP.format(modules=modules), str(n)],
                         capture_output=True, text=True, check=True, env=WORKER_ENV)
    wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def workload(programs, n):
    """n distinct program texts cycling through the programs."""
    return [(src + f"\n# run {i}\n", inputs, outputs) for i, (_, src, inputs, outputs)
            in ((i, programs[i % len(programs)]) for i in range(n))]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=1000, help="programs to run (default 1000)")
    ap.add_argument("--sample-a", type=int, default=30, help="programs measured for (a), then extrapolated")
    ap.add_argument("--seeds", type=Path, default=Path(__file__).resolve().parent.parent / "seeds")
    ap.add_argument("--builtin-only", action="store_true", help="ignore seed solutions")
    args = ap.parse_args(argv)

    programs = collect_programs(None if args.builtin_only else args.seeds)
    work = workload(programs, args.n)
    pairs = sum(len(w[1]) for w in work)
    workers = os.cpu_count() or 1
    print(f"{len(programs)} distinct correct programs ({len(BUILTIN)} built-in, rest from {args.seeds}), "
          f"{args.n} runs, {pairs} train pairs in all, {workers} cores")

    # (b) in-process exec
    t, c = time.perf_counter(), time.process_time()
    for src, inputs, outputs in work:
        assert run_inprocess(src, inputs) == outputs
    t_exec, c_exec = time.perf_counter() - t, time.process_time() - c

    # (c) the sandbox: parallel from `workers` threads, then sequential from one
    with Sandbox(workers=workers, timeout_s=5.0) as sb:
        sb.warm()
        sb.run(work[0][0], work[0][1])  # first run pays one-time costs

        def one(item):
            src, inputs, outputs = item
            out = sb.run(src, inputs)
            return [o.output for o in out] == outputs

        t, c = time.perf_counter(), sandbox_cpu(sb)
        with ThreadPoolExecutor(workers) as ex:
            ok = list(ex.map(one, work))
        t_sb, c_sb = time.perf_counter() - t, sandbox_cpu(sb) - c
        assert all(ok), f"{ok.count(False)} sandbox runs disagreed with in-process exec"
        isolation = sb.isolation

    with Sandbox(workers=1, timeout_s=5.0) as sb1:
        sb1.warm()
        t, c = time.perf_counter(), sandbox_cpu(sb1)
        for item in work:
            src, inputs, outputs = item
            assert [o.output for o in sb1.run(src, inputs)] == outputs
        t_sb1, c_sb1 = time.perf_counter() - t, sandbox_cpu(sb1) - c

    # (a) fresh interpreter per program, on a sample: sequentially, then from `workers` threads
    sample = work[: max(1, min(args.sample_a, len(work)))]
    t, c = time.perf_counter(), time.process_time() + children_cpu()
    for src, inputs, outputs in sample:
        assert run_fresh(src, inputs) == outputs
    per_a = (time.perf_counter() - t) / len(sample)
    cpu_a = (time.process_time() + children_cpu() - c) / len(sample)
    t_fresh, c_fresh = per_a * args.n, cpu_a * args.n
    t, c = time.perf_counter(), time.process_time() + children_cpu()
    with ThreadPoolExecutor(workers) as ex:
        assert all(ex.map(lambda item: run_fresh(item[0], item[1]) == item[2], sample))
    t_fresh_par = (time.perf_counter() - t) / len(sample) * args.n
    c_fresh_par = (time.process_time() + children_cpu() - c) / len(sample) * args.n

    # (f) what one process per run costs at least here, mixed like the workload's programs
    scipy_share = sum("scipy" in src for src, _, _ in work) / len(work)
    t_np, c_np = empty_forks(args.n, "numpy")
    t_sp, c_sp = empty_forks(args.n, "numpy, scipy.ndimage")
    t_fork = (1 - scipy_share) * t_np + scipy_share * t_sp
    c_fork = (1 - scipy_share) * c_np + scipy_share * c_sp

    n = args.n
    rows = [
        ("(a1) fresh interpreter per program, sequential*", t_fresh, c_fresh),
        (f"(a) fresh interpreter per program, {workers} threads*", t_fresh_par, c_fresh_par),
        ("(b) in-process exec (no isolation)", t_exec, c_exec),
        (f"(c) sandbox, {workers} workers, {workers} threads", t_sb, c_sb),
        ("(c1) sandbox, 1 worker, sequential", t_sb1, c_sb1),
        ("(f1) empty fork+exit, numpy loaded", t_np, c_np),
        ("(f2) empty fork+exit, numpy+scipy loaded", t_sp, c_sp),
        (f"(f) = f1/f2 mixed as the programs ({scipy_share:.0%} scipy)", t_fork, c_fork),
    ]
    load = os.getloadavg()[0]
    print()
    width = max(len(name) for name, _, _ in rows)
    print(f"{'method':<{width}} {'wall s':>8} {'wall ms/prog':>13} {'CPU ms/prog':>12}")
    print("-" * (width + 36))
    for name, total, cpu in rows:
        print(f"{name:<{width}} {total:>8.2f} {total / n * 1000:>13.3f} {cpu / n * 1000:>12.3f}")
    print("-" * (width + 36))
    print(f"* measured on {len(sample)} programs ({per_a * 1000:.1f} ms each) and extrapolated to {n}")
    print("CPU = all processes involved (parent, workers, forked runs); less sensitive to other load than wall")
    print(f"load average during the run: {load:.2f} on {workers} cores")
    targets = [
        ("sandbox speed-up over a fresh interpreter, parallel (a)/(c), wall", t_fresh_par / t_sb, ">=", 20),
        ("sandbox speed-up over a fresh interpreter, sequential (a1)/(c1), wall", t_fresh / t_sb1, ">=", 20),
        ("sandbox cost relative to in-process exec, sequential (c1)/(b), wall", t_sb1 / t_exec, "<=", 3),
    ]
    for name, value, op, target in targets:
        ok = value >= target if op == ">=" else value <= target
        print(f"{name}: {value:7.2f}x  (target {op} {target}x)  {'PASS' if ok else 'FAIL'}")
    print(f"CPU: sandbox speed-up over (a) {c_fresh_par / c_sb:.1f}x; sandbox relative to (b) {c_sb / c_exec:.2f}x")
    print(f"empty fork+exit (f) relative to (b), CPU: {c_fork / c_exec:.2f}x  (the cost of a process per run)")
    print(f"sandbox relative to (f), sequential wall: {t_sb1 / t_fork:.2f}x, CPU: {c_sb / c_fork:.2f}x  "
          "(what isolation, supervision and the program add to one bare process per run)")
    print(f"isolation level: {isolation.get('level')}")
    print(f"isolation layers: {json.dumps(isolation)}")


if __name__ == "__main__":
    main()
