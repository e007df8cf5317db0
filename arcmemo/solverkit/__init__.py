"""The solver kit: everything a solver plugin may use, in one place.

A solver is any class with a `name` and `solve(task, hint, ctx) -> SolveResult`,
registered under the entry point group `arcmemo.solvers` (see `discovery.py`). Plugins
import from this module only; what it exports is arcmemo's public plugin API:

- the contract (`contract.py`): `Task`, `Hint`, `SolveContext` (the model client, the
  sandbox and `SolverSettings`), and what a solver returns: `SolveResult`, `Attempt`,
  `Trace`;
- running programs (`programs.py`): `run_program` on a task's pairs in the sandbox,
  `rank_attempts`, `select_predictions` (two distinct guesses per test input), `usage_of`;
- the retry-with-feedback loop (`conversation.py`): `Conversation`, `Program`, `converse`,
  `solve_result`, and the execution feedback it sends (`feedback.py`); what the run's
  protocol asks of it `converse` does itself: the feedback's form
  (`SolverSettings.feedback`), retries the run decides (`SolveContext.wants_retry`: a yes
  or no, never a test output) and going on from an earlier pass (`SolveContext.resume`,
  from `SolveResult.state`);
- helpers from memory (`helpers.py`): `Hint.helpers` is a `MemoryHelpers`, the offered
  concepts' verified functions; `helpers_section` shows them in a prompt and `converse(...,
  helpers=hint.helpers)` makes them importable and records which a program called;
- reading an answer (`reading.py`): `read_program(text, ctx.settings.answer_reading)` takes
  the program out of an answer (`program_of(code, ...)` readies one given apart) as the run's
  protocol says: arcmemo's way or the ArcMemo authors' released code's; `converse` runs the
  programs the same way;
- text helpers: grids and puzzles as prompt text, model-answer parsing, prompt templates.

A solver never sees test outputs (`Task` has none) and never touches the store.
"""

from arcmemo.core.lazy import lazy_exports

# Each name of the API and the module defining it: a name is imported on first use, so whoever
# needs one part (`solvers list` reads the entry points; the run loop the contract) does not
# load the rest (the model client, the sandbox, the prompt templates).
__getattr__, __dir__ = lazy_exports(__name__, {
    "arcmemo.core.estimate": ["estimate_tokens"],
    "arcmemo.core.gridtext": ["dims", "format_grid", "format_task"],
    "arcmemo.core.parsing": ["ParseError", "definitions_only", "extract_code", "extract_fenced", "extract_tag",
                             "fenced_blocks", "parse_yaml_block"],
    "arcmemo.core.tasks": ["Grid", "Pair", "Task", "to_lists"],
    "arcmemo.llm.client": ["LLMError", "Usage"],
    "arcmemo.prompts": ["Templates"],
    "arcmemo.sandbox": ["RunOutcome"],
    "arcmemo.solverkit.contract": ["Attempt", "Hint", "SolveContext", "Solver", "SolveResult", "SolverSettings", "Trace"],
    "arcmemo.solverkit.conversation": ["Conversation", "Program", "converse", "solve_result"],
    "arcmemo.solverkit.discovery": ["ENTRY_POINT_GROUP", "PluginError", "available_solvers", "describe_solvers",
                                    "load_solver"],
    "arcmemo.solverkit.feedback": ["program_feedback"],
    "arcmemo.solverkit.helpers": ["MemoryHelpers", "OfferedHelper", "fits_section", "helpers_section",
                                  "memory_section"],
    "arcmemo.solverkit.programs": ["PairsCheck", "ProgramRun", "rank_attempts", "run_on_pairs", "run_program",
                                   "select_predictions", "usage_of"],
    "arcmemo.solverkit.reading": ["ANSWER_READINGS", "program_of", "read_program"],
})

__all__ = [
    # the contract
    "Solver", "SolveContext", "SolverSettings", "SolveResult", "Attempt", "Trace", "Hint",
    "Task", "Pair", "Grid", "to_lists",
    # discovery
    "ENTRY_POINT_GROUP", "PluginError", "available_solvers", "describe_solvers", "load_solver",
    # running programs
    "ProgramRun", "PairsCheck", "RunOutcome", "run_program", "run_on_pairs", "rank_attempts",
    "select_predictions", "usage_of",
    # the conversation
    "Conversation", "Program", "converse", "solve_result", "program_feedback",
    # helpers from memory
    "MemoryHelpers", "OfferedHelper", "helpers_section", "fits_section", "memory_section",
    # models
    "LLMError", "Usage",
    # text
    "format_grid", "format_task", "dims", "ParseError", "definitions_only", "extract_code", "extract_fenced",
    "extract_tag", "fenced_blocks", "parse_yaml_block", "Templates", "estimate_tokens",
    # reading an answer as the run's protocol says (SolverSettings.answer_reading)
    "ANSWER_READINGS", "read_program", "program_of",
]
