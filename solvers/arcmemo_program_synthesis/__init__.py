"""program-synthesis: ArcMemo's evaluation loop as an arcmemo solver plugin.

Parallel samples of a `transform(grid)` program, each checked on the train pairs in the
sandbox and retried with execution feedback; the top-2 distinct predictions per test input.
"""

from arcmemo_program_synthesis.solver import ProgramSynthesisSolver

__all__ = ["ProgramSynthesisSolver"]
