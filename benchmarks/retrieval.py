"""What ReasoningBank's and DC-RS's retrieval costs, and whether it finds related puzzles.

Both methods rank past items by how similar the puzzle they came from is to the new one
(methods/retrieval.py): the lexical similarity of puzzle profiles (methods/task_profile.py),
computed from the grids. The alternative, a caption by the aux model (selection/oe.py, the
OE method's first step), would cost a model call per read; `--caption N` times N of them.

    python benchmarks/retrieval.py [--sizes 10,100,1000,10000] [--queries 50] [--caption 0]

Columns:
  profile ms   the profile of one puzzle, mean / max over the ARC-AGI-1 training tasks
  items        bank items in memory (3 per puzzle, profiles of training and evaluation tasks)
  first ms     the first query after a write: the memory read and the index built, then ranked
  warm ms      a query against the built index, mean over --queries puzzles
Then whether it finds related puzzles: over the ARC-AGI-1 puzzles ArcMemo's released PS concepts
(--concepts compressed_v1.json) were written from, how often the most similar other puzzle
(hit@1), or one of the 3 most similar (hit@3), shares a concept with it that at most 15 (or
30) of those puzzles use (generic ones such as "extract objects" would make every pair
related), beside the same rates for puzzles drawn at random (chance). Then the caption
timing, when asked.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.shared_data import PS_MEMORY, missing, reference  # noqa: E402
from benchmarks.table import print_table  # noqa: E402


def profile_times(tasks) -> tuple[list[str], list[float]]:
    from arcmemo.methods.task_profile import task_profile

    texts, times = [], []
    for task in tasks:
        start = time.perf_counter()
        texts.append(task_profile(task))
        times.append((time.perf_counter() - start) * 1000)
    return texts, times


def bank_of(size: int, profiles: list[str]) -> list[dict]:
    return [{"format": "bank", "name": f"item {i}", "description": "when", "suggestion": "what",
             "meta": {"origin": "success" if i % 2 else "failure", "task_profile": profiles[(i // 3) % len(profiles)]}}
            for i in range(size)]


def ranking_times(size: int, profiles: list[str], queries: list[str]) -> tuple[float, float]:
    from arcmemo.memory.store import Memory
    from arcmemo.methods.reasoningbank.method import matched_text
    from arcmemo.methods.retrieval import most_similar

    with tempfile.TemporaryDirectory() as folder, Memory(str(Path(folder) / "bank.db")) as memory:
        memory.merge_many([(item, None) for item in bank_of(size, profiles)], actor="benchmark")
        start = time.perf_counter()
        most_similar(memory, "bank", queries[0], 3, matched_text, key="task_profile")
        first = (time.perf_counter() - start) * 1000
        warm = []
        for query in queries:
            start = time.perf_counter()
            most_similar(memory, "bank", query, 3, matched_text, key="task_profile")
            warm.append((time.perf_counter() - start) * 1000)
    return first, statistics.mean(warm)


def hit_rates(path: Path, most_uses: int) -> tuple[int, float, float, float, float]:
    """Over the ARC-AGI-1 puzzles ArcMemo's released PS concepts (`path`, compressed_v1.json) name in
    used_in: (puzzles, how often the most similar other puzzle shares a concept used by at most
    `most_uses` puzzles, how often one of the 3 most similar does, and both rates by chance)."""
    import json

    from arcmemo.core.tasks import load_tasks
    from arcmemo.memory.views.lexical import LexicalIndex, Vocabulary
    from arcmemo.methods.task_profile import task_profile

    uses: dict[str, set[str]] = {}
    for name, concept in json.loads(path.read_text())["concepts"].items():
        for task_id in concept.get("used_in") or []:
            uses.setdefault(task_id, set()).add(name)
    tasks = {t.id: t for split in ("training", "evaluation") for t in load_tasks(split).tasks}
    count: dict[str, int] = {}
    for task_id in uses:
        if task_id in tasks:
            for name in uses[task_id]:
                count[name] = count.get(name, 0) + 1
    specific = {t: {n for n in names if count[n] <= most_uses} for t, names in uses.items() if t in tasks}
    ids = sorted(t for t, names in specific.items() if names)
    vocabulary = Vocabulary()
    profiles = [task_profile(tasks[i]) for i in ids]
    index = LexicalIndex(ids, [vocabulary.row(p) for p in profiles], vocabulary, [(0, n) for n in range(len(ids))])
    first = three = 0
    chance = []
    for n, task_id in enumerate(ids):
        others = [ids[p] for p in index.rank(profiles[n]) if ids[p] != task_id]
        first += bool(specific[task_id] & specific[others[0]])
        three += any(specific[task_id] & specific[o] for o in others[:3])
        chance.append(sum(bool(specific[task_id] & specific[o]) for o in others) / len(others))
    by_chance = statistics.mean(chance)
    return len(ids), first / len(ids), three / len(ids), by_chance, 1 - (1 - by_chance) ** 3


def caption_times(tasks, n: int, model: str) -> list[float]:
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.selection.oe import caption_task
    from arcmemo.selection.types import SelectionSettings

    llm = LLM(LLMSettings(solver_model=model, aux_model=model, select_model=model, cache=False))
    times = []
    try:
        for task in tasks[:n]:
            start = time.perf_counter()
            outcome = caption_task(task, llm, SelectionSettings(mode="oe"))
            times.append(time.perf_counter() - start)
            print(f"caption of {task.id}: {times[-1]:.1f} s, {'ok' if outcome.ok else outcome.error}", flush=True)
    finally:
        llm.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100,1000,10000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--caption", type=int, default=0, help="time this many captions by --model (0: none)")
    parser.add_argument("--model", default="local")
    parser.add_argument("--concepts", type=Path, default=reference(PS_MEMORY),
                        help="ArcMemo's released PS concepts (compressed_v1.json; by default from the shared data "
                             "beside the checkout), for the hit rates")
    args = parser.parse_args()

    from arcmemo.core.tasks import load_tasks

    training = load_tasks("training").tasks
    profiles, times = profile_times(training)
    profiles += profile_times(load_tasks("evaluation").tasks)[0]
    print(f"profile ms: mean {statistics.mean(times):.2f}, max {max(times):.2f} over {len(times)} training tasks\n")
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        first, warm = ranking_times(size, profiles, profiles[-args.queries:])
        rows.append([f"{size:,}", f"{first:.1f}", f"{warm:.2f}"])
    print_table(["items", "first ms", "warm ms"], rows, right=True)
    if args.concepts is None or not args.concepts.is_file():
        print(f"\nno hit rates: {missing(PS_MEMORY) if args.concepts is None else f'{args.concepts} is not a file'}")
    else:
        print()
        rows = []
        for most in (15, 30):
            puzzles, first, three, chance, chance3 = hit_rates(args.concepts, most)
            rows.append([most, puzzles, f"{first:.0%}", f"{chance:.0%}", f"{three:.0%}", f"{chance3:.0%}"])
        print_table(["concept used by at most", "puzzles", "hit@1", "chance@1", "hit@3", "chance@3"], rows, right=True)
    if args.caption:
        spent = caption_times(training, args.caption, args.model)
        print(f"caption by {args.model}: mean {statistics.mean(spent):.1f} s over {len(spent)}")


if __name__ == "__main__":
    main()
