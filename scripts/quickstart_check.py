"""Run the README's quick start on a fresh checkout and time it: PASS within the limit (15 minutes:
the memory side makes four calls of the embedded model, the other side two).

What a new user does after installing: `arcmemo quickstart` in a fresh clone of the repository.
Here the clone is `git clone` of this checkout (or --repo) into a temporary folder, so only
committed files take part; the Python environment running this script is reused (its
packages, the embedded model's runtime), with the clone's code first on the import path.
Nothing else is carried over: a new, empty user folder (ARCMEMO_HOME: no call log, so no
answer comes from an earlier run's cache; no config.yaml), no endpoint variables (the
embedded model answers), the clone's own memory.db and ./runs. The embedded model's file,
assembled from its packages on first use, is kept where it is (~/.cache/arcmemo/models):
its one-time assembly is not part of the time.

Prints the quick start's own output as it goes, then the time, the load average (this
machine is shared: at the start, the mean and the maximum over the run, sampled every 5 s)
and each puzzle's result with and without memory, from the two run directories. Exits 1
when the quick start fails or takes longer than --limit-s.

    python scripts/quickstart_check.py [--repo PATH] [--limit-s 900] [--keep] [-- QUICKSTART ARGS]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEPT = ("ARCMEMO_MODELS_DIR",)      # where the embedded model's assembled file is


class LoadSampler:
    """The 1-minute load average at the start and every `every_s` seconds until stopped."""

    def __init__(self, every_s: float = 5.0):
        self.samples = [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(every_s,), daemon=True)
        self._thread.start()

    def _sample(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> str:
        self._stop.set()
        self._thread.join()
        return (f"load average {self.samples[0]:.1f} at the start, {sum(self.samples) / len(self.samples):.1f} "
                f"mean, {max(self.samples):.1f} max")


def fresh_clone(repo: Path, into: Path) -> Path:
    clone = into / "arcmemo"
    subprocess.run(["git", "clone", "--quiet", str(repo), str(clone)], check=True)
    return clone


def quickstart_env(clone: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()        # no endpoint, no setting of the user's
           if not k.startswith(("OPENAI_", "ARCMEMO_")) or k in KEPT}
    env.update(ARCMEMO_HOME=str(home), PYTHONPATH=os.pathsep.join([str(clone), str(clone / "solvers")]))
    return env


def run_quickstart(clone: Path, env: dict[str, str], args: list[str]) -> tuple[int, float]:
    """(exit code, seconds) of `arcmemo quickstart` in the clone, its output passed through."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "arcmemo", "quickstart", *args], cwd=clone, env=env)
    return done.returncode, time.monotonic() - started


def run_results(clone: Path) -> list[dict]:
    """Per run made in the clone (oldest first): its selection, and per puzzle solved or not."""
    found = []
    for rundir in sorted((clone / "runs").glob("*")):
        config = json.loads((rundir / "config.json").read_text())
        summary = json.loads((rundir / "summary.json").read_text()) if (rundir / "summary.json").exists() else {}
        found.append({"run": rundir.name, "selection": config.get("settings", {}).get("selection"),
                      "tasks": config.get("task_ids") or [], "solved": summary.get("solved", []),
                      "fit_answer_tasks": summary.get("fit_answer_tasks", [])})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="the repository to clone (default: this checkout)")
    parser.add_argument("--limit-s", type=float, default=900.0, help="the time the quick start must keep to")
    parser.add_argument("--keep", action="store_true", help="keep the temporary clone (its runs) afterwards")
    parser.add_argument("quickstart_args", nargs="*", help="arguments for `arcmemo quickstart` (after --)")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="arcmemo-quickstart-"))
    try:
        clone = fresh_clone(args.repo, workdir)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True,
                                text=True).stdout.strip()
        print(f"fresh clone of {args.repo} at {commit} in {clone}; Python {sys.executable}", flush=True)
        load = LoadSampler()
        code, seconds = run_quickstart(clone, quickstart_env(clone, workdir / "home"), args.quickstart_args)
        loads = load.stop()
        runs = run_results(clone)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    verdict = "PASS" if code == 0 and seconds <= args.limit_s else "FAIL"
    print()
    print(f"quick start: {seconds:.0f} s (limit {args.limit_s:.0f} s), exit code {code}, {loads}; "
          f"{os.cpu_count()} cores; {datetime.date.today().isoformat()}: {verdict}")
    for run in runs:
        by_memory = f", answered by memory's fit: {', '.join(run['fit_answer_tasks'])}" if run["fit_answer_tasks"] else ""
        print(f"  {run['selection']:5} run {run['run']}: solved {len(run['solved'])} of {len(run['tasks'])} "
              f"({', '.join(run['solved']) or '-'}){by_memory}")
    if args.keep:
        print(f"kept {workdir}")
    sys.exit(0 if verdict == "PASS" else 1)


if __name__ == "__main__":
    main()
