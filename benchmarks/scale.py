"""Benchmark: tasks in flight turn a latency-bound run into a short one, with ps selection on
the paper's memory.

A stub OpenAI-compatible server on 127.0.0.1 (tests/llm_stub.py) answers every request
after a fixed latency (1 s) with three concepts of the memory (what the select call reads)
and a correct program for the task the prompt shows (a lookup of its pairs; what the
solver call reads), so every task takes a select call and a solver call, and passes. The
memory is the paper's released one (../shared/reference/arcmemo/compressed_v1.json, 270 PS
concepts), imported into a temporary database (it is data: never part of the checkout).
The real run loop (Runner: ps selection, solver, sandbox, scoring, run directory) solves
the tasks with N = 1, 4, 16, 64 tasks in flight in this process, and on a local Ray
instance with the same N.

Each row counts the start-up a command pays: in this process a fresh sandbox pool; on Ray a
local Ray instance started for the row (stopped after it) and its workers, whose start-up
is shown apart as well. The client's concurrency is N, so the model client is not the
bound; each run has a fresh call log, so nothing is answered from the cache.

Printed per run: wall time, the ideal (calls x latency / N), the ratio to it, the speed-up
over N = 1 measured in the same run, and the load average. Targets: N = 16 at least 12x
faster than N = 1 in this process; Ray, its start-up counted, within 1.5x of this process
at the same N. Exit status 1 when a target is missed.

    python benchmarks/scale.py [--tasks 100] [--latency 1.0] [--n 1,4,16,64] [--no-ray]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from llm_stub import StubServer, stub_llm  # noqa: E402

from arcmemo.core.gridtext import format_grid  # noqa: E402
from arcmemo.core.tasks import load_tasks  # noqa: E402
from arcmemo.memory.store import Memory  # noqa: E402
from arcmemo.run.config import RunConfig  # noqa: E402
from arcmemo.run.executors.local import InProcess  # noqa: E402
from arcmemo.run.loop import new_runner  # noqa: E402
from arcmemo.sandbox import get_sandbox  # noqa: E402
from arcmemo.solverkit import load_solver  # noqa: E402
from benchmarks.selection import first_names  # noqa: E402
from benchmarks.shared_data import PS_MEMORY, require  # noqa: E402
from benchmarks.table import print_table  # noqa: E402

SPEEDUP_TARGET = 12.0       # N = 16 against N = 1, in this process
RAY_TARGET = 1.5            # Ray against this process, same N


def lookup_program(task, answers) -> str:
    """A correct program for `task`: its train and test pairs as a table."""
    pairs = [(p.input, p.output) for p in task.train]
    pairs += list(zip(task.test_inputs, answers.test_outputs))
    table = {json.dumps([list(r) for r in i]): [list(r) for r in o] for i, o in pairs}
    return (f"import json\nTABLE = {table!r}\n"
            "def transform(grid):\n    return TABLE[json.dumps(grid.tolist())]\n")


def pick_tasks(count: int):
    """The first `count` training tasks whose first train input appears in no other chosen task's
    grids (so a prompt names its task), with their programs by that grid's text."""
    taskset = load_tasks("training")

    def grids(task) -> str:
        return "\n\n".join(format_grid(g) for p in task.train for g in (p.input, p.output))

    chosen: list = []
    for task in taskset.tasks:
        key = format_grid(task.train[0].input)
        if any(key in grids(other) or format_grid(other.train[0].input) in grids(task) for other in chosen):
            continue
        chosen.append(task)
        if len(chosen) == count:
            break
    programs = {format_grid(t.train[0].input): lookup_program(t, taskset.answers[t.id]) for t in chosen}
    return [t.id for t in chosen], programs


def answer_for(programs: dict[str, str]):
    """One answer serves both calls: the select call reads its YAML list (the first three
    concepts its prompt shows), the solver call its program (each step parses only its own block)."""
    def answer(body) -> str:
        messages = body.get("messages", [])
        text = "\n".join(str(m.get("content", "")) for m in messages)
        program = next((p for key, p in programs.items() if key in text), "def transform(grid):\n    return grid\n")
        return f"{first_names(messages, 3)}\n```python\n{program}```"
    return answer


def paper_memory(path: Path) -> Memory:
    from arcmemo.memory.io.imports import import_file

    memory = Memory(str(path))
    import_file(memory, require(PS_MEMORY), actor="benchmark")
    return memory


def measure(stub: StubServer, task_ids: list[str], slots: int, kind: str, memory_file: Path, root: Path) -> dict:
    """One run, timed from its executor's start (a fresh sandbox pool; Ray: a local instance and
    its workers) to its summary."""
    root.mkdir(parents=True)
    llm = stub_llm(stub.base_url, concurrency=slots, timeout_s=60, log_path=str(root / "calls.db"))
    config = RunConfig(source="training", task_ids=task_ids, selection="ps", retries=0)
    memory = Memory(str(memory_file))
    stub.requests.clear()
    started = time.perf_counter()
    if kind == "in-process":
        get_sandbox().close()                   # the next get_sandbox() is a fresh pool, started here
        get_sandbox().warm()
        executor = InProcess(slots)
    else:
        from arcmemo.run.executors.on_ray import RayExecutor

        executor = RayExecutor(slots, memory_url=str(memory_file))     # starts a local Ray instance
    runner = new_runner(config, memory=memory, make_llm=lambda _: llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(root / "runs"), executor=executor)
    workers = time.perf_counter()
    executor.prepare(runner)                    # Ray: its workers start (in-process: nothing)
    workers = time.perf_counter() - workers
    try:
        summary = runner.run()                  # closes the executor (Ray: stops the instance it started)
    finally:
        llm.close()
        memory.close()
    wall = time.perf_counter() - started
    return {"wall": wall, "calls": len(stub.requests), "solved": len(summary["solved"]), "tasks": summary["tasks"],
            "start": workers, "load": os.getloadavg()[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--n", default="1,4,16,64", help="tasks in flight, comma-separated")
    parser.add_argument("--no-ray", action="store_true", help="in-process only")
    args = parser.parse_args()
    sizes = [int(n) for n in args.n.split(",")]
    work = Path(tempfile.mkdtemp(prefix="arcmemo-scale-"))
    os.environ["ARCMEMO_HOME"] = str(work / "home")
    task_ids, programs = pick_tasks(args.tasks)
    memory_file = work / "paper.db"
    with paper_memory(memory_file) as memory:
        concepts = [c.name for c in memory.list("ps")]
    load_start = os.getloadavg()[0]

    rows, results = [], {}
    with StubServer(delay_s=args.latency, answer=answer_for(programs)) as stub:
        for kind in ["in-process"] + ([] if args.no_ray else ["ray"]):
            for n in sizes:
                result = results[(kind, n)] = measure(stub, task_ids, n, kind, memory_file, work / f"{kind}-{n}")
                ideal = result["calls"] * args.latency / n
                base = results.get(("in-process", 1))
                rows.append((kind, n, result["tasks"], result["solved"], result["calls"], f"{result['wall']:.1f}",
                             f"{result['start']:.1f}" if kind == "ray" else "-", f"{ideal:.1f}",
                             f"{result['wall'] / ideal:.2f}", f"{base['wall'] / result['wall']:.1f}x" if base else "-",
                             f"{result['load']:.1f}"))
                print(f"  {kind} N={n}: {result['wall']:.1f} s", file=sys.stderr, flush=True)

    print(f"{time.strftime('%Y-%m-%d')}: {args.tasks} tasks, ps selection on the paper's memory ({len(concepts)} "
          f"concepts), a select and a solver call each, stub latency {args.latency:.1f} s; {os.cpu_count()} cores, "
          f"load average {load_start:.1f} at the start")
    print_table(["executor", "N", "tasks", "solved", "calls", "wall s", "workers s", "ideal s", "x ideal", "vs N=1",
                 "load"], rows, right=True)
    shutil.rmtree(work, ignore_errors=True)           # the paper's memory copy among it: data, never kept
    ok = all(r["solved"] == r["tasks"] == args.tasks for r in results.values())
    if ("in-process", 1) in results and ("in-process", 16) in results:
        speedup = results[("in-process", 1)]["wall"] / results[("in-process", 16)]["wall"]
        ok &= speedup >= SPEEDUP_TARGET
        print(f"target: N=16 at least {SPEEDUP_TARGET:g}x faster than N=1 -> "
              f"{'PASS' if speedup >= SPEEDUP_TARGET else 'FAIL'} ({speedup:.1f}x)")
    for n in sizes:
        if ("ray", n) in results:
            ratio = results[("ray", n)]["wall"] / results[("in-process", n)]["wall"]
            ok &= ratio <= RAY_TARGET
            print(f"target: Ray, its start-up counted, within {RAY_TARGET:g}x of in-process at N={n} -> "
                  f"{'PASS' if ratio <= RAY_TARGET else 'FAIL'} ({ratio:.2f}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
