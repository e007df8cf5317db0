"""Small solves of the shipped memory methods, played by a scripted model, reduced to what must
not change when the methods' code moves: the submissions, the memory written, and every model
request (step, task, sample and a digest of its messages).

`tests/test_methods_golden.py` compares a run of this checkout with tests/data/methods_golden/,
which was made on the code before memory methods became plugins. To make it again (only
when a change of results is meant, and said so in the commit):

    python tests/methods_golden.py tests/data/methods_golden

The scripted model's answers depend on what it is shown, so any change in what a method reads
or writes shows: a task of each block is solved only when memory is in its prompt, another
only on a retry (the feedback path), one never (the train-only write filter); the select
model names what the prompt lists; the curator's sheet lists what the old sheet listed.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from runner_support import seed_code, task_of

# Block 1: EASY (right at once), RETRY (right on its retry); block 2: NEEDS_MEMORY (right only
# with memory in its prompt), NEVER (never right: nothing is written from it).
EASY, RETRY, NEEDS_MEMORY, NEVER = "0d3d703e", "1e0a9b12", "25d8a9c8", "3428a4f5"
TASK_IDS = [EASY, RETRY, NEEDS_MEMORY, NEVER]
MARK = "MEMO-MARK"                  # every item a method writes carries it; the solver looks for it
WRONG = "```python\ndef transform(grid):\n    return [[0]]\n```"
NAME = re.compile(r"rule seen in [0-9a-f]{8}")
SHEET_LINE = re.compile(r"- " + MARK + r" from ([0-9a-f]{8})")
SEEDED = {"format": "ps", "name": "rule seen in 00000000", "kind": "routine", "source": "human",
          "description": f"{MARK}: a concept the memory held before the run"}

# method -> the run's settings beyond the shared ones
METHODS: dict[str, dict[str, Any]] = {
    "ps": {"selection": "ps", "continual": True},
    "oe": {"selection": "oe", "continual": True},
    "cheatsheet": {"selection": "cheatsheet", "continual": True},
    "none": {"selection": "none"},
    "all": {"selection": "all"},
}
SHARED = {"source": "training", "task_ids": TASK_IDS, "k": 2, "retries": 1}


def _text(messages) -> str:
    return "\n".join(str(m.get("content", "")) for m in messages)


def _solve(messages) -> str:
    task_id = task_of(messages, TASK_IDS)
    prompt = _text(messages)
    retry = sum(m.get("role") == "assistant" for m in messages) > 0
    right = (task_id == EASY or (task_id == RETRY and retry) or (task_id == NEEDS_MEMORY and MARK in prompt))
    return f"The program.\n```python\n{seed_code(task_id)}\n```" if right else WRONG


def _abstract(messages, request) -> str:
    task_id = request.task_id
    return (f"```yaml\n- name: rule seen in {task_id}\n  kind: routine\n  output_typing: grid\n"
            f"  description: {MARK} learned from {task_id}\n  cues:\n    - a cue from {task_id}\n```")


def _lessons(messages, request) -> str:
    task_id = request.task_id
    return (f"```yaml\n- situation: {MARK} a puzzle like {task_id}\n"
            f"  suggestion: do what worked for {task_id}\n```")


def _select_ps(messages) -> str:
    names = sorted(set(NAME.findall(_text(messages))))
    return "I pick every rule listed.\n```yaml\n" + "".join(f"- {n}\n" for n in names) + "```"


def _cheatsheet(messages, request) -> str:
    seen = sorted(set(SHEET_LINE.findall(_text(messages))) | {request.task_id})
    return "<cheatsheet>\n" + "\n".join(f"- {MARK} from {t}" for t in seen) + "\n</cheatsheet>"


def script(fake) -> None:
    fake.on("solve", _solve)
    fake.on("select_ps", _select_ps)
    fake.on("pseudocode", lambda m: "<pseudocode>\nrecolour each cell\n</pseudocode>\n<summary>a rule</summary>")
    fake.on("ps_abstract", _abstract, with_request=True)
    fake.on("ps_helpers", lambda m: "NONE")
    fake.on("caption", lambda m: "<observations>\n- cells change colour\n</observations>\n"
                                 "<speculation>\n- a table\n</speculation>")
    fake.on("select_oe", lambda m: "```yaml\n- 1\n- 2\n```")
    fake.on("oe_derive", lambda m: "<derivation>\n1. Observation: colours map.\n</derivation>")
    fake.on("oe_lessons", _lessons, with_request=True)
    fake.on("cheatsheet", _cheatsheet, with_request=True)


def _rows(grid) -> list[str] | None:
    return None if grid is None else [" ".join(map(str, row)) for row in grid]


def _submissions(directory: Path) -> dict[str, Any]:
    """Each task's answers per test input (attempt_1, attempt_2; a grid as its rows), without the
    run's metadata (times, run id, usage)."""
    out = {}
    for path in sorted(directory.glob("*.json")):
        entries = json.loads(path.read_text())
        out[path.stem] = [{k: _rows((v or {}).get("answer")) for k, v in sorted(e.items())} for e in entries]
    return out


def _calls(fake) -> list[str]:
    """Each request in order: "step task sample digest-of-its-messages"."""
    return [f"{c.step} {c.task_id} {c.sample} "
            + hashlib.sha256(json.dumps(c.messages, sort_keys=True).encode()).hexdigest()[:16] for c in fake.calls]


def run_method(method: str, workdir: Path) -> dict[str, Any]:
    """One method's run in `workdir` (a fresh model, call log and memory): its golden record."""
    import os

    from arcmemo.llm.backend import register_model, unregister_model
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.llm.fake import FakeModel
    from arcmemo.memory.io.imports import export_yaml
    from arcmemo.memory.store import Memory
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    workdir.mkdir(parents=True, exist_ok=True)
    os.environ["ARCMEMO_HOME"] = str(workdir / "home")
    fake = FakeModel("fake")
    register_model("fake", fake)
    script(fake)
    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", concurrency=1,
                          backoff_base_s=0.001, backoff_max_s=0.01, max_attempts=2))
    memory = Memory(str(workdir / "memory.db"))
    try:
        if method == "all":
            memory.add(dict(SEEDED), actor="test")
        config = RunConfig(**SHARED, **METHODS[method])
        runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                            solver=load_solver("program-synthesis"), runs_root=str(workdir / "runs"))
        summary = runner.run()
        return {"submissions": _submissions(runner.rundir.submissions), "memory": export_yaml(memory),
                "calls": _calls(fake), "passed_train": summary["passed_train"], "writes": summary["writes"]}
    finally:
        memory.close()
        llm.close()
        unregister_model("fake")


def main(out: str) -> None:
    import tempfile

    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for method in METHODS:
            record = run_method(method, Path(tmp) / method)
            (target / f"{method}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
            print(f"{method}: passed train {record['passed_train']}, {record['writes']} writes, "
                  f"{len(record['calls'])} calls")


if __name__ == "__main__":
    main(sys.argv[1])
