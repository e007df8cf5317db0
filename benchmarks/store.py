"""Store speed at 1k / 10k / 100k PS concepts (a benchmark, not a test).

    python benchmarks/store.py [--sizes 1000,10000,100000] [--db-dir DIR]

For each size: import a synthetic memory file (ArcMemo's compressed_v1.json shape) into an
empty SQLite store; one merge-by-name write (median of several); fetch + render a
20-concept selection; a search. Beside the merge, ArcMemo's own approach is measured in
the same run: load the whole memory JSON, merge in Python, rewrite the file. The store's
write must be at least 50x cheaper at 10k concepts (exit code 1 otherwise).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arcmemo.memory import data as cdata
from arcmemo.memory.io import import_file
from arcmemo.memory.render import render_ps
from arcmemo.memory.store import Memory

WORDS = ("object grid color line region pattern border pixel shape mask row column corner "
         "symmetry tile fill move copy rotate reflect crop count sort select extend draw split").split()
SUBTYPES = ["grid manipulation", "intermediate", "selection criteria", None]
TYPES = ["grid", "object", "list[object]", "color", "int", "bool", "position", "selection criteria"]


def synthetic_concept(i: int, rng: random.Random) -> dict:
    def phrase(n):
        return " ".join(rng.choice(WORDS) for _ in range(n))

    return {
        "name": f"{phrase(2)} {i}", "kind": rng.choice(["routine"] * 4 + ["structure"]),
        "routine_subtype": rng.choice(SUBTYPES), "output_typing": rng.choice(TYPES),
        "description": f"{phrase(12)}",
        "parameters": [{"name": phrase(1), "typing": rng.choice(TYPES), "description": phrase(8)}
                       for _ in range(rng.randint(1, 4))],
        "cues": [f"if {phrase(10)}" for _ in range(rng.randint(0, 3))],
        "implementation": [phrase(10) for _ in range(rng.randint(0, 2))],
        "used_in": [f"{rng.getrandbits(32):08x}" for _ in range(rng.randint(1, 5))],
    }


def arcmemo_merge(path: Path, update: dict) -> None:
    """ArcMemo's way: read the whole JSON memory, merge one concept in Python, write it all back."""
    memory = json.loads(path.read_text())
    concepts = memory["concepts"]
    new = cdata.normalize(update)
    old = concepts.get(new["name"])
    concepts[new["name"]] = cdata.merge(cdata.normalize(old), new) if old else new
    path.write_text(json.dumps(memory, indent=2))


def timed(fn, repeat: int = 1) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(n: int, workdir: Path) -> dict:
    rng = random.Random(n)
    concepts = [synthetic_concept(i, rng) for i in range(n)]
    source = workdir / f"memory_{n}.json"
    source.write_text(json.dumps({"concepts": {c["name"]: c for c in concepts}, "custom_types": {}}, indent=2))

    memory = Memory(workdir / f"store_{n}.db")
    import_s = timed(lambda: import_file(memory, source, actor="bench"))
    assert len(memory.search(concepts[-1]["name"], limit=1)) == 1

    targets = iter(rng.sample(concepts, 20))

    def store_merge():
        c = next(targets)
        r = memory.merge({"name": c["name"], "cues": [f"new cue {rng.random()}"]}, actor="bench", task_id="new-task")
        assert r.action == "extended"

    merge_s = timed(store_merge, repeat=7)
    json_copy = workdir / f"arcmemo_{n}.json"
    json_copy.write_bytes(source.read_bytes())
    arc_targets = iter(rng.sample(concepts, 5))
    arcmemo_s = timed(lambda: arcmemo_merge(json_copy, {"name": next(arc_targets)["name"],
                                                        "cues": ["new cue"], "used_in": ["new-task"]}), repeat=3)

    selection = [c["name"] for c in rng.sample(concepts, 20)]
    render_s = timed(lambda: render_ps([memory.get(name) for name in selection], memory.custom_types()), repeat=5)
    search_s = timed(lambda: memory.search("rotate symmetry", limit=20), repeat=5)
    memory.close()
    return {"concepts": n, "import_s": import_s, "merge_ms": merge_s * 1e3, "arcmemo_merge_ms": arcmemo_s * 1e3,
            "ratio": arcmemo_s / merge_s, "render20_ms": render_s * 1e3, "search_ms": search_s * 1e3,
            "json_mb": source.stat().st_size / 1e6}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--db-dir", default=None, help="where to put the databases (default: a temp dir)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        rows = [bench(n, Path(tmp)) for n in sizes]
    header = f"{'concepts':>9} {'json MB':>8} {'import s':>9} {'merge ms':>9} {'ArcMemo merge ms':>17} " \
             f"{'ratio':>7} {'render 20 ms':>13} {'search ms':>10}"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['concepts']:>9,} {r['json_mb']:>8.1f} {r['import_s']:>9.2f} {r['merge_ms']:>9.2f} "
              f"{r['arcmemo_merge_ms']:>17.1f} {r['ratio']:>6.0f}x {r['render20_ms']:>13.2f} {r['search_ms']:>10.2f}")
    at_10k = [r for r in rows if r["concepts"] == 10_000]
    if at_10k and at_10k[0]["ratio"] < 50:
        print(f"FAIL: merge is only {at_10k[0]['ratio']:.0f}x cheaper than ArcMemo's rewrite at 10k (need >= 50x)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
