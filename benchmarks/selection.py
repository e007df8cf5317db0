"""Prompt tokens vs memory size for the `all` baseline and `ps` selection.

Synthetic PS memories of 100, 1,000 and 5,000 concepts (benchmarks.synthetic,
about the size of ArcMemo's released concepts) in a SQLite store; puzzles from ARC-AGI-1
training. A scripted model answers the ps selection instantly with the first five
concepts it was shown, so what is measured is arcmemo's side: the prompt actually sent
and the time to build it. Tokens are the selection module's estimate (chars / 3.5).

    python benchmarks/selection.py [--tasks 10] [--budget 6000] [--sizes 100,1000,5000]

Columns:
  all hint        tokens of the whole memory rendered (the `all` hint, every solver prompt)
  ps form         how the select prompt showed memory: full, compressed, prefiltered
  ps shown        concepts shown to the select model (mean over tasks)
  ps prompt       tokens of the select_ps prompt as sent (mean / max over tasks)
  ps hint         tokens of the resulting hint (5 concepts chosen)
  ps ms           wall time of select() per task (prompt building, matching, recording)
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def first_names(messages) -> str:
    """The fake select model: pick the first five concept names in the prompt's library."""
    text = messages[0]["content"]
    library = text.split("# How to work through it")[0]
    names = re.findall(r"^- concept: (.+)$", library, re.M) or re.findall(r"^- ([^(\n:]+?)(?:\(|$)", library, re.M)
    names = [n for n in names if ":=" not in n][:5]
    return "```yaml\n" + "\n".join(f"- {n}" for n in names) + "\n```"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10, help="ARC training tasks per memory size")
    parser.add_argument("--budget", type=int, default=6000, help="selection token budget")
    parser.add_argument("--sizes", default="100,1000,5000")
    args = parser.parse_args()

    home = tempfile.mkdtemp(prefix="arcmemo-bench-")
    os.environ["ARCMEMO_HOME"] = home
    from arcmemo.core.tasks import load_tasks
    from arcmemo.llm.backend import register_model
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.llm.fake import FakeModel
    from arcmemo.memory.render import render_ps
    from arcmemo.memory.store import Memory
    from arcmemo.selection import SelectionSettings, select
    from arcmemo.selection.budget import estimate_tokens, messages_tokens
    from benchmarks.synthetic import synthetic_concepts
    from benchmarks.table import print_table

    fake = FakeModel("fake")
    fake.on("select_ps", first_names)
    register_model("fake", fake)
    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", cache=False))
    tasks = load_tasks("training").tasks[: args.tasks]
    sizes = [int(s) for s in args.sizes.split(",")]

    rows = []
    for size in sizes:
        memory = Memory(Path(home) / f"memory-{size}.db")
        memory.merge_many([(d, None) for d in synthetic_concepts(size)], actor="benchmark")
        all_hint = render_ps(memory.list(format="ps"), memory.custom_types())
        prompts, hints, shown, times, forms = [], [], [], [], set()
        for task in tasks:
            before = len(fake.calls)
            start = time.perf_counter()
            sel = select(task, memory, SelectionSettings(mode="ps", token_budget=args.budget, run_id="bench"), llm)
            times.append((time.perf_counter() - start) * 1000)
            if sel.fallback:
                raise SystemExit(f"task {task.id}: unexpected fallback: {sel.error}")
            (call,) = fake.calls[before:]
            prompts.append(messages_tokens(call.messages))
            hints.append(estimate_tokens(sel.hint))
            shown.append(sel.stats["shown"])
            forms.add(sel.stats["form"])
        memory.close()
        rows.append((size, estimate_tokens(all_hint), "/".join(sorted(forms)), round(statistics.mean(shown)),
                     f"{statistics.mean(prompts):.0f} / {max(prompts)}", f"{statistics.mean(hints):.0f}",
                     f"{statistics.mean(times):.0f}"))
        assert max(prompts) <= args.budget, f"{size} concepts: a ps prompt of {max(prompts)} tokens is over budget"
    llm.close()

    print(f"token budget {args.budget}; {len(tasks)} ARC training tasks per size; tokens = chars/3.5")
    print_table(("concepts", "all hint", "ps form", "ps shown", "ps prompt mean/max", "ps hint", "ps ms"), rows,
                right=True)


if __name__ == "__main__":
    main()
