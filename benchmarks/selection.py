"""PS selection at 100, 1,000, 5,000 and 20,000 concepts: the prompt's size in real tokens
against its budget, and the time to plan it against the same plan on the smallest memory.

Synthetic PS memories (benchmarks.synthetic, about the size of ArcMemo's released
concepts) in a SQLite store; puzzles from ARC-AGI-1 training. A scripted select model
answers instantly with the first concepts it was shown, so what is measured is arcmemo's
side: the prompt actually sent, the hint handed on, and the time to build them.

Sizes are counted with Qwen2.5's own tokenizer (the embedded model's llama.cpp server,
/tokenize, through arcmemo.llm.tokens) when the [local] extra is installed; the table says
when it fell back to the estimate. Each size runs twice: with the scripted select and
solver models declaring Qwen's tokenizer (as the embedded models do), so that the client
counts with it, and declaring none, so that selection fits with the digit-aware estimate
(arcmemo.core.estimate). Either way no prompt may exceed its budget in real tokens.

    python benchmarks/selection.py [--tasks 10] [--budget 6000] [--hint-budget 3000] [--sizes 100,1000,5000,20000]

Columns:
  fitted with     the count selection fitted the prompt with
  form            how the select prompt showed memory: full, collapsed, compressed, prefiltered
  shown           concepts shown to the select model (mean over tasks)
  prompt          real tokens of the select_ps prompt as sent, mean / max (budget: --budget)
  hint            real tokens of the hint handed to the solver, max (budget: --hint-budget)
  est. error      the estimate against the real count on the prompts sent, min / max
  plan ms         arcmemo's own time planning the prompt (selection.ps.plan_prompt) per task, warm
                  median / first task after the memory changed. Time spent in the model's
                  tokenizer is apart:
  x base          the warm plan against the baseline: the same plan on the smallest memory,
                  measured in this run (a plan ranks every concept, so it grows with memory
                  at most in proportion)
  target          warm plan at most 50 ms at 5,000 concepts and 200 ms at 20,000 (in
                  proportion), and every prompt and hint in budget at every size
  count ms        the tokenizer's time per task (the llama.cpp server's /tokenize), warm mean
  load            the 1-minute load average after the row (above ~1.5 the times are inflated)
Exit code 1 if a target is missed.
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
PLAN_MS_TARGET = {5000: 50, 20000: 200}     # warm planning per task at these sizes (ms): linear in memory
PICKED = 40                  # concepts the scripted select model names (enough to fill the hint)
QWEN = "local-small"         # Qwen2.5-Coder-0.5B: the same tokenizer as the 1.5B `local`


def first_names(messages, count: int = PICKED) -> str:
    """The scripted select model: the first `count` concept names in the prompt's library."""
    text = messages[0]["content"]
    library = text.split("# How to work through it")[0]
    names = re.findall(r"^- concept: (.+)$", library, re.M) or re.findall(r"^- ([^(\n:]+?)(?:\(|$)", library, re.M)
    names = [n for n in names if ":=" not in n][:count]
    return "```yaml\n" + "\n".join(f"- {n}" for n in names) + "\n```"


class Timed:
    """Wraps a function and adds up the time spent in it."""

    def __init__(self, fn):
        self.fn, self.seconds = fn, 0.0

    def __call__(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


def measure(memory, tasks, llm, fake, settings, real, tokenizer: Timed) -> dict:
    """Select every task once; the prompts and hints in real tokens, planning times (apart from
    the time in the embedded server's tokenizer)."""
    from arcmemo.llm.counting import ESTIMATE
    from arcmemo.memory.views.library import library
    from arcmemo.methods import select
    from arcmemo.selection.ps import plan_prompt

    prompts, errors, hints, shown, plans, counting, forms = [], [], [], [], [], [], set()
    for task in tasks:
        before = tokenizer.seconds
        start = time.perf_counter()
        plan_prompt(task, library(memory), settings, llm)
        counted = (tokenizer.seconds - before) * 1000
        plans.append((time.perf_counter() - start) * 1000 - counted)
        counting.append(counted)
        before = len(fake.calls)
        sel = select(task, memory, settings, llm)
        real_seconds = tokenizer.seconds
        if sel.fallback:
            raise SystemExit(f"task {task.id}: unexpected fallback: {sel.error}")
        (call,) = fake.calls[before:]
        tokens = sum(real(m["content"]) + 4 for m in call.messages)
        prompts.append(tokens)
        errors.append(100 * (ESTIMATE.messages(call.messages) - tokens) / tokens)
        hints.append(real(sel.hint))
        tokenizer.seconds = real_seconds                    # measuring is not planning
        shown.append(sel.stats["shown"])
        forms.add(sel.stats["form"])
    return {"prompts": prompts, "errors": errors, "hints": hints, "shown": shown, "forms": forms,
            "plan_cold": plans[0], "plan_warm": statistics.median(plans[1:] or plans),
            "count_warm": statistics.mean(counting[1:] or counting)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10, help="ARC training tasks per memory size")
    parser.add_argument("--budget", type=int, default=6000, help="selection token budget")
    parser.add_argument("--hint-budget", type=int, default=3000, help="hint token budget")
    parser.add_argument("--sizes", default="100,1000,5000,20000")
    args = parser.parse_args()

    home = tempfile.mkdtemp(prefix="arcmemo-bench-")
    os.environ["ARCMEMO_HOME"] = home
    from arcmemo.core.tasks import load_tasks
    from arcmemo.llm import local, tokens
    from arcmemo.llm.backend import register_model
    from arcmemo.llm.catalog import ModelTraits
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.llm.fake import FakeModel
    from arcmemo.memory.store import Memory
    from arcmemo.selection import SelectionSettings
    from benchmarks.synthetic import synthetic_concepts
    from benchmarks.table import print_table

    why = local.unavailable(QWEN)
    if not why:
        local.ensure_server(QWEN)                            # llm.tokens counts with it while it runs
    tokenizer = Timed(tokens._tokenize)                      # the server's /tokenize, timed apart
    tokens._tokenize = tokenizer
    if why:
        real, counted_by = tokens.estimate_tokens, f"the estimate: Qwen's tokenizer is unavailable ({why})"
    else:
        real, counted_by = (lambda text: tokens.count_tokens(text, QWEN)), f"Qwen2.5's tokenizer ({QWEN}, /tokenize)"
    # the scripted select model, once declaring Qwen's tokenizer (as the embedded models do), once none
    modes = ([("qwen tokenizer", "qwen2")] if not why else []) + [("estimate", None)]
    clients = {}
    for fitted_with, tokenizer_trait in modes:
        name = f"scripted-{tokenizer_trait or 'none'}"
        fake = FakeModel(name, traits=ModelTraits(context=None, tokenizer=tokenizer_trait))
        fake.on("select_ps", first_names)
        register_model(name, fake)
        clients[fitted_with] = (fake, LLM(LLMSettings(solver_model=name, aux_model=name, select_model=name,
                                                      cache=False)))
    tasks = load_tasks("training").tasks[: args.tasks]
    settings = SelectionSettings(mode="ps", token_budget=args.budget, hint_budget=args.hint_budget)

    rows, ok, base = [], True, {}
    load_start = os.getloadavg()[0]
    for size in (int(s) for s in args.sizes.split(",")):
        memory = Memory(Path(home) / f"memory-{size}.db")
        memory.merge_many([(d, None) for d in synthetic_concepts(size)], actor="benchmark")
        for fitted_with, (fake, llm) in clients.items():
            memory.merge({"format": "ps", "name": f"fresh {fitted_with}", "kind": "structure"}, actor="benchmark")
            result = measure(memory, tasks, llm, fake, settings, real, tokenizer)  # ^ a new revision: a cold plan
            base.setdefault(fitted_with, result["plan_warm"])          # the smallest size: the baseline
            within = max(result["prompts"]) <= args.budget and max(result["hints"]) <= args.hint_budget
            target = PLAN_MS_TARGET.get(size)
            fast = target is None or result["plan_warm"] <= target
            ok = ok and within and fast
            rows.append((size, fitted_with, "/".join(sorted(result["forms"])), round(statistics.mean(result["shown"])),
                         f"{statistics.mean(result['prompts']):.0f} / {max(result['prompts'])}",
                         f"{max(result['hints'])}", "PASS" if within else "FAIL",
                         f"{min(result['errors']):+.1f}% / {max(result['errors']):+.1f}%",
                         f"{result['plan_warm']:.1f} / {result['plan_cold']:.0f}",
                         f"{result['plan_warm'] / base[fitted_with]:.1f}x",
                         f"<= {target} ms: {'PASS' if fast else 'FAIL'}" if target else "-", f"{result['count_warm']:.0f}",
                         f"{os.getloadavg()[0]:.1f}"))
        memory.close()
    for _, llm in clients.values():
        llm.close()
    local.stop_all()

    print(f"{time.strftime('%Y-%m-%d')}: budgets: prompt {args.budget}, hint {args.hint_budget} tokens; {len(tasks)} "
          f"ARC training tasks per size; sizes counted with {counted_by}; baseline: the warm plan at "
          f"{args.sizes.split(',')[0]} concepts, this run; {os.cpu_count()} cores, load average {load_start:.1f} at "
          f"the start")
    print_table(("concepts", "fitted with", "form", "shown", "prompt mean/max", "hint max", "in budget",
                 "est. error", "plan ms warm/cold", "x base", "target", "count ms", "load"), rows, right=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
