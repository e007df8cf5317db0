"""Scripted runs of the default protocol, reduced to what must not change when protocols are
added: every submitted grid, the Table 4 block, what was written to memory, and a hash of
every prompt the model was sent (so the feedback, hints and selection prompts are the same
text).

`python tests/protocol_support.py OUT.json` writes the fingerprint; run with an older
checkout first on PYTHONPATH it records that checkout's behaviour
(tests/data/protocol_default_fingerprint.json was made so, from the code before protocols).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "data" / "protocol_default_fingerprint.json"


def _submitted(rundir) -> dict[str, list]:
    out = {}
    for path in sorted(rundir.submissions.glob("*.json")):
        entries = json.loads(path.read_text())
        out[path.stem] = [[entry.get(f"attempt_{i}", {}) and entry[f"attempt_{i}"]["answer"]
                           if entry.get(f"attempt_{i}") else None for i in (1, 2)] for entry in entries]
    return out


def _prompt_hashes(fake) -> list[str]:
    """One hash per call (step, sample and messages), sorted: threads run at once, in any order."""
    digests = []
    for call in fake.calls:
        text = json.dumps([call.step, call.sample, call.messages], sort_keys=True, default=str)
        digests.append(hashlib.sha256(text.encode()).hexdigest()[:16])
    return sorted(digests)


def fingerprint(tmp: Path) -> dict:
    """Run the two scripted scenarios under `tmp` and reduce them (module docstring)."""
    from runner_support import TASK_IDS, script_run
    from test_paper_protocol import P1, P2, play

    from arcmemo.llm.backend import register_model, unregister_model
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.llm.fake import FakeModel
    from arcmemo.memory.store import Memory
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    result = {}
    scenarios = {
        # three threads, two retries, no memory: retries with the conversation's feedback
        "threads": (lambda fake: fake.on("solve", play, with_request=True),
                    dict(task_ids=[P1, P2], selection="none", threads=3, retries=2), None),
        # ps selection on the shipped memory, continual writes every 2 tasks, one task never solved
        "continual": (lambda fake: script_run(fake, unsolved={TASK_IDS[1]}),
                      dict(task_ids=TASK_IDS[:4], selection="ps", continual=True, k=2, retries=1, helpers=False),
                      HERE.parent / "memory.db"),
    }
    for name, (script, settings, seed_memory) in scenarios.items():
        fake = FakeModel("fake")
        register_model("fake", fake)
        script(fake)
        llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", concurrency=4,
                              backoff_base_s=0.001, backoff_max_s=0.01, max_attempts=3,
                              log_path=str(tmp / f"{name}-calls.db")))
        db = tmp / f"{name}.db"
        if seed_memory is not None:
            shutil.copy(seed_memory, db)
        memory = Memory(str(db))
        try:
            runner = new_runner(RunConfig(source="training", **settings), memory=memory, make_llm=lambda _, llm=llm: llm,
                                sandbox=get_sandbox(), solver=load_solver("program-synthesis"),
                                runs_root=str(tmp / f"{name}-runs"))
            summary = runner.run()
        finally:
            llm.close()
            unregister_model("fake")
        writes = [(e["task_id"], sorted(e.get("added", [])), sorted(e.get("extended", [])))
                  for e in runner.rundir.events() if e["type"] == "write"]
        result[name] = {"submitted": _submitted(runner.rundir), "table4": summary["table4"],
                        "per_task": {t: {k: v for k, v in s.items() if k in ("oracle1", "oracle2", "strict",
                                                                             "passed_train")}
                                     for t, s in summary["per_task"].items()},
                        "writes": writes, "prompts": _prompt_hashes(fake)}
        memory.close()
    return result


if __name__ == "__main__":
    import tempfile

    sys.path.insert(0, str(HERE))
    with tempfile.TemporaryDirectory() as tmp:
        data = fingerprint(Path(tmp))
    Path(sys.argv[1]).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
