"""arcmemo's own overhead per task in a full solve run, against the sandbox time (the floor).

A scripted model answers instantly: tasks with a seed solution get it (so they pass and
are written back), the rest get a program that fails. The run covers selection (ps),
solving with the real sandbox, scoring, submissions, events and continual write-back
every 10 tasks over the 400 ARC-AGI-1 training tasks. The sandbox is wrapped to time
every call; overhead = wall time - sandbox time. Target: overhead per task < 2x the
sandbox time per task.

    python benchmarks/solve_overhead.py [--limit N]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEARNED = "recolour cells by a fixed table"
CONCEPT = f"""```yaml
- name: {LEARNED}
  kind: routine
  routine_subtype: grid manipulation
  output_typing: grid
  parameters: [{{name: table, typing: "dict[color, color]", description: colour lookup}}]
  cues: [each input colour always turns into the same output colour]
  implementation: [build the table from the train pairs, then apply it cell by cell]
```"""
FIRST_INPUT = re.compile(r"Example 1 input \(\d+x\d+\):\n([0-9\n]+?)\n\n")


class TimedSandbox:
    """Forwards to the real sandbox and adds up the time spent inside it."""

    def __init__(self, sandbox):
        self.sandbox, self.seconds, self.lock = sandbox, 0.0, threading.Lock()

    def run(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return self.sandbox.run(*args, **kwargs)
        finally:
            with self.lock:
                self.seconds += time.perf_counter() - start

    def __getattr__(self, name):
        return getattr(self.sandbox, name)


def script(fake, tasks):
    from arcmemo.abstraction.seedfile import find_seed_files
    from arcmemo.abstraction.seedhelpers import read_library, standalone
    from arcmemo.core.gridtext import format_grid

    library = read_library(ROOT / "seeds")     # seeds importing helpers are answered self-contained
    seeds = {p.stem: standalone(p.read_text(), library) for p in find_seed_files(ROOT / "seeds")}
    by_input = {format_grid(t.train[0].input): t.id for t in tasks}

    def solve(messages):
        match = FIRST_INPUT.search("\n".join(str(m["content"]) for m in messages))
        task_id = by_input.get(match.group(1)) if match else None
        code = seeds.get(task_id, "def transform(grid):\n    return grid\n")
        return f"```python\n{code}\n```"

    fake.on("solve", solve)
    fake.on("select_ps", lambda m: f"```yaml\n- {LEARNED}\n```")
    fake.on("pseudocode", lambda m: "<pseudocode>recolour by table</pseudocode><summary>recolour</summary>")
    fake.on("ps_abstract", lambda m: CONCEPT)
    fake.on("ps_helpers", lambda m: "NONE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=400)
    args = parser.parse_args()

    home = tempfile.mkdtemp(prefix="arcmemo-bench-")
    os.environ["ARCMEMO_HOME"] = home
    from arcmemo.llm.backend import register_model
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.llm.fake import FakeModel
    from arcmemo.memory.store import Memory
    from arcmemo.run.runner import RunConfig, load_run_tasks, new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    config = RunConfig(source="training", limit=args.limit, continual=True, k=10, retries=0, attempts=1)
    tasks = load_run_tasks(config).tasks[: args.limit]
    fake = FakeModel("fake")
    register_model("fake", fake)
    script(fake, tasks)
    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", concurrency=8))
    sandbox = TimedSandbox(get_sandbox())
    sandbox.run("def transform(grid):\n    return grid\n", [[[0]]])  # warm the pool outside the timing
    sandbox.seconds = 0.0
    memory = Memory(str(Path(home) / "memory.db"))
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=sandbox,
                        solver=load_solver("program-synthesis"), runs_root=str(Path(home) / "runs"))
    start = time.perf_counter()
    summary = runner.run()
    wall = time.perf_counter() - start
    llm.close()

    n = summary["tasks"]
    floor = sandbox.seconds / n
    overhead = (wall - sandbox.seconds) / n
    rows = [
        ("tasks", n),
        ("tasks passing train (written back)", len(summary["passed_train"])),
        ("concepts written", len(summary["concepts_added"]) + len(summary["concepts_extended"])),
        ("model calls", summary["usage"]["calls"]),
        ("wall time total (s)", f"{wall:.2f}"),
        ("sandbox time per task (floor, ms)", f"{1000 * floor:.1f}"),
        ("arcmemo overhead per task (ms)", f"{1000 * overhead:.1f}"),
        ("overhead / floor", f"{overhead / floor:.2f}x  (target < 2x)"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)}  value")
    print(f"{'-' * width}  -----")
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")
    sys.exit(0)


if __name__ == "__main__":
    main()
