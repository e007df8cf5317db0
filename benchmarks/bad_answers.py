"""What a bad model answer costs, against a well-formed one in the same run (issue 15, point 7).

    python benchmarks/bad_answers.py [--concepts 300]

A scripted model answers the select_ps and pseudocode steps; the memory is synthetic PS
concepts (benchmarks.synthetic) in a SQLite store. Each row times one step with a bad
answer (both the answer and the retry are bad) against the same step with a well-formed
answer, or compares sizes. Before the fix, a 50,000-name answer stalled 97-192 s (name
matching was quadratic), an alias bomb gave a 580 MB error message after 57 s, YAML
nested 30,000 deep crashed the interpreter, and a giant pseudocode made a 1.2 MB prompt.
Exit code 1 if any target fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concepts", type=int, default=300, help="synthetic PS concepts in the memory")
    args = parser.parse_args()

    home = tempfile.mkdtemp(prefix="arcmemo-bench-")
    os.environ["ARCMEMO_HOME"] = home
    from arcmemo.abstraction import SolutionInput, write_ps
    from arcmemo.core.answers import MAX_CARRIED_CHARS, MAX_LINE_CHARS
    from arcmemo.core.tasks import load_tasks
    from arcmemo.llm.backend import register_model
    from arcmemo.llm.client import LLM, LLMSettings
    from arcmemo.llm.fake import FakeModel
    from arcmemo.memory.store import Memory
    from arcmemo.methods import select
    from arcmemo.selection import SelectionSettings
    from arcmemo.selection.matching import NameMatcher
    from benchmarks.synthetic import synthetic_concepts
    from benchmarks.table import print_table

    fake = FakeModel("fake")
    register_model("fake", fake)
    llm = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", cache=False))
    memory = Memory(Path(home) / "memory.db")
    concepts = synthetic_concepts(args.concepts)
    memory.merge_many([(d, None) for d in concepts], actor="benchmark")
    task = load_tasks("training").tasks[0]
    good_names = "```yaml\n" + "".join(f"- {c['name']}\n" for c in concepts[:3]) + "```"
    runs = iter(range(10 ** 6))

    def select_time(answer: str) -> tuple[float, str]:
        fake.on("select_ps", lambda messages: answer)
        start = time.perf_counter()
        selection = select(task, memory, SelectionSettings(mode="ps", pass_index=next(runs)), llm)
        return time.perf_counter() - start, selection.error or ""

    def match_time_per_name(n: int) -> float:
        matcher = NameMatcher((i, c["name"]) for i, c in enumerate(synthetic_concepts(1000)))
        written = [f"made up concept name {i}" for i in range(n)]
        start = time.perf_counter()
        matcher.match(written)
        return (time.perf_counter() - start) / n

    def next_prompt_chars(pseudocode: str) -> int:
        fake.on("pseudocode", lambda messages: f"<pseudocode>\n{pseudocode}\n</pseudocode>\n<summary>s</summary>")
        fake.on("ps_abstract", lambda messages: "no concepts today")
        before = len(fake.calls_for("ps_abstract"))
        write_ps(memory, llm, SolutionInput(task, "def transform(grid):\n    return grid\n"), examples=[])
        return len(fake.calls_for("ps_abstract")[before].prompt)

    select_time(good_names)                       # warm up: imports, the store's caches
    baseline, _ = min(select_time(good_names) for _ in range(3))
    rows = []

    def row(case: str, unit: str, base: float | None, bad: float, target: str, ok: bool) -> None:
        def shown(value: float) -> str:
            return f"{int(value):,}" if unit == "chars" else f"{value:.3g}"

        ratio = "-" if base is None else f"{bad / base:.1f}x"
        rows.append((case, unit, "-" if base is None else shown(base), shown(bad), ratio, target,
                     "PASS" if ok else "FAIL"))

    names_50k = "```yaml\n" + "".join(f"- concept number {i}\n" for i in range(50_000)) + "```"
    seconds, _ = select_time(names_50k)
    row("50,000-name answer (1.1 MB)", "s", baseline, seconds, "<= 10x", seconds <= 10 * baseline)
    names_20k = "```yaml\n" + "".join(f"- c{i}\n" for i in range(20_000)) + "```"
    seconds, _ = select_time(names_20k)
    row("20,000 names within the size read", "s", baseline, seconds, "<= 3 s", seconds <= 3)
    small, large = match_time_per_name(500), match_time_per_name(50_000)
    row("name matching (1,000 concepts), per name: 50,000 vs 500 names", "us", small * 1e6, large * 1e6,
        "<= 3x (linear)", large <= 3 * small)
    seconds, error = select_time(f"```yaml\n{alias_bomb()}```")
    row("alias bomb", "s", baseline, seconds, "<= 10x", seconds <= 10 * baseline)
    row("alias bomb: error message", "chars", None, len(error), f"<= {MAX_LINE_CHARS + 100}",
        len(error) <= MAX_LINE_CHARS + 100)
    seconds, _ = select_time("```yaml\n- " + "9" * 5000 + "\n```")
    row("integer of 5,000 digits", "s", baseline, seconds, "<= 10x", seconds <= 10 * baseline)
    seconds, _ = select_time("```yaml\n" + "[" * 50_000 + "\n```")
    row("YAML nested 50,000 deep", "s", baseline, seconds, "<= 10x", seconds <= 10 * baseline)
    normal = next_prompt_chars("for each cell: recolour it by the table")
    giant = next_prompt_chars("repeat the step\n" * 11_000)
    row("giant pseudocode (176 KB): next prompt", "chars", normal, giant, f"<= +{MAX_CARRIED_CHARS + MAX_LINE_CHARS:,}",
        giant <= normal + MAX_CARRIED_CHARS + MAX_LINE_CHARS)
    llm.close()
    memory.close()

    print(f"{args.concepts} synthetic PS concepts; select_ps with a well-formed answer: {baseline:.3f} s")
    print_table(("case", "unit", "well-formed", "bad answer", "ratio", "target", "verdict"), rows)
    return 0 if all(r[-1] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
