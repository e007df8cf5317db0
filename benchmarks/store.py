"""Store speed at 1k / 10k / 100k PS concepts (a benchmark, not a test).

    python benchmarks/store.py [--sizes 1000,10000,100000] [--db-dir DIR]

Per size, on a synthetic memory written as ArcMemo's compressed_v1.json (compact JSON):
- import that file into an empty SQLite store; export the store as YAML; import the YAML
  into another empty store, in a child process (its time and peak memory are the child's,
  interpreter start included: what `arcmemo concepts import` costs);
- one merge-by-name write (median of 7); then list, and list as_of the revision before
  those writes (median of 5); fetch and render a 20-concept selection; a search.

Baselines measured in the same run, each the floor or the old way of the same work:
- ArcMemo's own write: load the whole memory JSON, merge one concept in Python, rewrite the
  file (compact JSON, like the store's import file);
- the same export entries as compact JSON (json.dumps), and the YAML file's data read back
  as JSON (json.loads): what the fastest text format costs for the same data;
- the concept rows fetched raw with sqlite3: the floor of a list.

Times are CPU seconds of the process doing the work (wall seconds beside them): on a
machine shared with other jobs, other processes stretch the wall clock, not the work.
Exit code 1 when a target (issue 17, and the merge target) fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arcmemo.memory import data as cdata
from arcmemo.memory.io import concept_entry, export_yaml, import_file
from arcmemo.memory.render import render_ps
from arcmemo.memory.store import Memory

WORDS = ("object grid color line region pattern border pixel shape mask row column corner "
         "symmetry tile fill move copy rotate reflect crop count sort select extend draw split").split()
SUBTYPES = ["grid manipulation", "intermediate", "selection criteria", None]
TYPES = ["grid", "object", "list[object]", "color", "int", "bool", "position", "selection criteria"]
GB = 1024 ** 3

# (what, size, limit, unit): the targets; "s" is CPU seconds at most, "x" a ratio at least
TARGETS = [
    ("export YAML", 10_000, 3.0, "s"),
    ("import YAML", 10_000, 10.0, "s"),
    ("list as_of", 10_000, 0.3, "s"),
    ("list", 10_000, 0.2, "s"),
    ("import YAML", 100_000, 120.0, "s"),
    ("import YAML peak memory", 100_000, 2.0, "GB"),
    ("merge vs ArcMemo rewrite", 10_000, 50.0, "x"),
]


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


def compact(data) -> str:
    return json.dumps(data, separators=(",", ":"))


def arcmemo_merge(path: Path, update: dict) -> None:
    """ArcMemo's way: read the whole JSON memory, merge one concept in Python, write it all back."""
    memory = json.loads(path.read_text())
    concepts = memory["concepts"]
    new = cdata.normalize(update)
    old = concepts.get(new["name"])
    concepts[new["name"]] = cdata.merge(cdata.normalize(old), new) if old else new
    path.write_text(compact(memory))


def timed(fn, repeat: int = 1) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of fn, the median of `repeat` runs."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


def child_import(yaml_path: Path, db: Path) -> tuple[float, float, float]:
    """(CPU s, wall s, peak GB) of importing `yaml_path` into a new store in a fresh process."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--child-import", str(yaml_path), str(db)])
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the import child failed (status {status})")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss * 1024 / GB


def bench(n: int, workdir: Path) -> dict:
    rng = random.Random(n)
    concepts = [synthetic_concept(i, rng) for i in range(n)]
    source = workdir / f"memory_{n}.json"
    source.write_text(compact({"concepts": {c["name"]: c for c in concepts}, "custom_types": {}}))
    r = {"concepts": n, "json_mb": source.stat().st_size / 1e6}

    memory = Memory(workdir / f"store_{n}.db")
    r["import_json"] = timed(lambda: import_file(memory, source, actor="bench"))
    assert len(memory.search(concepts[-1]["name"], limit=1)) == 1

    exported: list[str] = []
    r["export"] = timed(lambda: exported.append(export_yaml(memory)))
    yaml_path = workdir / f"memory_{n}.yaml"
    yaml_path.write_text(exported[0], encoding="utf-8")
    entries = [concept_entry(c) for c in memory.list()]
    r["export_json"] = timed(lambda: compact(entries))
    as_json = json.dumps(json.loads(compact({"concepts": entries})))
    r["read_json"] = timed(lambda: json.loads(as_json))
    cpu, wall, peak = child_import(yaml_path, workdir / f"store_{n}_yaml.db")
    r["import_yaml"], r["import_yaml_gb"] = (cpu, wall), peak
    with Memory(workdir / f"store_{n}_yaml.db") as other:
        assert export_yaml(other) == exported[0], "export -> import -> export changed the bytes"

    imported = memory.revision()
    targets = iter(rng.sample(concepts, 20))

    def store_merge():
        c = next(targets)
        result = memory.merge({"name": c["name"], "cues": [f"new cue {rng.random()}"]}, actor="bench",
                              task_id="new-task")
        assert result.action == "extended"

    r["merge"] = timed(store_merge, repeat=7)
    json_copy = workdir / f"arcmemo_{n}.json"
    json_copy.write_bytes(source.read_bytes())
    arc_targets = iter(rng.sample(concepts, 5))
    r["arcmemo_merge"] = timed(lambda: arcmemo_merge(json_copy, {"name": next(arc_targets)["name"],
                                                                 "cues": ["new cue"], "used_in": ["new-task"]}),
                               repeat=3)

    r["list"] = timed(memory.list, repeat=5)
    r["list_as_of"] = timed(lambda: memory.list(as_of=imported), repeat=5)  # before the merges: 7 rebuilt
    with sqlite3.connect(workdir / f"store_{n}.db") as raw:
        r["list_raw"] = timed(lambda: raw.execute("SELECT * FROM concept ORDER BY id").fetchall(), repeat=5)
    selection = [c["name"] for c in rng.sample(concepts, 20)]
    r["render20"] = timed(lambda: render_ps([memory.get(name) for name in selection], memory.custom_types()),
                          repeat=5)
    r["search"] = timed(lambda: memory.search("rotate symmetry", limit=20), repeat=5)
    memory.close()
    return r


def measured(rows: dict[int, dict], what: str, size: int) -> tuple[float, float | None, str] | None:
    """(value, ratio to its baseline, baseline name) of a target, or None when that size was not run."""
    r = rows.get(size)
    if r is None:
        return None
    if what == "import YAML peak memory":
        return r["import_yaml_gb"], None, ""
    if what == "merge vs ArcMemo rewrite":
        return r["arcmemo_merge"][0] / r["merge"][0], None, ""
    key, base, base_name = {"export YAML": ("export", "export_json", "json.dumps"),
                            "import YAML": ("import_yaml", "read_json", "json.loads"),
                            "list as_of": ("list_as_of", "list_raw", "raw rows"),
                            "list": ("list", "list_raw", "raw rows")}[what]
    return r[key][0], r[key][0] / max(r[base][0], 1e-9), base_name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--db-dir", default=None, help="where to put the databases (default: a temp dir)")
    parser.add_argument("--child-import", nargs=2, metavar=("YAML", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_import:
        with Memory(args.child_import[1]) as memory:
            import_file(memory, args.child_import[0], actor="bench")
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        rows = {n: bench(n, Path(tmp)) for n in sizes}

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; times are CPU s (wall s)\n")
    cells = [("concepts", lambda r: f"{r['concepts']:,}"), ("json MB", lambda r: f"{r['json_mb']:.1f}")]
    for label, key in (("import json", "import_json"), ("export yaml", "export"), ("import yaml", "import_yaml"),
                       ("list", "list"), ("list as_of", "list_as_of")):
        cells.append((f"{label} s", lambda r, k=key: f"{r[k][0]:.2f} ({r[k][1]:.2f})"))
    cells += [("yaml GB", lambda r: f"{r['import_yaml_gb']:.2f}"),
              ("merge ms", lambda r: f"{r['merge'][0] * 1e3:.2f}"),
              ("ArcMemo merge ms", lambda r: f"{r['arcmemo_merge'][0] * 1e3:.1f}"),
              ("render 20 ms", lambda r: f"{r['render20'][0] * 1e3:.2f}"),
              ("search ms", lambda r: f"{r['search'][0] * 1e3:.2f}")]
    table = [[name for name, _ in cells]] + [[fmt(r) for _, fmt in cells] for r in rows.values()]
    widths = [max(len(row[i]) for row in table) for i in range(len(cells))]
    for row in table:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths)))

    print(f"\n{'target':<26} {'concepts':>9} {'measured':>10} {'limit':>9} {'vs baseline':>22}  result")
    failed = False
    for what, size, limit, unit in TARGETS:
        found = measured(rows, what, size)
        if found is None:
            print(f"{what:<26} {size:>9,} {'(not run)':>10}")
            continue
        value, ratio, base = found
        ok = value >= limit if unit == "x" else value <= limit
        failed |= not ok
        shown = f"{value:.0f}x" if unit == "x" else f"{value:.2f} {unit}"
        bound = f">= {limit:.0f}x" if unit == "x" else f"<= {limit:g} {unit}"
        versus = f"{ratio:.1f}x {base}" if ratio is not None else ""
        print(f"{what:<26} {size:>9,} {shown:>10} {bound:>9} {versus:>22}  {'PASS' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
