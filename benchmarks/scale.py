"""Benchmark: tasks in flight turn a latency-bound run into a short one.

A stub OpenAI-compatible server on 127.0.0.1 (tests/llm_stub.py) answers every request
after a fixed latency (1 s) with a correct program for the task the prompt shows (a
lookup of its pairs), so every task takes one solver call and passes. The real run loop
(Runner: memory read, solver, sandbox, scoring, run directory) solves 100 training tasks
with N = 1, 4, 16, 64 tasks in flight in this process, and on a local Ray instance with the
same N (Ray's own start-up, once, and its workers' start per run are shown apart, not
in the wall time, as the sandbox is warmed before the in-process runs). The client's
concurrency is N, so the model client is not the bound. Each run has a fresh call log, so
nothing is answered from the cache.

Printed per run: wall time, the ideal (calls x latency / N), the ratio to it, and the
speed-up over N = 1. Targets: N = 16 at least 12x faster than N = 1; Ray within 1.5x of
in-process at the same N. Exit status 1 when a target is missed.

    python benchmarks/scale.py [--tasks 100] [--latency 1.0] [--n 1,4,16,64] [--no-ray]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from llm_stub import StubServer, stub_llm
from table import print_table

from arcmemo.core.gridtext import format_grid
from arcmemo.core.tasks import load_tasks
from arcmemo.memory.store import Memory
from arcmemo.run.executors import InProcess
from arcmemo.run.runner import RunConfig, new_runner
from arcmemo.sandbox import get_sandbox
from arcmemo.solverkit import load_solver


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
    def answer(body) -> str:
        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        for key, program in programs.items():
            if key in text:
                return f"```python\n{program}```"
        return "```python\ndef transform(grid):\n    return grid\n```"
    return answer


def measure(stub: StubServer, task_ids: list[str], slots: int, executor, root: Path) -> dict:
    root.mkdir(parents=True)
    llm = stub_llm(stub.base_url, concurrency=slots, timeout_s=60, log_path=str(root / "calls.db"))
    config = RunConfig(source="training", task_ids=task_ids, selection="none", retries=0)
    runner = new_runner(config, memory=Memory(str(root / "memory.db")), make_llm=lambda _: llm,
                        sandbox=get_sandbox(), solver=load_solver("program-synthesis"), runs_root=str(root / "runs"),
                        executor=executor)
    started = time.perf_counter()
    executor.prepare(runner)          # Ray: its workers start (in-process: nothing), as the sandbox was warmed
    prepared = time.perf_counter() - started
    stub.requests.clear()
    started = time.perf_counter()
    try:
        summary = runner.run()
    finally:
        llm.close()
    wall = time.perf_counter() - started
    return {"wall": wall, "calls": len(stub.requests), "solved": len(summary["solved"]), "tasks": summary["tasks"],
            "prepared": prepared}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--n", default="1,4,16,64", help="tasks in flight, comma-separated")
    parser.add_argument("--no-ray", action="store_true", help="in-process only")
    args = parser.parse_args()
    sizes = [int(n) for n in args.n.split(",")]
    task_ids, programs = pick_tasks(args.tasks)
    work = Path(tempfile.mkdtemp(prefix="arcmemo-scale-"))
    get_sandbox().warm()

    rows, results = [], {}
    with StubServer(delay_s=args.latency, answer=answer_for(programs)) as stub:
        kinds = ["in-process"] + ([] if args.no_ray else ["ray"])
        if "ray" in kinds:
            import ray

            started = time.perf_counter()
            ray.init(include_dashboard=False, log_to_driver=False)
            print(f"ray start-up (not timed below): {time.perf_counter() - started:.1f} s", flush=True)
            from arcmemo.run.ray_executor import RayExecutor
        for kind in kinds:
            for n in sizes:
                executor = InProcess(n) if kind == "in-process" else RayExecutor(n, memory_url=str(work / "x.db"))
                result = measure(stub, task_ids, n, executor, work / f"{kind}-{n}")
                results[(kind, n)] = result
                ideal = result["calls"] * args.latency / n
                speedup = results[("in-process", 1)]["wall"] / result["wall"] if ("in-process", 1) in results else None
                rows.append((kind, n, result["tasks"], result["solved"], result["calls"], f"{result['prepared']:.1f}",
                             f"{result['wall']:.1f}",
                             f"{ideal:.1f}", f"{result['wall'] / ideal:.2f}",
                             f"{speedup:.1f}x" if speedup else "-"))
                print(f"  {kind} N={n}: {result['wall']:.1f} s", file=sys.stderr, flush=True)
        if "ray" in kinds:
            ray.shutdown()

    print(f"{args.tasks} tasks, one call each, stub latency {args.latency:.1f} s")
    print_table(["executor", "N", "tasks", "solved", "calls", "start s", "wall s", "ideal s", "x ideal", "vs N=1"], rows,
                right=True)
    ok = True
    if ("in-process", 1) in results and ("in-process", 16) in results:
        speedup = results[("in-process", 1)]["wall"] / results[("in-process", 16)]["wall"]
        passed = speedup >= 12
        ok &= passed
        print(f"target: N=16 at least 12x faster than N=1 -> {'PASS' if passed else 'FAIL'} ({speedup:.1f}x)")
    for n in sizes:
        if ("ray", n) in results:
            ratio = results[("ray", n)]["wall"] / results[("in-process", n)]["wall"]
            passed = ratio <= 1.5
            ok &= passed
            print(f"target: Ray within 1.5x of in-process at N={n} -> {'PASS' if passed else 'FAIL'} ({ratio:.2f}x)")
    ok &= all(r["solved"] == r["tasks"] == args.tasks for r in results.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
