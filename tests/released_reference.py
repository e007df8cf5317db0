"""The ArcMemo authors' released code's own verdicts on model answers (test-only).

Its functions are imported from the fetched copy of github.com/matt-seb-ho/arc_memo at test time,
never copied here: the bare git directory MIRROR (or $ARCMEMO_RELEASED_MIRROR) is unpacked into a
temporary directory and its extraction and execution run in a subprocess with a timeout (they
exec the answers' code). Two of its scorers are asked:

- "driver": what its solve drivers (`evaluation/driver.py`, `continual_driver.py`, the README's
  entry points) score an answer with: `score_tree.parse_code_solution` and
  `score_tree.evaluate_solution_on_io_pairs`. arcmemo's `released` reading follows this one;
- "score_completions": `score_completions.parse_code_solution` and `score_transform_function`,
  the older `evaluation/run.py` runner's, which also renames `def main(` and drops lines starting
  `print(`; recorded to show where the two differ.

Importing them needs neither the released package's `__init__` files (its LLM clients, plots and
ARC data) nor libraries the compared functions never call (pandas, orjson, dotenv): those are
stand-ins in the subprocess. What they do need is numpy, pebble, psutil and tqdm.

`python tests/released_reference.py` records both scorers' verdicts on the corpus
(tests/answer_shapes.py) into RECORDED, which the tests read when there is no mirror (CI).

A verdict: the code read (None: none), and per train and test grid [class, output, correct]
(or "crash": the exception the released scorer itself raised, which ends its run):
class "output" (an ARC grid: output is it), "no grid" (a 2-D array of colours that no ARC grid
equals: empty, over 30 wide, fractions), the three return checks "return type error", "return
shape error", "return value range error", or "error" (anything else: an exception, a timeout, which
the released code reports as an error too, sometimes with no text).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

MIRROR = Path(os.environ.get("ARCMEMO_RELEASED_MIRROR", "/work/.mirror/matt-seb-ho+arc_memo/repo"))
RECORDED = Path(__file__).parent / "data" / "released_answer_verdicts.json"
NEEDED = ("numpy", "pebble", "psutil", "tqdm")
FILES = ("concept_mem/constants.py", "concept_mem/evaluation/score_tree.py",
         "concept_mem/evaluation/solution_tree.py", "concept_mem/evaluation/score_completions.py",
         "concept_mem/utils/common.py", "concept_mem/utils/code_execution")
SCORERS = ("driver", "score_completions")
CHECKS = ("return type error", "return shape error", "return value range error")
TIMEOUT_S = 600


def unavailable() -> str | None:
    """Why the released code cannot be run here (None: it can)."""
    if not (MIRROR / "HEAD").is_file():
        return (f"the released code is not fetched: no git directory at {MIRROR} (fetch matt-seb-ho/arc_memo "
                "there, or set ARCMEMO_RELEASED_MIRROR); the recorded verdicts are checked instead")
    missing = [m for m in NEEDED if importlib.util.find_spec(m) is None]
    if missing:
        return f"the released code needs {', '.join(missing)} (pip install {' '.join(missing)})"
    return None


def commit() -> str:
    return _git("rev-parse", "HEAD").decode().strip()


def released_verdicts(shapes: list[dict[str, Any]], train: list, test: list) -> dict[str, dict[str, Any]]:
    """Each scorer's verdict on each answer: {scorer: {shape name: verdict}}. `shapes` are
    {"name", "answer"} mappings; `train` and `test` (input, output) pairs."""
    with tempfile.TemporaryDirectory(prefix="arc_memo_released_") as root:
        with tarfile.open(fileobj=io.BytesIO(_git("archive", "--format=tar", "HEAD", *FILES))) as archive:
            archive.extractall(root, filter="data")
        request = json.dumps({"shapes": shapes, "train": train, "test": test})
        done = subprocess.run([sys.executable, __file__, "--child", root], input=request, capture_output=True,
                              text=True, timeout=TIMEOUT_S, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"the released code's scorers failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def _git(*args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={MIRROR}", *args], check=True, capture_output=True).stdout


# -- the subprocess: the released functions on every answer ----------------------------------------

def _child(root: str) -> None:
    import types

    import numpy as np

    sys.path.insert(0, root)
    for package in ("concept_mem.utils", "concept_mem.data"):     # without their __init__ files
        module = types.ModuleType(package)
        module.__path__ = [os.path.join(root, *package.split("."))]
        sys.modules[package] = module
    stand_in = types.ModuleType("stand_in")
    stand_in.__getattr__ = lambda name: type(name, (), {})       # any name, never called
    sys.modules["concept_mem.data.arc_agi"] = stand_in
    for library in ("pandas", "orjson", "dotenv", "yaml"):
        if importlib.util.find_spec(library) is None:
            sys.modules[library] = stand_in
    from concept_mem.utils import common

    utils = sys.modules["concept_mem.utils"]        # the names its __init__ takes from common
    utils.extract_python_block, utils.write_json = common.extract_python_block, common.write_json
    from concept_mem.evaluation import score_completions, score_tree

    request = json.loads(sys.stdin.read())

    def pairs(raw):
        return [types.SimpleNamespace(x=np.array(i), y=np.array(o)) for i, o in raw]

    problem = types.SimpleNamespace(train_pairs=pairs(request["train"]), test_pairs=pairs(request["test"]))

    def driver(answer: str) -> dict:
        code, error = score_tree.parse_code_solution(answer)
        if error:
            return {"code": None}
        return {"code": code, **{split: [_cell(r.output if r.error is None else r.error, r.correct, np)
                                          for r in score_tree.evaluate_solution_on_io_pairs(code, getattr(
                                              problem, f"{split}_pairs"))]
                                 for split in ("train", "test")}}

    def completions(answer: str) -> dict:
        code, error = score_completions.parse_code_solution(answer)
        if error:
            return {"code": None}
        verdict = {"code": code}
        for split in ("train", "test"):
            _, correct, outputs = score_completions.score_transform_function(problem, code, split=split)
            verdict[split] = [_cell(out, ok, np) for out, ok in zip(outputs, correct)]
        return verdict

    def crashing(scorer):
        """The scorer's verdict, or the exception its own code raised (a crash of the run)."""
        def verdict(answer: str) -> dict:
            try:
                return scorer(answer)
            except Exception as exc:
                return {"crash": f"{type(exc).__name__}: {exc}"}
        return verdict

    verdicts = {name: {s["name"]: crashing(scorer)(s["answer"]) for s in request["shapes"]}
                for name, scorer in (("driver", driver), ("score_completions", completions))}
    print(json.dumps(verdicts))


def _cell(result: Any, correct: bool, np) -> list:
    """One grid's verdict from what the released scorer kept: the output array, or its error text."""
    if isinstance(result, np.ndarray):
        grid = _arc_grid(result, np)
        return ["output" if grid is not None else "no grid", grid, bool(correct)]
    text = str(result)
    return [next((c for c in CHECKS if text.startswith(c)), "error"), None, bool(correct)]


def _arc_grid(array, np) -> list[list[int]] | None:
    """The ARC grid an array equals (None: none does)."""
    array = np.asarray(array)
    if array.ndim != 2 or not (0 < array.shape[0] <= 30 and 0 < array.shape[1] <= 30):
        return None
    ints = array.astype(np.int64)
    if not np.array_equal(array, ints) or ints.min() < 0 or ints.max() > 9:
        return None
    return ints.tolist()


def record() -> None:
    """Write both scorers' verdicts on the corpus to RECORDED."""
    sys.path.insert(0, str(Path(__file__).parent))
    from answer_shapes import SHAPES, TEST, TRAIN

    why = unavailable()
    if why:
        raise SystemExit(why)
    shapes = [{"name": s.name, "answer": s.answer} for s in SHAPES]
    data = {"released_code": "github.com/matt-seb-ho/arc_memo", "commit": commit(),
            "made_by": "python tests/released_reference.py", "verdicts": released_verdicts(shapes, TRAIN, TEST)}
    RECORDED.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{RECORDED}: {len(shapes)} answers, scorers {', '.join(SCORERS)}, commit {data['commit'][:12]}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2])
    else:
        record()
