"""What one run of each of the paper's Table 4 settings costs at the listed prices: an estimate.

The paper gives its token use only as a plot (Figure 4), so the estimate is built from
parts: prompt sizes measured here in o4-mini's own tokens (o200k_base) on the 100 val100
puzzles — the solver's opening prompt, the PS selection prompt holding the paper's whole
memory (compressed_v1.json, 270 concepts), the OE selection prompt holding its 364
lessons (parsed_lessons.json), hints — times the number of calls the paper's protocol
makes, priced by arcmemo/data/models.yaml. Stated assumptions, each a flag:

- 3 threads per puzzle, 2 retries; a thread retries at depth d when it was not yet right,
  at the rate the paper's Table 4 (k=1 column) gives for that setting at depth d-1;
- an o4-mini answer (reasoning included) uses `--answer-tokens` (default 10,000) of its
  32,000-token limit; the "at the limit" column takes all 32,000 (a hard upper bound);
- a retry adds `--round-tokens` (1,500) to the conversation: the visible answer and the
  execution feedback;
- GPT-4.1 steps (caption, OE selection, memory writes, the cheatsheet build) answer with
  their 1,000-token limit (the cheatsheet curator: its 1,500-word sheet, ~2,000);
- selection runs once per thread (the threads are independent); a picture costs 255 tokens
  (gpt-4.1, one 512 px tile).

Each setting is estimated under both protocols (arcmemo/run/protocol.py). Under the
released code's (`-released`): PS and OE selection and the OE caption are made once per
puzzle, the PS select prompt holds the collapsed memory and the hint every custom type and
the other names by section (both measured), a retry shows the opening prompt with the last
answer only (one round's growth, not d rounds'), and the cheatsheet is curated from BARC's
160 seeds with 4,096-token answers. Its retries follow test results rather than train pairs:
the rates above are the test results already, so they stay. Grids are measured as arcmemo
writes them (digits); the released code's numpy text takes more tokens, left out here.

    python benchmarks/paper_cost.py [--answer-tokens 10000] [--runs 1]

Measure your own answer sizes with a few puzzles first (`arcmemo solve --config
arcmemo-ps --limit 5`, then `arcmemo calls usage --run RUN`) and give them here.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.shared_data import OE_LESSONS, PS_MEMORY, missing, reference, require
from benchmarks.table import print_table

PUZZLES, THREADS, LIMIT, AUX_ANSWER, SHEET_TOKENS, PICTURE_TOKENS = 100, 3, 32_000, 1_000, 2_000, 255
SEEDS = 44
BARC_SEEDS, RELEASED_SHEET_TOKENS = 160, 4_096      # the released code's cheatsheet build
# the paper's Table 4 (and Table 3 for continual), oracle@1 (k=1) at retry depth 0 and 1, in %
DEPTH_SCORES = {"baseline": (46.33, 57.83), "cheatsheet": (47.50, 56.67), "arcmemo-oe": (48.00, 56.67),
                "arcmemo-ps": (49.33, 58.00), "arcmemo-oe-continual": (46.33, 57.17)}


def count(text: str) -> int:
    from arcmemo.llm.tokens import count_tokens

    return count_tokens(text, "o4-mini")


def measure() -> dict[str, float]:
    """Mean prompt parts over the val100 puzzles, in o200k tokens."""
    from arcmemo.core.gridtext import format_task
    from arcmemo.core.tasks import load_tasks
    from arcmemo.memory.io.imports import import_file
    from arcmemo.memory.store import Memory
    from arcmemo.memory.views.render import render_oe, render_ps
    from arcmemo.prompts import render_prompt
    from arcmemo.selection.views import collapsed_view, released_hint
    from arcmemo_program_synthesis.templates import TEMPLATES as solve

    tasks = load_tasks("arc-agi-1/val100").tasks
    opening = [count(solve.render("system")) + count(solve.render("solve", puzzle=format_task(t), hint_section=""))
               for t in tasks]
    memory = Memory(Path(tempfile.mkdtemp()) / "paper.db")
    import_file(memory, require(PS_MEMORY), actor="benchmark")
    import_file(memory, require(OE_LESSONS), actor="benchmark")
    concepts, lessons, types = memory.list(format="ps"), memory.list(format="oe"), memory.custom_types()
    full = render_ps(concepts, types)
    select_ps = [count(render_prompt("select_ps", memory=full, memory_note="", puzzle=format_task(t)))
                 for t in tasks[:10]]
    collapsed = collapsed_view(concepts, types)
    select_collapsed = [count(render_prompt("select_ps", memory=collapsed, memory_note="", puzzle=format_task(t)))
                        for t in tasks[:10]]
    lessons_text = "\n\n".join(f"{i}. {render_oe([c]).strip()}" for i, c in enumerate(lessons, 1))
    caption = "- an observation about the grids.\n" * 50           # about a caption's length
    select_oe = count(render_prompt("select_oe", caption=caption, lessons=lessons_text, top_k=5))
    picked = [render_ps(concepts[i:i + 6], types) for i in range(0, 60, 6)]
    names = ", ".join(c.name for c in concepts)
    captioning = [count(render_prompt("caption", grid_format=render_prompt("caption_pictures"), puzzle=""))
                  + PICTURE_TOKENS * (len(t.train) + len(t.test_inputs)) for t in tasks]
    return {"puzzles": len(tasks), "solve_opening": statistics.mean(opening),
            "paper_concepts": len(concepts), "paper_lessons": len(lessons),
            "select_ps": statistics.mean(select_ps), "select_oe": select_oe,
            "select_ps_released": statistics.mean(select_collapsed),
            "memory_chars": len(full), "collapsed_chars": len(collapsed),
            "ps_hint": statistics.mean(count(p) for p in picked) + count(names),
            "ps_hint_released": statistics.mean(count(released_hint(concepts, concepts[i:i + 6], types))
                                                for i in range(0, 60, 6)),
            "oe_hint": AUX_ANSWER + statistics.mean(count(render_oe(lessons[i:i + 5])) for i in range(0, 50, 5)),
            "caption": statistics.mean(captioning)}


def estimate(name: str, m: dict[str, float], answer: int, round_tokens: int,
             released: bool = False) -> dict[str, float]:
    """Tokens per model and cost of one run of setting `name` (one value per o4-mini answer size),
    under arcmemo's protocol or (`released`) the released code's."""
    s0, s1 = DEPTH_SCORES[name]
    rounds = [1.0, 1 - s0 / 100, 1 - s1 / 100]                 # threads asked at depth 0, 1, 2
    ps_hint = m["ps_hint_released"] if released else m["ps_hint"]
    hint = {"baseline": 0, "cheatsheet": SHEET_TOKENS, "arcmemo-ps": ps_hint}.get(name, m["oe_hint"])
    calls = PUZZLES * THREADS * sum(rounds)
    growth = (lambda d: round_tokens * min(d, 1)) if released else (lambda d: round_tokens * d)   # last attempt only
    solver_in = PUZZLES * THREADS * sum(r * (m["solve_opening"] + hint + growth(d)) for d, r in enumerate(rounds))
    selections = PUZZLES * (1 if released else THREADS)         # once per puzzle, or once per thread
    o4_in, o4_calls, gpt_in, gpt_out = solver_in, calls, 0.0, 0.0
    if name == "arcmemo-ps":                                    # o4-mini reads the whole memory
        o4_in += selections * (m["select_ps_released"] if released else m["select_ps"])
        o4_calls += selections
    if name.startswith("arcmemo-oe"):                           # gpt-4.1: caption, then picks lessons
        gpt_in += selections * (m["caption"] + m["select_oe"])
        gpt_out += selections * 2 * AUX_ANSWER
    if name == "arcmemo-oe-continual":                          # two gpt-4.1 calls per write, ~60 writes
        gpt_in += 120 * 4_000
        gpt_out += 120 * AUX_ANSWER
    if name == "cheatsheet":                                    # the build, once: a rewrite per seed
        seeds, sheet = (BARC_SEEDS, RELEASED_SHEET_TOKENS) if released else (SEEDS, SHEET_TOKENS)
        gpt_in += seeds * (sheet + 3_000)
        gpt_out += seeds * sheet
    return {"o4_calls": o4_calls, "o4_in": o4_in, "o4_out": o4_calls * answer, "o4_out_limit": o4_calls * LIMIT,
            "gpt_in": gpt_in, "gpt_out": gpt_out}


def dollars(tokens: float, per_million: float) -> float:
    return tokens / 1e6 * per_million


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answer-tokens", type=int, default=10_000, help="o4-mini output per answer (assumed)")
    parser.add_argument("--round-tokens", type=int, default=1_500, help="conversation growth per retry (assumed)")
    parser.add_argument("--runs", type=int, default=1,
                        help="repeated runs of each setting, beyond the paper (its run0..run2 are the 3 threads of "
                             "one run, counted already)")
    args = parser.parse_args()
    from arcmemo.llm.catalog import load_catalog

    absent = [name for name in (PS_MEMORY, OE_LESSONS) if reference(name) is None]
    if absent:
        print("\n".join(missing(name) for name in absent))
        return 1
    catalog = load_catalog()
    o4, gpt = catalog.price("o4-mini"), catalog.price("gpt-4.1")
    m = measure()
    print(f"measured on {m['puzzles']} val100 puzzles (o200k_base tokens, means): solver opening prompt "
          f"{m['solve_opening']:,.0f}; PS selection prompt with all {m['paper_concepts']} concepts "
          f"{m['select_ps']:,.0f}; OE selection prompt with all {m['paper_lessons']} lessons {m['select_oe']:,.0f}; "
          f"PS hint (6 concepts + every name) {m['ps_hint']:,.0f}; OE hint (caption + 5 lessons) {m['oe_hint']:,.0f}; "
          f"caption request {m['caption']:,.0f}; released: PS selection prompt with the collapsed memory "
          f"{m['select_ps_released']:,.0f} (memory {m['collapsed_chars']:,} characters, against "
          f"{m['memory_chars']:,} in full), PS hint {m['ps_hint_released']:,.0f}")
    print(f"prices (per M tokens): o4-mini ${o4.input} in / ${o4.output} out; gpt-4.1 ${gpt.input} in / "
          f"${gpt.output} out; o4-mini answers of {args.answer_tokens:,} tokens (limit {LIMIT:,})\n")
    rows = []
    for name, released in ((n, r) for n in DEPTH_SCORES for r in (False, True)):
        e = estimate(name, m, args.answer_tokens, args.round_tokens, released)
        aux = dollars(e["gpt_in"], gpt.input) + dollars(e["gpt_out"], gpt.output)
        typical = dollars(e["o4_in"], o4.input) + dollars(e["o4_out"], o4.output) + aux
        bound = dollars(e["o4_in"], o4.input) + dollars(e["o4_out_limit"], o4.output) + aux
        label = name + ("-released" if released else "")
        rows.append([label, f"{e['o4_calls']:,.0f}", f"{e['o4_in'] / 1e6:.1f}M", f"{e['o4_out'] / 1e6:.1f}M",
                     f"${aux:,.0f}", f"${typical:,.0f}", f"${bound:,.0f}", f"${typical * args.runs:,.0f}"])
    print_table(["setting", "o4-mini calls", "o4-mini in", "o4-mini out", "gpt-4.1", "one run",
                 "one run at the limit", f"{args.runs} runs"], rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
