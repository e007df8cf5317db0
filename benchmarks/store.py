"""Store speed and memory at 1k / 10k / 100k PS concepts (a benchmark, not a test).

    python benchmarks/store.py [--sizes 1000,10000,100000] [--repeat 3] [--db-dir DIR]

Per size, on a synthetic memory (concepts share their tasks from a pool of one task per ten
concepts, and their typings from a dozen, as a memory grown by solving does), written as
ArcMemo's compressed_v1.json (compact JSON):

- import that file into an empty SQLite store (in this process);
- `concepts export` of the store as YAML, in a child process: its CPU time and peak memory
  (the export streams: peak memory should not grow with the memory's size);
- import of that YAML into an empty store, in a child process, its work timed apart from
  the interpreter's start, beside the floor measured the same way in the same run (the same
  file parsed by arcmemo's parser, the concept rows inserted by plain sqlite3 executemany
  in one transaction into an empty memory), each the median of --repeat runs; the whole
  `concepts import`-like child's peak memory; then the re-export must give the same bytes;
- `concepts graph NAME` in a child process (NAME a routine returning `grid` and taking one:
  the largest answers), its CPU time and peak memory; beside it, at sizes up to
  --whole-graph-up-to, the old way (the whole graph built with networkx, then the
  neighbours of NAME), in a child process too;
- one merge-by-name write (median of 7); then list, and list as_of the revision before
  those writes (median of 5); fetch and render a 20-concept selection; a search.

Baselines measured in the same run, each the floor or the old way of the same work:
- ArcMemo's own write: load the whole memory JSON, merge one concept in Python, rewrite the
  file (compact JSON, like the store's import file);
- the same export entries as compact JSON (json.dumps), and the YAML file's data read back
  as JSON (json.loads): what the fastest text format costs for the same data;
- the concept rows fetched raw with sqlite3: the floor of a list;
- the import floor above, and the whole-graph neighbours above.

Times are CPU seconds of the process doing the work (wall seconds beside them): on a
machine shared with other jobs, other processes stretch the wall clock, not the work. The
load average is printed at the start and the end. Exit code 1 when a target fails.
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

from benchmarks.peak import high_water  # arcmemo itself is imported where used: the children stay lean

WORDS = ("object grid color line region pattern border pixel shape mask row column corner "
         "symmetry tile fill move copy rotate reflect crop count sort select extend draw split").split()
SUBTYPES = ["grid manipulation", "intermediate", "selection criteria", None]
TYPES = ["grid", "object", "list[object]", "color", "int", "bool", "position", "selection criteria",
         "color mapping", "direction", "region", "list[position]"]
GB, MB = 1024 ** 3, 1024 ** 2
ROOT = Path(__file__).resolve().parents[1]

# (what, size, limit, unit): "s" CPU seconds at most, "MB"/"GB" peak memory at most,
# "x<=" a ratio to its floor at most, "x>=" a ratio to the old way at least
TARGETS = [
    ("export YAML", 10_000, 3.0, "s"),
    ("export YAML peak memory", 10_000, 300, "MB"),
    ("export YAML peak memory", 100_000, 300, "MB"),
    ("import YAML", 10_000, 10.0, "s"),
    ("import YAML vs floor", 1_000, 2.0, "x<="),
    ("import YAML vs floor", 10_000, 2.0, "x<="),
    ("import YAML", 100_000, 120.0, "s"),
    ("import YAML peak memory", 100_000, 2.0, "GB"),
    ("graph NAME", 1_000, 1.0, "s"),
    ("graph NAME", 10_000, 1.0, "s"),
    ("graph NAME peak memory", 10_000, 200, "MB"),
    ("list as_of", 10_000, 0.3, "s"),
    ("list", 10_000, 0.2, "s"),
    ("merge vs ArcMemo rewrite", 10_000, 50.0, "x>="),
]


def synthetic_concept(i: int, rng: random.Random, tasks: list[str]) -> dict:
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
        "used_in": rng.sample(tasks, rng.randint(1, 3)),
    }


def compact(data) -> str:
    return json.dumps(data, separators=(",", ":"))


def arcmemo_merge(path: Path, update: dict) -> None:
    """ArcMemo's way: read the whole JSON memory, merge one concept in Python, write it all back."""
    from arcmemo.memory.schema import merge_rule as cdata

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


def child(argv: list[str]) -> dict:
    """Run a child process: its CPU s (user + system, interpreter start included), wall s, what
    it printed, and the peak memory it reports (`peak`, bytes: see peak.py for why the child
    says it)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(map(str, argv[:6]))} ... failed: {err.read().strip()[-800:]}")
        out.seek(0)
        return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "stdout": out.read()}


def reported(run: dict) -> dict:
    """The measures a child of this benchmark printed (its last line, JSON)."""
    return json.loads(run["stdout"].strip().splitlines()[-1])


def command(*args: str) -> dict:
    """`arcmemo ARGS` in a child process (benchmarks/peak.py runs it and says its peak memory)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        run = child([sys.executable, str(ROOT / "benchmarks" / "peak.py"), report.name, *map(str, args)])
        return {**run, "peak": json.loads(Path(report.name).read_text())["peak"]}


def median_child(argv: list[str], repeat: int) -> dict:
    """The child run `repeat` times: the median of the work's CPU s it reports, and the last run's measures."""
    runs = [child(argv) for _ in range(repeat)]
    return {**runs[-1], "work": statistics.median(reported(r)["work"] for r in runs)}


def text_baselines(memory) -> tuple[tuple[float, float], tuple[float, float]]:
    """The export's entries as compact JSON (json.dumps), and read back (json.loads): what the
    fastest text format costs for the same data."""
    from arcmemo.memory.io.imports import concept_entry

    entries = [concept_entry(c) for c in memory.list()]
    as_json = json.dumps(json.loads(compact({"concepts": entries})))
    return timed(lambda: compact(entries)), timed(lambda: json.loads(as_json))


def neighbours_of(concepts: list[dict]) -> str:
    """The routine whose neighbours are the most: it returns `grid` and takes one."""
    for c in concepts:
        if c["kind"] == "routine" and c["output_typing"] == "grid" and any(p["typing"] == "grid"
                                                                           for p in c["parameters"]):
            return c["name"]
    return next(c["name"] for c in concepts if c["kind"] == "routine")


def bench(n: int, workdir: Path, repeat: int, whole_graph_up_to: int) -> dict:
    from arcmemo.memory.io.imports import import_file
    from arcmemo.memory.store import Memory
    from arcmemo.memory.views.render import render_ps

    rng = random.Random(n)
    tasks = [f"{rng.getrandbits(32):08x}" for _ in range(max(n // 10, 20))]
    concepts = [synthetic_concept(i, rng, tasks) for i in range(n)]
    source = workdir / f"memory_{n}.json"
    source.write_text(compact({"concepts": {c["name"]: c for c in concepts}, "custom_types": {}}))
    r = {"concepts": n, "json_mb": source.stat().st_size / 1e6}

    db = workdir / f"store_{n}.db"
    memory = Memory(db)
    r["import_json"] = timed(lambda: import_file(memory, source, actor="bench"))
    assert len(memory.search(concepts[-1]["name"], limit=1)) == 1

    yaml_path = workdir / f"memory_{n}.yaml"
    exported = command("concepts", "export", yaml_path, "--db", db)
    r["export"], r["export_mb"] = (exported["cpu"], exported["wall"]), exported["peak"] / MB
    r["export_json"], r["read_json"] = text_baselines(memory)

    me = [sys.executable, __file__]
    floor = median_child(me + ["--child-floor", str(yaml_path), str(workdir / f"floor_{n}.db")], repeat)
    imported = median_child(me + ["--child-import", str(yaml_path), str(workdir / f"store_{n}_yaml.db")], repeat)
    r["import_floor"], r["import_work"] = floor["work"], imported["work"]
    r["import_yaml"], r["import_yaml_gb"] = (imported["cpu"], imported["wall"]), reported(imported)["peak"] / GB
    again = workdir / f"memory_{n}_again.yaml"
    command("concepts", "export", again, "--db", workdir / f"store_{n}_yaml.db")
    assert again.read_bytes() == yaml_path.read_bytes(), "export -> import -> export changed the bytes"

    name = neighbours_of(concepts)
    graph = command("concepts", "graph", name, "--json", "--db", db)
    r["graph"], r["graph_mb"], r["graph_links"] = (graph["cpu"], graph["wall"]), graph["peak"] / MB, \
        len(json.loads(graph["stdout"]))
    if n <= whole_graph_up_to:
        old = child(me + ["--child-whole-graph", str(db), name])
        r["graph_whole"], r["graph_whole_mb"] = (old["cpu"], old["wall"]), reported(old)["peak"] / MB
        assert reported(old)["rows"] == r["graph_links"], "the whole graph and the link index disagree"

    revision = memory.revision()
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
    r["list_as_of"] = timed(lambda: memory.list(as_of=revision), repeat=5)  # before the merges: 7 rebuilt
    with sqlite3.connect(db) as raw:
        r["list_raw"] = timed(lambda: raw.execute("SELECT * FROM concept ORDER BY id").fetchall(), repeat=5)
    selection = [c["name"] for c in rng.sample(concepts, 20)]
    r["render20"] = timed(lambda: render_ps([memory.get(name) for name in selection], memory.custom_types()),
                          repeat=5)
    r["search"] = timed(lambda: memory.search("rotate symmetry", limit=20), repeat=5)
    memory.close()
    for path in workdir.iterdir():              # what the next size does not need: keep the disk small
        if path.name.endswith((f"_{n}.json", f"_{n}.yaml", f"_{n}_again.yaml")) or f"_{n}_yaml.db" in path.name:
            path.unlink()
    return r


# -- the children ----------------------------------------------------------------------------------

def empty_memory(db: str):
    """A new, empty memory at `db` (a file left there by an earlier run removed first)."""
    from arcmemo.memory.store import Memory

    for suffix in ("", "-wal", "-shm"):
        Path(db + suffix).unlink(missing_ok=True)
    return Memory(db)


def child_floor(yaml_path: str, db: str) -> None:
    """The import's floor: the file parsed by arcmemo's parser, the concept rows inserted by plain
    sqlite3 executemany in one transaction into an empty memory (its schema made beforehand)."""
    from arcmemo.memory.io.files import read_document
    from arcmemo.memory.schema.concept import DATA_FIELDS

    empty_memory(db).close()
    json_fields = {"parameters", "cues", "implementation", "used_in", "helper"}
    columns = (*DATA_FIELDS, "content_hash", "created_at", "updated_at")
    fixed = {"source": "human", "content_hash": "", "created_at": "2026-01-01 00:00:00.000000"}
    fixed["updated_at"] = fixed["created_at"]
    started = time.process_time()
    entries = read_document(yaml_path).data["concepts"]
    rows = [tuple(json.dumps(entry.get(c), ensure_ascii=False) if c in json_fields else entry.get(c, fixed.get(c))
                  for c in columns) for entry in entries]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany(f"INSERT INTO concept ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)
    conn.execute("COMMIT")
    conn.close()
    print(json.dumps({"work": time.process_time() - started}))


def child_import(yaml_path: str, db: str) -> None:
    """arcmemo's import of the file into an empty memory (its schema made beforehand)."""
    from arcmemo.memory.io.imports import import_file

    with empty_memory(db) as memory:
        started = time.process_time()
        import_file(memory, yaml_path, actor="bench")
        print(json.dumps({"work": time.process_time() - started, "peak": high_water()}))


def child_whole_graph(db: str, name: str) -> None:
    """The old way to one concept's neighbours: the whole graph built, then its edges at NAME."""
    from arcmemo.memory.store.reader import open_reader
    from arcmemo.memory.views.graph import build_graph, neighbours

    with open_reader(db) as memory:
        rows = neighbours(build_graph(memory.list("ps")), name)
    print(json.dumps({"rows": len(rows), "peak": high_water()}))


# -- the table -------------------------------------------------------------------------------------

def measured(rows: dict[int, dict], what: str, size: int) -> tuple[float, str] | None:
    """(value, what it is compared with) of a target, or None when that size was not run."""
    r = rows.get(size)
    if r is None:
        return None
    simple = {"export YAML peak memory": ("export_mb", ""), "import YAML peak memory": ("import_yaml_gb", ""),
              "graph NAME peak memory": ("graph_mb", "")}
    if what in simple:
        return r[simple[what][0]], ""
    if what == "merge vs ArcMemo rewrite":
        return r["arcmemo_merge"][0] / r["merge"][0], "ArcMemo's rewrite / merge"
    if what == "import YAML vs floor":
        return r["import_work"] / max(r["import_floor"], 1e-9), f"{r['import_work']:.2f} s / {r['import_floor']:.2f} s"
    key, base, base_name = {"export YAML": ("export", "export_json", "json.dumps"),
                            "import YAML": ("import_yaml", "read_json", "json.loads"),
                            "graph NAME": ("graph", "graph_whole", "whole graph"),
                            "list as_of": ("list_as_of", "list_raw", "raw rows"),
                            "list": ("list", "list_raw", "raw rows")}[what]
    if base not in r:
        return r[key][0], ""
    return r[key][0], f"{r[key][0] / max(r[base][0], 1e-9):.2f}x {base_name}"


def print_results(rows: dict[int, dict]) -> bool:
    """The measures and the targets; True when every target that was run passed."""
    def cpu_wall(key):
        return lambda r: f"{r[key][0]:.2f} ({r[key][1]:.2f})" if key in r else "-"

    cells = [("concepts", lambda r: f"{r['concepts']:,}"), ("json MB", lambda r: f"{r['json_mb']:.1f}")]
    for label, key in (("import json", "import_json"), ("export yaml", "export"), ("import yaml", "import_yaml"),
                       ("graph NAME", "graph"), ("whole graph", "graph_whole"), ("list", "list"),
                       ("list as_of", "list_as_of")):
        cells.append((f"{label} s", cpu_wall(key)))
    cells += [("export MB", lambda r: f"{r['export_mb']:.0f}"), ("graph MB", lambda r: f"{r['graph_mb']:.0f}"),
              ("links", lambda r: f"{r['graph_links']:,}"),
              ("whole graph MB", lambda r: f"{r['graph_whole_mb']:.0f}" if "graph_whole_mb" in r else "-"),
              ("import work / floor s", lambda r: f"{r['import_work']:.2f} / {r['import_floor']:.2f}"),
              ("yaml import GB", lambda r: f"{r['import_yaml_gb']:.2f}"),
              ("merge ms", lambda r: f"{r['merge'][0] * 1e3:.2f}"),
              ("ArcMemo merge ms", lambda r: f"{r['arcmemo_merge'][0] * 1e3:.1f}"),
              ("render 20 ms", lambda r: f"{r['render20'][0] * 1e3:.2f}"),
              ("search ms", lambda r: f"{r['search'][0] * 1e3:.2f}")]
    table = [[name for name, _ in cells]] + [[fmt(r) for _, fmt in cells] for r in rows.values()]
    widths = [max(len(row[i]) for row in table) for i in range(len(cells))]
    for row in table:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths)))

    print(f"\n{'target':<26} {'concepts':>9} {'measured':>10} {'limit':>9} {'compared with':>28}  result")
    ok = True
    for what, size, limit, unit in TARGETS:
        found = measured(rows, what, size)
        if found is None:
            print(f"{what:<26} {size:>9,} {'(not run)':>10}")
            continue
        value, versus = found
        passed = value >= limit if unit == "x>=" else value <= limit
        ok &= passed
        shown = f"{value:.2f}x" if unit.startswith("x") else f"{value:.2f} {unit}"
        bound = f"{unit[1:]} {limit:g}x" if unit.startswith("x") else f"<= {limit:g} {unit}"
        print(f"{what:<26} {size:>9,} {shown:>10} {bound:>9} {versus:>28}  {'PASS' if passed else 'FAIL'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the import and its floor (the median counts)")
    parser.add_argument("--whole-graph-up-to", type=int, default=1000,
                        help="measure the old whole-graph neighbours up to this size (quadratic: 5 GB at 10k)")
    parser.add_argument("--db-dir", default=None, help="where to put the databases (default: a temp dir)")
    parser.add_argument("--child-import", nargs=2, metavar=("YAML", "DB"), help=argparse.SUPPRESS)
    parser.add_argument("--child-floor", nargs=2, metavar=("YAML", "DB"), help=argparse.SUPPRESS)
    parser.add_argument("--child-whole-graph", nargs=2, metavar=("DB", "NAME"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    for option, run in (("child_import", child_import), ("child_floor", child_floor),
                        ("child_whole_graph", child_whole_graph)):
        if getattr(args, option):
            run(*getattr(args, option))
            return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        rows = {n: bench(n, Path(tmp), args.repeat, args.whole_graph_up_to) for n in sizes}
    print(f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, on {os.cpu_count()} "
          "cores; times are CPU s (wall s) of the process doing the work\n")
    return 0 if print_results(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
