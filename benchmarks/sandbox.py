"""Benchmark: the sandbox against a fresh interpreter per program, a plain fork + pipe per
program without isolation, the bare fork floor, and plain in-process exec.

Runs N small correct programs (default 1,000), each on the train pairs of the real ARC
training task it solves, these ways:

  (a) a fresh `python` process per program (import numpy, exec, run, print JSON) — the
      way simple harnesses do it; measured on a sample and extrapolated per program, with
      the sandbox workers' environment (one BLAS/OpenMP thread), sequentially and from as
      many threads as cores;
  (b) plain in-process `exec` + call — no isolation at all, the lower limit;
  (c) arcmemo.sandbox.Sandbox — one forked, contained process per program, from a pool of
      warm workers (one per core), called from as many threads as workers, and also
      sequentially from one thread (per-run latency);
  (d) a plain fork server per worker, as the sandbox's but with no isolation: a warm
      process with numpy loaded (and one with scipy too, for the programs that use it)
      reads a program from a pipe and forks; the child runs it and writes its results to a
      pipe; from as many threads as workers, and sequentially. The sandbox's cost over (d)
      is what containment (namespaces, a folder of its own, Landlock, seccomp, limits) and
      its supervision add to one process per program;
  (f) the bare fork floor: an empty fork + exit + wait in a warm process with numpy loaded
      (like a worker) and one with numpy and scipy (like its scipy server), mixed as the
      workload's programs are: what any one-process-per-run design pays at least here.

The sequential measurements (c1), (d1) and (f) are taken in the same run, interleaved in
blocks of 50 programs, so that other load on the machine falls on all three alike; the
machine's load average is printed as the run starts and ends. Wall time depends on other
load; the CPU column (every process involved: this one, the workers and everything they
fork) much less so; compare ratios on both. Sequential runs are compared with sequential
ones and parallel with parallel; each target line says PASS or FAIL.

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
import queue
import struct
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


def _tree_cpu(root: int) -> float:
    total = 0.0
    for pid in descendants(root):
        try:
            total += proc_cpu(pid)
        except OSError:
            pass
    return total


def sandbox_cpu(sb: Sandbox) -> float:
    """CPU of this process plus the workers and everything under them."""
    return time.process_time() + sum(_tree_cpu(w.pid) for w in sb._idle)


FORK_FLOOR = r"""
import os, resource, sys, time
import {modules}
for line in sys.stdin:
    t, r = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(int(line)):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    wall = time.perf_counter() - t
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = s.ru_utime + s.ru_stime - r.ru_utime - r.ru_stime + c.ru_utime + c.ru_stime - c0.ru_utime - c0.ru_stime
    print(wall, cpu, flush=True)
"""

PLAIN_SERVER = r"""
import json, os, struct, sys
import numpy as np
import {modules}
pipe_in, pipe_out = sys.stdin.buffer, sys.stdout.buffer
while len(head := pipe_in.read(4)) == 4:
    req = json.loads(pipe_in.read(struct.unpack(">I", head)[0]))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        ns = {{"__name__": "__program__"}}
        exec(compile(req["source"], "<program>", "exec"), ns)
        data = json.dumps([np.asarray(ns["transform"](np.array(g, dtype=int))).tolist() for g in req["grids"]])
        view = memoryview(data.encode())
        while view:
            view = view[os.write(w, view):]
        os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 1 << 16):
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    body = b"".join(chunks)
    pipe_out.write(struct.pack(">I", len(body)) + body)
    pipe_out.flush()
"""


def _warm_process(script: str, modules: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-I", "-c", script.format(modules=modules)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=WORKER_ENV)


class ForkFloor:
    """(f) empty fork + exit + wait, in a warm process with numpy loaded and one with scipy too."""

    def __init__(self) -> None:
        self.procs = {False: _warm_process(FORK_FLOOR, "numpy"), True: _warm_process(FORK_FLOOR, "scipy.ndimage")}

    def forks(self, n: int, scipy: bool) -> tuple[float, float]:
        """(wall, CPU) seconds of n empty forks."""
        if not n:
            return 0.0, 0.0
        proc = self.procs[scipy]
        proc.stdin.write(f"{n}\n".encode())
        proc.stdin.flush()
        wall, cpu = proc.stdout.readline().split()
        return float(wall), float(cpu)

    def close(self) -> None:
        for proc in self.procs.values():
            proc.stdin.close()
            proc.wait()


class PlainForkServers:
    """(d) per worker, a plain fork server with numpy loaded and one with scipy too: a program
    comes in on a pipe, a forked child runs it and writes its results to a pipe. No
    isolation, no limits, no supervision beyond waiting for the child."""

    def __init__(self, workers: int) -> None:
        self.free: queue.Queue = queue.Queue()
        self.procs: list[subprocess.Popen] = []
        for _ in range(workers):
            pair = {False: _warm_process(PLAIN_SERVER, "numpy"), True: _warm_process(PLAIN_SERVER, "scipy.ndimage")}
            self.procs += pair.values()
            self.free.put(pair)

    def run(self, source: str, grids: list) -> list:
        pair = self.free.get()
        try:
            proc = pair["scipy" in source]
            body = json.dumps({"source": source, "grids": grids}).encode()
            proc.stdin.write(struct.pack(">I", len(body)) + body)
            proc.stdin.flush()
            (size,) = struct.unpack(">I", proc.stdout.read(4))
            return json.loads(proc.stdout.read(size))
        finally:
            self.free.put(pair)

    def cpu(self) -> float:
        """CPU of this process plus the servers and everything they forked."""
        return time.process_time() + sum(_tree_cpu(proc.pid) for proc in self.procs)

    def close(self) -> None:
        for proc in self.procs:
            proc.stdin.close()
            proc.wait()


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

    load_before = os.getloadavg()[0]
    scipy_share = sum("scipy" in src for src, _, _ in work) / len(work)

    def checked(run):
        return lambda item: [list(o) for o in run(item[0], item[1])] == item[2]

    # (c) the sandbox and (d) the plain fork servers, parallel from `workers` threads
    with Sandbox(workers=workers, timeout_s=5.0) as sb:
        sb.warm()
        sb.run(work[0][0], work[0][1])  # first run pays one-time costs
        t, c = time.perf_counter(), sandbox_cpu(sb)
        with ThreadPoolExecutor(workers) as ex:
            ok = list(ex.map(checked(lambda src, grids: [o.output for o in sb.run(src, grids)]), work))
        t_sb, c_sb = time.perf_counter() - t, sandbox_cpu(sb) - c
        assert all(ok), f"{ok.count(False)} sandbox runs disagreed with in-process exec"
        isolation = sb.isolation
    plain = PlainForkServers(workers)
    try:
        plain.run(work[0][0], work[0][1])
        t, c = time.perf_counter(), plain.cpu()
        with ThreadPoolExecutor(workers) as ex:
            ok = list(ex.map(checked(plain.run), work))
        t_plain, c_plain = time.perf_counter() - t, plain.cpu() - c
        assert all(ok), f"{ok.count(False)} plain fork runs disagreed with in-process exec"
    finally:
        plain.close()

    # (c1), (d1) and (f), sequential, interleaved in blocks so other load falls on all three alike
    seq = {name: [0.0, 0.0] for name in ("c1", "d1", "f", "f1", "f2")}
    with Sandbox(workers=1, timeout_s=5.0) as sb1:
        sb1.warm()
        plain1, floor = PlainForkServers(1), ForkFloor()
        try:
            for src, inputs, _ in work[:20]:  # both warm
                sb1.run(src, inputs)
                plain1.run(src, inputs)
            ways = [("c1", lambda: sandbox_cpu(sb1), lambda src, grids: [o.output for o in sb1.run(src, grids)]),
                    ("d1", plain1.cpu, plain1.run)]
            for k, start in enumerate(range(0, len(work), 50)):
                block = work[start:start + 50]
                for name, cpu, run in ways[k % 2:] + ways[:k % 2]:  # each goes first every other block
                    t, c = time.perf_counter(), cpu()
                    assert all(map(checked(run), block)), f"({name}) disagreed with in-process exec"
                    seq[name][0] += time.perf_counter() - t
                    seq[name][1] += cpu() - c
                with_scipy = sum("scipy" in src for src, _, _ in block)
                for name, count, scipy in (("f1", len(block), False), ("f2", len(block), True),
                                           ("f", len(block) - with_scipy, False), ("f", with_scipy, True)):
                    wall, cpu_s = floor.forks(count, scipy)
                    seq[name][0] += wall
                    seq[name][1] += cpu_s
        finally:
            plain1.close()
            floor.close()
    (t_sb1, c_sb1), (t_plain1, c_plain1) = seq["c1"], seq["d1"]
    (t_np, c_np), (t_sp, c_sp), (t_fork, c_fork) = seq["f1"], seq["f2"], seq["f"]

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

    n = args.n
    rows = [
        ("(a1) fresh interpreter per program, sequential*", t_fresh, c_fresh),
        (f"(a) fresh interpreter per program, {workers} threads*", t_fresh_par, c_fresh_par),
        ("(b) in-process exec (no isolation)", t_exec, c_exec),
        (f"(c) sandbox, {workers} workers, {workers} threads", t_sb, c_sb),
        (f"(d) plain fork + pipe, no isolation, {workers} servers, {workers} threads", t_plain, c_plain),
        ("(c1) sandbox, 1 worker, sequential", t_sb1, c_sb1),
        ("(d1) plain fork + pipe, no isolation, sequential", t_plain1, c_plain1),
        ("(f1) empty fork+exit, numpy loaded", t_np, c_np),
        ("(f2) empty fork+exit, numpy+scipy loaded", t_sp, c_sp),
        (f"(f) = f1/f2 mixed as the programs ({scipy_share:.0%} scipy)", t_fork, c_fork),
    ]
    load_after = os.getloadavg()[0]
    print()
    width = max(len(name) for name, _, _ in rows)
    print(f"{'method':<{width}} {'wall s':>8} {'wall ms/prog':>13} {'CPU ms/prog':>12}")
    print("-" * (width + 36))
    for name, total, cpu in rows:
        print(f"{name:<{width}} {total:>8.2f} {total / n * 1000:>13.3f} {cpu / n * 1000:>12.3f}")
    print("-" * (width + 36))
    print(f"* measured on {len(sample)} programs ({per_a * 1000:.1f} ms each) and extrapolated to {n}")
    print("CPU = all processes involved (parent, workers, forked runs); less sensitive to other load than wall")
    print("(c1), (d1) and (f) were measured in this run interleaved, in blocks of 50 programs")
    print(f"load average (1 min) at the start {load_before:.2f}, at the end {load_after:.2f}, on {workers} cores")
    targets = [
        ("sandbox speed-up over a fresh interpreter, parallel (a)/(c), wall", t_fresh_par / t_sb, ">=", 20),
        ("sandbox speed-up over a fresh interpreter, sequential (a1)/(c1), wall", t_fresh / t_sb1, ">=", 20),
        ("sandbox cost relative to in-process exec, sequential (c1)/(b), wall", t_sb1 / t_exec, "<=", 3),
        ("containment's cost over a plain fork + pipe, sequential (c1)/(d1), wall", t_sb1 / t_plain1, "<=", 1.5),
        ("containment's cost over a plain fork + pipe, parallel (c)/(d), CPU", c_sb / c_plain, "<=", 2),
    ]
    for name, value, op, target in targets:
        ok = value >= target if op == ">=" else value <= target
        print(f"{name}: {value:7.2f}x  (target {op} {target}x)  {'PASS' if ok else 'FAIL'}")
    print(f"CPU: sandbox speed-up over (a) {c_fresh_par / c_sb:.1f}x; sandbox relative to (b) {c_sb / c_exec:.2f}x")
    print(f"empty fork+exit (f) relative to (b), CPU: {c_fork / c_exec:.2f}x  (the cost of a process per run)")
    print(f"relative to (f), sequential: the sandbox {t_sb1 / t_fork:.2f}x wall, {c_sb1 / c_fork:.2f}x CPU; "
          f"a plain fork + pipe {t_plain1 / t_fork:.2f}x wall, {c_plain1 / c_fork:.2f}x CPU")
    print("  (what containment, supervision, the pipes and the program add to one bare process per run)")
    print(f"isolation level: {isolation.get('level')}")
    print(f"isolation layers: {json.dumps(isolation)}")


if __name__ == "__main__":
    main()
