"""How many ARC-AGI-1 tasks memory's helpers answer by themselves, without any model: the
probe (arcmemo/run/stages/probe.py) on every task of the training and evaluation splits, each fit
submitted as a run submits it (its program run on the test inputs, the candidates ranked by
the train-only choice rule), scored against the test outputs, as scoring alone reads them.

Per split: the tasks, those where some helper call gives every train output (a fit), those
the fits answer right (oracle@2 over the fits' predictions), the fits wrong on a test
output (a train-perfect call that does not generalise: what would cost a run a task the
model might have got), how many of the fitted tasks needed a value inferred from the train
pairs (a colour table, a scale factor, an output size, a shift: run/stages/inferred.py) rather
than enumerated, the calls tried and the time. The evaluation split is measured here, never
tuned on. The memory is only read (a copy of it is opened).

    python benchmarks/fits.py [--db memory.db] [--splits training,evaluation] [--limit N] [--list]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def measure(split: str, memory, sandbox, limit: int | None, listing: bool) -> dict:
    """One split's row of the table (module docstring)."""
    from arcmemo.core.choice import top_predictions
    from arcmemo.core.tasks import load_tasks
    from arcmemo.run.stages.inferred import TaskFacts, task_facts
    from arcmemo.run.stages.probe import fit_attempts, probe
    from arcmemo.scoring import attempts_from_predictions, score_task

    taskset = load_tasks(split)
    tasks = list(taskset.tasks)[:limit]
    row = {"split": split, "tasks": len(tasks), "fitted": 0, "right": 0, "wrong_fits": 0, "wrong_tasks": 0,
           "inferred": 0, "tried": 0}
    started = time.perf_counter()
    for task in tasks:
        fits, tried = probe(task, memory, sandbox)
        row["tried"] += tried
        if not fits:
            continue
        row["fitted"] += 1
        facts = task_facts(task)
        enumerable = {call for spec in memory.probeable for call in spec.calls(TaskFacts(colors=facts.colors))}
        row["inferred"] += all(f.call not in enumerable for f in fits)
        attempts = fit_attempts(task, fits, memory, sandbox)
        truth = taskset.answers[task.id]
        predictions = top_predictions(attempts, len(task.test_inputs))
        solved = score_task(attempts_from_predictions(predictions), truth).oracle2 == 1
        row["right"] += solved
        wrong = [a.raw for a in attempts if score_task([a.test_outputs], truth).oracle1 != 1]
        row["wrong_fits"] += len(wrong)
        row["wrong_tasks"] += bool(wrong)
        if listing:
            print(f"  {split} {task.id}: {'right' if solved else 'WRONG'}  {', '.join(f.call for f in fits)}"
                  + (f"  (wrong on a test output: {', '.join(wrong)})" if wrong else ""))
    row["seconds"] = time.perf_counter() - started
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default=str(ROOT / "memory.db"), help="the memory whose helpers are probed")
    parser.add_argument("--splits", default="training,evaluation")
    parser.add_argument("--limit", type=int, default=None, help="the first N tasks of each split")
    parser.add_argument("--list", dest="listing", action="store_true", help="print every fitted task")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="arcmemo-fits-"))
    os.environ["ARCMEMO_HOME"] = str(home)
    from arcmemo.memory.store import Memory
    from arcmemo.run.stages.prepared import prepared
    from arcmemo.sandbox import get_sandbox
    from benchmarks.table import print_table

    shutil.copy(args.db, home / "memory.db")
    with Memory(home / "memory.db") as memory:
        ready = prepared(memory)
        sandbox = get_sandbox()
        rows = [measure(split, ready, sandbox, args.limit, args.listing) for split in args.splits.split(",")]
    print(f"memory {args.db}: {len(ready.concepts)} PS concepts, {len(ready.probeable)} helpers the probe can try; "
          f"no model; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")
    print_table(("split", "tasks", "fitted", "answered right (oracle@2)", "fits wrong on a test output",
                 "fitted only by an inferred value", "calls tried", "seconds"),
                [(r["split"], r["tasks"], r["fitted"], r["right"], f"{r['wrong_fits']} ({r['wrong_tasks']} tasks)",
                  r["inferred"], r["tried"], f"{r['seconds']:.0f}") for r in rows])


if __name__ == "__main__":
    main()
