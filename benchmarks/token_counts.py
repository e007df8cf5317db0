"""Benchmark: does the token estimate hold against real tokenizers on ARC prompts?

Prompts (all real arcmemo text): the puzzles of ARC-AGI-1 training tasks as the solver
sees them (grids, about one token per cell for Qwen); PS selection prompts holding the
ArcMemo paper's released memory (../shared/reference/arcmemo/compressed_v1.json, in
slices) and a puzzle; program-synthesis solve prompts with a hint; the seed solutions'
code. Each is counted by the real tokenizer and by `estimate_tokens` with that
tokenizer's digit grouping; the baseline is the former estimate, characters / 3.5.

Real tokenizers: Qwen2.5 (the embedded model's llama.cpp server `/tokenize`; needs the
[local] extra: the server is started for this script) and OpenAI's o200k_base through
bpe-openai (tiktoken-compatible, its BPE files shipped in the wheel).
Target: every prompt within 10% of the real count. Exit status 1 when a target is missed.

    python benchmarks/token_counts.py [--tasks 20] [--model local-small]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.shared_data import PS_MEMORY, missing, reference  # noqa: E402

TARGET = 0.10


def prompts(n_tasks: int) -> dict[str, list[str]]:
    from arcmemo.core.gridtext import format_task
    from arcmemo.core.tasks import load_tasks
    from arcmemo.memory.views.render import render_ps
    from arcmemo.prompts import ARCMEMO_TEMPLATES as select
    from arcmemo_program_synthesis.templates import TEMPLATES as solve

    tasks = load_tasks("training").tasks[:n_tasks]
    puzzles = [format_task(t) for t in tasks]
    out = {"puzzles (grids)": puzzles}
    concepts = _paper_concepts()
    if concepts:
        size = max(1, len(concepts) // n_tasks)
        out["select_ps + paper memory"] = [
            select.render("select_ps", memory=render_ps(concepts[i * size:(i + 1) * size]), memory_note="",
                          puzzle=puzzle)
            for i, puzzle in enumerate(puzzles)]
        out["solve + hint"] = [
            solve.render("system") + "\n" + solve.render("solve", puzzle=puzzle,
                                                         hint_section=render_ps(concepts[i:i + 3]))
            for i, puzzle in enumerate(puzzles)]
    out["seed code"] = [p.read_text() for p in sorted((ROOT / "seeds").glob("*.py"))]
    return out


def _paper_concepts():
    paper_memory = reference(PS_MEMORY)
    if paper_memory is None:
        print(f"({missing(PS_MEMORY)}: selection and solve prompts left out)")
        return []
    from arcmemo.memory.io.imports import import_file
    from arcmemo.memory.store import Memory

    memory = Memory(Path(tempfile.mkdtemp()) / "paper.db")
    import_file(memory, paper_memory, actor="benchmark")
    return memory.list(format="ps")


def tokenizers(model: str) -> dict[str, tuple]:
    """name -> (count function, digit group) for each real tokenizer that can be had."""
    from arcmemo.llm import local, tokens

    found = {}
    problem = local.unavailable(model)
    if problem:
        print(f"Qwen2.5 not measured: {problem}")
    else:
        server = local.ensure_server(model)
        found["Qwen2.5 (llama.cpp)"] = (lambda text: tokens._tokenize(server.address, text), 1)
    encoding, why = tokens._encoding("o200k_base")
    if encoding is None:
        print(f"o200k_base not measured: {why}")
    else:
        found["o200k_base (bpe-openai)"] = (lambda text: len(encoding.encode(text, disallowed_special=())), 3)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--model", default="local-small", help="embedded model whose tokenizer counts")
    args = parser.parse_args()
    from arcmemo.llm import local
    from arcmemo.llm.tokens import estimate_tokens

    corpus = prompts(args.tasks)
    ok = True
    try:
        found = tokenizers(args.model)
        print(f"{'tokenizer':<22} {'prompts':<26} {'n':>3} {'real':>8} {'estimate':>8} "
              f"{'mean err':>8} {'max err':>8} {'chars/3.5 max err':>17}  target")
        for name, (count, group) in found.items():
            for kind, texts in corpus.items():
                real = [count(t) for t in texts]
                guess = [estimate_tokens(t, group) for t in texts]
                old = [math.ceil(len(t) / 3.5) for t in texts]
                errors = [abs(g - r) / r for g, r in zip(guess, real)]
                old_max = max(abs(o - r) / r for o, r in zip(old, real))
                passed = max(errors) <= TARGET
                ok &= passed
                print(f"{name:<22} {kind:<26} {len(texts):>3} {sum(real):>8} {sum(guess):>8} "
                      f"{100 * sum(errors) / len(errors):>7.1f}% {100 * max(errors):>7.1f}% "
                      f"{100 * old_max:>16.1f}%  {'PASS' if passed else 'FAIL'}")
        if not found:
            print("no real tokenizer available: nothing measured")
            ok = False
    finally:
        local.stop_all()
    print(f"target: every prompt within {TARGET:.0%} of the real count -> {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
