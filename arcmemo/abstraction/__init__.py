"""MEMWRITE: turning verified solutions into memory (docs/architecture.md), and seeding.

- `write_ps`: solution -> pseudocode + summary -> PS concepts merged by name (ps.py)
- `write_oe`: solution -> post-hoc derivation -> OE lessons (oe.py)
- `job.py`: what both writers share (the sample index, usage, failure records, the
  one-transaction store)
- seeds: `seedfile.py` reads a seed (ours or BARC's), `annotations.py` ingests the hand
  annotations with no model; the `arcmemo seed` loop itself is run-layer work
  (`arcmemo/run/jobs/seeding.py`).

The default memory `memory.db` at the repository root is built from the annotated seeds
alone, deterministically and with no model, by this one command (run at the repo root):

    rm -f memory.db && arcmemo seed seeds/ --db memory.db --annotations-only

(`--annotations-only` only guards against a configured aux model; with none configured,
`arcmemo seed seeds/ --db memory.db` does the same.)

tests/test_memory_db.py rebuilds it in a temporary directory and compares the
`concepts export` YAML of both, so it cannot drift from seeds/.
"""

from arcmemo.core.lazy import lazy_exports

# each name imported from its module on first use: a solve imports the few-shot examples'
# module (fewshot.py) at start-up, and the writers (their steps, parsing and validation)
# when it first writes memory
__getattr__, __dir__ = lazy_exports(__name__, {
    "arcmemo.abstraction.oe": ["write_oe"],
    "arcmemo.abstraction.ps": ["write_ps"],
    "arcmemo.abstraction.records": ["SolutionInput", "WriteResult"],
})

__all__ = ["write_ps", "write_oe", "WriteResult", "SolutionInput"]
