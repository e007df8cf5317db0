"""Does memory lift a model? The solve loop on held-out ARC-AGI-1 training tasks, four ways.

Settings, each one ordinary run of `arcmemo solve` on the same tasks, model, seed and
temperature (2 attempts, 1 feedback round), reading its own copy of the memory:

    none              no memory (the baseline)
    ps                reasoning-based selection, the concepts' text only (--helpers off)
    ps+helpers        the same, plus verified helpers, probed first (the default: --helpers on
                      --probe-helpers): helper calls that give every train output replace the
                      select model's choice
    ps+helpers-unprobed  the selected concepts' helpers (--no-probe-helpers)
    all+helpers       the whole memory, plus helpers (as many as the model is given), probed

It prints one table: tasks solved (both submitted attempts' ARC Prize score 1), the run's score
(the paper's oracle@k over its threads at its retry depth: oracle@1, one thread), tasks whose program passed
every train pair, tasks where the probe found a fitting helper call, how often a helper was
called, tokens, the summed latency of the model calls made (`model s`: right across resumed
sessions, where `wall s` misses what a killed session did before its first task ended), and
the target (ps+helpers solves more tasks than none and at least as many as ps). It is a
benchmark, not a test: the answer depends on the model.

The default tasks are 20 easy training tasks that are not among the seeds (`seeds/`), whose
rule is a routine some seed concept covers: rotations, mirror flips and transposes, colour
substitution, scaling, enclosed-region fill, panel overlays, surrounding pixels, cropping
the largest object, tiling by a mask, mirrored copies side by side, joining aligned pixels.

Each setting's run directory lives under WORK/<setting>/ with its memory copy; running the
script again resumes unfinished runs (`arcmemo solve --resume`) and reuses the call cache,
so a finished benchmark prints its table at once. With the embedded model (the default,
`local`, about a minute per short call on 2 cores) the whole benchmark takes hours: run it
in the background and read the table at the end of its log.

    python benchmarks/efficacy.py [--tasks ID,ID,...] [--model local] [--work DIR]

Memory methods side by side (every method x the probe on/off x an empty or seeded start) are
benchmarks/efficacy_methods.py's.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.table import print_table  # noqa: E402

SHIPPED_MEMORY = ROOT / "memory.db"

TASKS = ("3c9b0459 6150a2bd ed36ccf7 7fe24cdd 67a3c6ac 68b16354 74dd1130 9dfd6313 b1948b0a 9172f3a0 "
         "c59eb873 a5313dff 99b1bc43 6430c8c4 dc1df850 1f85a75f cce03e0d 6d0aefbc 8be77c9e dbc1a6ce").split()
# The helper each default task's rule calls for (the seed concept that covers it), to tell for a
# task the helpers did not solve whether selection missed it, the program did not call it, or
# called it and still failed (--explain).
NEEDED = {"3c9b0459": "rotate_grid", "6150a2bd": "rotate_grid", "ed36ccf7": "rotate_grid",
          "7fe24cdd": "rotate_grid", "67a3c6ac": "flip_grid", "68b16354": "flip_grid", "74dd1130": "flip_grid",
          "9dfd6313": "flip_grid", "b1948b0a": "color_mapping", "9172f3a0": "scale_grid", "c59eb873": "scale_grid",
          "a5313dff": "fill_enclosed_regions", "99b1bc43": "overlay_panels", "6430c8c4": "overlay_panels",
          "dc1df850": "surround_pixels", "1f85a75f": "crop_to_bounding_box", "cce03e0d": "tile_by_placement_mask",
          "6d0aefbc": "flip_grid", "8be77c9e": "flip_grid", "dbc1a6ce": "connect_points_with_line"}
SETTINGS = {                     # name -> (selection, helpers, probe_helpers), in the order they run
    "none": ("none", False, False),
    "ps+helpers": ("ps", True, True),
    "ps": ("ps", False, False),
    "all+helpers": ("all", True, True),
    "ps+helpers-unprobed": ("ps", True, False),
}


def run_setting(name: str, args, tasks: list[str]) -> dict:
    """The summary of one setting's run: resumed if its directory holds one unfinished or with
    tasks lost to the endpoint, else started."""
    from arcmemo.core.settings import Settings
    from arcmemo.run.config import RunConfig
    from arcmemo.run.progress.reporter import make_reporter
    from arcmemo.run.records.rundir import list_runs
    from arcmemo.run.session import open_session, resolve_models

    selection, helpers, probe = SETTINGS[name]
    root = Path(args.work) / name
    root.mkdir(parents=True, exist_ok=True)
    memory = root / "memory.db"
    if not memory.exists():
        shutil.copy(args.memory, memory)
    settings = Settings.load(db=str(memory), runs_dir=str(root / "runs"))
    models = {f"{role}_model": args.model for role in ("solver", "select", "aux")}
    wanted = {"task_ids": tasks, "selection": selection, "helpers": helpers, "probe_helpers": probe}
    existing = [run for run in list_runs(root / "runs")
                if {k: run.config()["settings"].get(k, False) for k in wanted} == wanted]
    with open_session(settings, reporter=make_reporter(quiet=not args.progress)) as session:
        summary = existing[-1].summary() if existing else None
        if summary is not None and not summary.get("tasks_lost"):
            return summary
        if existing:
            runner = session.resume_solve(str(existing[-1].path), models)
        else:
            config = RunConfig(source="training", task_ids=tasks, selection=selection, helpers=helpers,
                               probe_helpers=probe,
                               attempts=2, retries=1, temperature=args.temperature, model_seed=args.seed,
                               max_helpers=args.max_helpers, max_tokens=args.max_tokens)
            runner = session.new_solve(config, resolve_models(models))
        print(f"[{time.strftime('%H:%M:%S')}] {name}: run {runner.rundir.run_id}", file=sys.stderr, flush=True)
        return session.run(runner, resumed=bool(existing))


def explain(name: str, work: str) -> None:
    """Per task of a setting with helpers: solved, or why not (the needed helper was not offered,
    the program did not call it, or called it and still failed), with the probe's fits."""
    from arcmemo.memory.helpers.source import helper_name
    from arcmemo.run.records.rundir import list_runs

    run = list_runs(Path(work) / name / "runs")[-1]
    print(f"\n{name}: per task, the helper its rule needs, those offered and called, and why it failed")
    for event in (e for e in run.events() if e["type"] == "task"):
        needed = NEEDED.get(event["task_id"])
        offered = event.get("helpers_offered") or []
        called = sorted(helper_name(r["name"]) for r in event.get("concept_use", []) if r["called"] and r["name"])
        fits = event.get("helper_fits") or []
        unasked = (event.get("error") or "").startswith("llm:") and not event.get("passed_train") and not called
        why = ("solved" if event["scores"].get("oracle2") == 1 else "the model gave no answer" if unasked
               else "not offered (selection missed it)" if needed not in offered
               else "not called" if needed not in called else "called, still wrong")
        print(f"  {event['task_id']}  needs {needed or '-'}; probe fit {', '.join(fits) or '-'}; offered "
              f"{', '.join(offered) or '-'}; called {', '.join(called) or '-'} -> {why}"
              + (f" (last error: {event['error']})" if event.get("error") else ""))


def model_seconds(run_id: str) -> float:
    """The summed latency of the run's model calls that were really made (not cache hits): what
    the model cost on this machine, whichever sessions of the run made them."""
    from arcmemo.llm.log import CallLog

    with CallLog() as log:
        rows = log.usage(run_id=run_id, group_by=())
    return round(rows[0]["latency_s"] or 0.0) if rows else 0.0


def fit_tasks(summary: dict, work: str, name: str) -> int:
    """Tasks where the probe found a fitting call (from the task events: runs from before the
    summary counted them have them there too)."""
    from arcmemo.run.records.rundir import RunDir

    run = RunDir.find(summary["run_id"], str(Path(work) / name / "runs"))
    return sum(1 for e in run.events() if e["type"] == "task" and e.get("helper_fits"))


def row(name: str, summary: dict, n: int, work: str) -> list:
    usage, use = summary.get("usage", {}), summary.get("concept_use") or {}
    from arcmemo.run.records.report import score_of

    score = score_of(None, summary)
    return [name, f"{len(summary.get('solved', []))}/{n}", score.cell(), len(summary.get("passed_train", [])),
            f"{fit_tasks(summary, work, name)}/{n}", f"{use.get('called', 0)}/{use.get('called_passing', 0)}",
            usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0), model_seconds(summary["run_id"]),
            summary.get("wall_time_s")]


def compare_settings(args, tasks: list[str]) -> int:
    """The settings mode: the rows of SETTINGS, one table."""
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        raise SystemExit(f"efficacy: unknown setting(s) {', '.join(unknown)}; known: {', '.join(SETTINGS)}")
    summaries = {name: run_setting(name, args, tasks) for name in settings}
    print(f"efficacy: {len(tasks)} ARC-AGI-1 training tasks, model {args.model}, temperature {args.temperature}, "
          f"seed {args.seed}, 2 attempts, 1 retry, at most {args.max_tokens} tokens per answer")
    print_table(["setting", "solved", "score %", "passed train", "probe fit", "helper called/passing", "tokens",
                 "model s", "wall s"],
                [row(name, summaries[name], len(tasks), args.work) for name in settings])
    if {"none", "ps", "ps+helpers"} <= set(summaries):
        solved = {name: len(summaries[name].get("solved", [])) for name in summaries}
        ok = solved["ps+helpers"] > solved["none"] and solved["ps+helpers"] >= solved["ps"]
        print(f"target: ps+helpers solves more than none ({solved['ps+helpers']} vs {solved['none']}) and at least "
              f"as many as ps ({solved['ps']}): {'PASS' if ok else 'FAIL'}")
    for name in settings:
        print(f"{name}: solved {' '.join(summaries[name].get('solved', [])) or '-'}")
    if args.explain:
        for name in (s for s in settings if SETTINGS[s][1]):
            explain(name, args.work)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=",".join(TASKS), help="ARC-AGI-1 training task ids, comma-separated.")
    parser.add_argument("--model", default="local", help="The model for every role (default: the embedded one).")
    parser.add_argument("--settings", default=",".join(SETTINGS), help="Which settings, comma-separated.")
    parser.add_argument("--memory", default=str(SHIPPED_MEMORY), help="The memory each setting (row) copies.")
    parser.add_argument("--work", default=None,
                        help="Where the settings' run directories and memory copies go (default ~/.arcmemo/efficacy).")
    parser.add_argument("--temperature", type=float, default=0.6)
    parser.add_argument("--seed", type=int, default=0, help="The models' sampling seed.")
    parser.add_argument("--max-tokens", type=int, default=1024,
                        help="Completion limit of a solver call (the embedded model writes ~1-2 tokens/s on 2 cores).")
    parser.add_argument("--max-helpers", type=int, default=None, help="Helpers per task (default: by model).")
    parser.add_argument("--progress", action="store_true", help="Show each run's progress bar.")
    parser.add_argument("--explain", action="store_true",
                        help="Also, per task of the settings with helpers: solved, or why not.")
    args = parser.parse_args()
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if args.work is None:
        args.work = str(Path.home() / ".arcmemo" / "efficacy")
    seeds = {p.stem for p in (ROOT / "seeds").glob("*.py")}
    if Path(args.memory).resolve() == SHIPPED_MEMORY and set(tasks) & seeds:
        parser.error(f"{', '.join(sorted(set(tasks) & seeds))}: among the seeds the shipped memory was built from, "
                     "so not held out")
    return compare_settings(args, tasks)


if __name__ == "__main__":
    sys.exit(main())
