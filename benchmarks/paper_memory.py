"""Benchmark: what the select model is shown of the ArcMemo paper's PS memory, per model.

The paper's released memory (../shared/reference/arcmemo/compressed_v1.json, 270 PS
concepts written by GPT-4.1) is imported into a scratch store; for each select model
(o4-mini, gpt-4.1-mini, the embedded `local`) the selection budgets are the ones a run
would use (arcmemo.selection.budget.budgets_for: shares of the context window models.yaml
states), and the PS selection prompt is planned for ARC-AGI-1 evaluation puzzles exactly
as a run plans it (selection.ps.plan_prompt). Printed per model: its context, the
budgets, the prompt's size counted by the model's own tokenizer (o200k_base through
bpe-openai for the OpenAI models; Qwen2.5's through the embedded llama.cpp server when
the [local] extra is installed, else the estimate, as the table says), the level chosen
(full, collapsed, compressed, prefiltered) and how many concepts were shown.

Baseline, measured in the same run: the former fixed budgets (6,000 tokens for the select
prompt, 3,000 for the hint) with the same model and puzzles. The ratio is the budget a
run now gets over that baseline.

Targets: o4-mini is shown every concept in full on every puzzle (the paper's protocol);
no prompt sent exceeds its budget in the model's tokens. A puzzle whose grids alone fill
the budget gets no prompt (and no hint): counted as "not sent". Exit status 1 when a
target is missed.

    python benchmarks/paper_memory.py [--tasks 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.shared_data import PS_MEMORY, missing, reference, require  # noqa: E402
from benchmarks.table import print_table  # noqa: E402

MODELS = ("o4-mini", "gpt-4.1-mini", "local")
FULL_FOR = "o4-mini"                # the paper's select model: must see everything in full
OLD_BUDGETS = (6000, 3000)          # the fixed defaults before budgets followed the context
QWEN = "local-small"                # Qwen2.5-Coder-0.5B: the same tokenizer as the 1.5B `local`


def paper_memory():
    from arcmemo.memory.io.imports import import_file
    from arcmemo.memory.store import Memory

    memory = Memory(Path(tempfile.mkdtemp()) / "paper.db")
    import_file(memory, require(PS_MEMORY), actor="benchmark")
    return memory


def client(model: str):
    """A client whose roles are `model`; nothing is ever sent (the address is unroutable)."""
    from arcmemo.llm.client import LLM, LLMSettings

    endpoint = {} if model.startswith("local") else {"base_url": "http://127.0.0.1:9/v1", "api_key": "unused"}
    return LLM(LLMSettings(solver_model=model, aux_model=model, select_model=model, **endpoint))


def measure(lib, tasks, llm, budgets: tuple[int, int]) -> dict:
    """Plan the select prompt for every task within `budgets`; count it with the model's tokens."""
    from arcmemo.llm.counting import counter_for
    from arcmemo.selection import SelectionSettings
    from arcmemo.selection.ps import plan_prompt

    count = counter_for(llm, "select")
    settings = SelectionSettings(mode="ps", token_budget=budgets[0], hint_budget=budgets[1])
    forms, shown, sizes, unsent = Counter(), [], [], 0
    for task in tasks:
        plan = plan_prompt(task, lib, settings, llm)
        if not plan.shown:          # the puzzle alone fills the budget: no prompt is sent, the task gets no hint
            unsent += 1
            continue
        forms[plan.stats["form"]] += 1
        shown.append(len(plan.shown))
        sizes.append(count.messages(plan.messages))
    return {"forms": forms, "shown": shown or [0], "sizes": sizes or [0], "unsent": unsent,
            "over": sum(s > budgets[0] for s in sizes)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10, help="ARC-AGI-1 evaluation puzzles to plan prompts for")
    args = parser.parse_args()
    if reference(PS_MEMORY) is None:
        print(f"{missing(PS_MEMORY)}: nothing to measure")
        return 1
    from arcmemo.core.tasks import load_tasks
    from arcmemo.llm import local
    from arcmemo.memory.views.library import ALL_TYPES, FULL, library
    from arcmemo.selection.budget import budgets_for

    memory = paper_memory()
    lib = library(memory, "ps")
    whole = lib.text(None, FULL, ALL_TYPES)
    tasks = load_tasks("evaluation").tasks[: args.tasks]
    print(f"{PS_MEMORY}: {len(lib)} PS concepts, {len(lib.custom_types)} custom types; "
          f"{len(tasks)} evaluation puzzles\n")
    rows, ok = [], True
    problem = local.unavailable(QWEN)
    if problem:
        print(f"the embedded model is counted with the estimate: {problem}\n")
    try:
        for model in MODELS:
            if model.startswith("local") and not problem:
                local.ensure_server(QWEN)        # its /tokenize counts Qwen2.5's tokens
            llm = client(model)
            try:
                budgets = budgets_for(llm)
                from arcmemo.llm.counting import counter_for
                from arcmemo.llm.tokens import tokenizer_for

                memory_tokens = counter_for(llm, "select")(whole)
                counted = tokenizer_for(model, llm.traits("select")).name
                for label, used in (("now", budgets), ("baseline", OLD_BUDGETS)):
                    m = measure(lib, tasks, llm, used)
                    full_everywhere = m["forms"] == Counter({"full": len(tasks)}) and min(m["shown"]) == len(lib)
                    targets = [m["over"] == 0] + ([full_everywhere] if model == FULL_FOR and label == "now" else [])
                    passed = all(targets)
                    ok &= passed or label == "baseline"
                    rows.append([model, label, llm.context_window("select"), used[0], used[1],
                                 f"{used[0] / OLD_BUDGETS[0]:.1f}x", counted, memory_tokens,
                                 ", ".join([f"{f} {n}" for f, n in m["forms"].items()]
                                           + ([f"not sent {m['unsent']}"] if m["unsent"] else [])),
                                 f"{statistics.mean(m['shown']):.0f}/{len(lib)}",
                                 f"{statistics.mean(m['sizes']):.0f}/{max(m['sizes'])}",
                                 "-" if label == "baseline" else ("PASS" if passed else "FAIL")])
            finally:
                llm.close()
    finally:
        local.stop_all()
    print_table(["select model", "budgets", "context", "select budget", "hint budget", "vs baseline",
                 "counted with", "memory in full", "level (puzzles)", "shown", "prompt mean/max", "target"], rows)
    print(f"\ntargets: {FULL_FOR} shown all {len(lib)} concepts in full on every puzzle; no prompt over its "
          f"budget -> {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
