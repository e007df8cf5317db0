"""A scripted model that plays a whole solve run: it 'solves' tasks with their seed solutions.

Used by the runner tests in-process and by `tests/fake_solve_cli.py` in a real
subprocess (the kill/resume test), so both exercise the same script.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

from arcmemo.core.gridtext import format_grid
from arcmemo.core.tasks import load_tasks

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
SOLUTIONS = Path(__file__).resolve().parent / "data" / "solutions"
# Training tasks with hand-written seed solutions: the fake "solver" answers with them.
TASK_IDS = ["0d3d703e", "1e0a9b12", "25d8a9c8", "3428a4f5", "6e82a1ae", "a699fb00"]
LEARNED = "recolour cells by a fixed table"

PS_CONCEPT = f"""```yaml
- name: {LEARNED}
  kind: routine
  routine_subtype: grid manipulation
  output_typing: grid
  description: map every cell's colour through a lookup table learned from the examples
  parameters:
    - name: table
      typing: dict[color, color]
      description: which colour each colour becomes
  cues:
    - each input colour always turns into the same output colour
  implementation:
    - build the table from the train pairs, then apply it cell by cell
```"""


def sigint_as_in_a_terminal() -> None:
    """preexec_fn for a child that must feel Ctrl-C: a shell's background job (CI started with
    `&`, nohup) ignores SIGINT, and Python keeps an ignored SIGINT ignored in its children."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def task_lines(run_dir: Path) -> int:
    """How many tasks a run directory's event log has committed."""
    path = run_dir / "events.jsonl"
    return path.read_text().count('"type":"task"') if path.exists() else 0


def wait_for_tasks(runs: Path, n: int, *, poll_s: float = 0.05, timeout_s: float = 120) -> None:
    """Until the (only) run under `runs` has committed `n` tasks (a test that then stops the run
    checks what it holds); an AssertionError saying so after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        dirs = list(runs.glob("*"))
        if dirs and task_lines(dirs[0]) >= n:
            return
        time.sleep(poll_s)
    raise AssertionError(f"no run under {runs} committed {n} tasks within {timeout_s:g}s")


def empty_memory(path: Path) -> str:
    """An empty memory file at `path` (a read-only solve refuses one that does not exist)."""
    from arcmemo.memory.store import Memory

    Memory(path).close()
    return str(path)


def paper_memory(path: Path, sheets: dict[str, str] | None = None) -> Path:
    """A small stand-in for the paper's memory (paper.db) that every shipped run configuration can
    read: one PS concept, one OE lesson, and the cheatsheets `sheets` (name -> text; default one
    `cheatsheet`)."""
    from arcmemo.memory.store import Memory

    with Memory(str(path)) as memory:
        memory.merge({"format": "ps", "name": "recolour", "kind": "routine", "description": "map colours"},
                     source="import", actor="test")
        memory.add({"format": "oe", "situation": "Colours change.", "suggestion": "Find the colour table."},
                   source="import", actor="test")
        for name, text in (sheets or {"cheatsheet": "- look for a colour table"}).items():
            memory.merge({"format": "sheet", "name": name, "description": text}, source="human", actor="test")
    return path


def seed_code(task_id: str) -> str:
    """A standalone solution of the task: the seed's, or, for a seed whose program imports memory
    helpers (which a run without helpers from memory cannot import), the self-contained program
    in tests/data/solutions/ (the seed as it was before it had helpers)."""
    standalone = SOLUTIONS / f"{task_id}.py"
    return (standalone if standalone.exists() else SEEDS / f"{task_id}.py").read_text()


def task_of(messages, task_ids=TASK_IDS) -> str | None:
    """Which task a prompt is about, by its first train input grid."""
    text = "\n".join(str(m.get("content", "")) for m in messages)
    tasks = load_tasks("training", ids=task_ids)
    for task in tasks:
        if format_grid(task.train[0].input) in text:
            return task.id
    return None


def script_run(fake, *, task_ids=TASK_IDS, unsolved=(), delay_s: float = 0.0, malformed: bool = False):
    """Make `fake` answer every step of a PS run.

    Tasks in `unsolved` get a program that fails the train pairs. With `malformed`, every
    answer of every step is unusable text.
    """
    def solve(messages):
        time.sleep(delay_s)
        if malformed:
            return "I think the answer is probably blue."
        task_id = task_of(messages, task_ids)
        if task_id is None or task_id in unsolved:
            return "```python\ndef transform(grid):\n    return [[0]]\n```"
        return f"Here is the program.\n```python\n{seed_code(task_id)}\n```"

    fake.on("solve", solve)
    if malformed:
        fake.on("*", lambda messages: "no idea")
        return fake
    fake.on("select_ps", lambda messages: f"I start from the cues.\n```yaml\n- {LEARNED}\n```")
    fake.on("pseudocode", lambda messages: "<pseudocode>\nfor each cell: recolour by table\n</pseudocode>\n"
                                           "<summary>recolour with a fixed table</summary>")
    fake.on("ps_abstract", lambda messages: PS_CONCEPT)
    fake.on("ps_helpers", lambda messages: "NONE")
    return fake


def register_scripted_fake() -> None:
    """A Ray worker's setup hook (tests/test_ray.py): the scripted fake model registered in the worker
    process, as the fixtures register it in the test's; RAY_FAKE_UNSOLVED (comma-separated task ids)
    and FAKE_DELAY (seconds per solve answer) shape the script."""
    import os

    from arcmemo.llm.backend import register_model
    from arcmemo.llm.fake import FakeModel

    fake = FakeModel("fake")
    register_model("fake", fake)
    unsolved = {t for t in os.environ.get("RAY_FAKE_UNSOLVED", "").split(",") if t}
    script_run(fake, unsolved=unsolved, delay_s=float(os.environ.get("FAKE_DELAY", "0")))
