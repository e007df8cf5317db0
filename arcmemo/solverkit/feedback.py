"""Execution feedback for a retry: what went wrong with a program, as text for the model.

Shared by every solver that writes programs; each solver closes the message with its own
request for the answer format (`closing`).

It names the failing train pairs, the error category and the program's traceback, and
for a wrong output shows expected | yours | diff side by side with the differing cells
marked `X` (a wrong shape is said plainly instead). A program that redefined memory
helpers is told that the memory's versions ran instead. Only train pairs carry expected
outputs; for test inputs the feedback can only report that the program crashed there.

The released code's form (`last_attempt_feedback`, feedback "last-attempt") instead quotes
the last answer whole, then every error and every mismatched train output (the program's
grid, without the expected one beside it), and asks for a revision.
"""

from __future__ import annotations

from collections.abc import Sequence

from arcmemo.core.gridtext import dims, format_grid
from arcmemo.core.helpermodule import MODULE
from arcmemo.core.tasks import Grid, Task
from arcmemo.prompts import render_prompt
from arcmemo.solverkit.programs import ProgramRun

ERROR_TEXT = {
    "syntax": "has a syntax error",
    "exception": "raised an exception",
    "timeout": "ran out of time",
    "memory": "ran out of memory",
    "invalid_output": "returned something that is not a grid of colours 0-9",
    "crash": "crashed the process running it",
    "missing_entry": "does not define the function transform(grid)",
}

NOT_RUNNABLE = ("syntax", "missing_entry")
MAX_TRACEBACK_LINES = 12
MAX_DIFFS_SHOWN = 2
MAX_ERRORS_SHOWN = 2


def _lines(grid: Sequence[Sequence[int]]) -> list[str]:
    return format_grid(grid).split("\n")


def side_by_side(panels: Sequence[tuple[str, list[str]]], gap: str = "   ") -> str:
    """Text panels next to each other, each headed by its title, padded to equal height."""
    widths = [max([len(title)] + [len(line) for line in lines]) for title, lines in panels]
    height = max(len(lines) for _, lines in panels)
    rows = [gap.join(title.ljust(w) for (title, _), w in zip(panels, widths)).rstrip()]
    for r in range(height):
        cells = [(lines[r] if r < len(lines) else "").ljust(w) for (_, lines), w in zip(panels, widths)]
        rows.append(gap.join(cells).rstrip())
    return "\n".join(rows)


def diff_mask(expected: Grid, predicted: Sequence[Sequence[int]]) -> list[str]:
    """'.' where the cells agree, 'X' where they differ (same shape assumed)."""
    return ["".join("." if e == p else "X" for e, p in zip(erow, prow))
            for erow, prow in zip(expected, predicted)]


def compare_grids(expected: Grid, predicted: Sequence[Sequence[int]]) -> tuple[str, str]:
    """(headline, panels): expected vs predicted with the wrong cells marked `X`;
    for a shape mismatch the headline says so plainly and there is no diff panel."""
    if dims(expected) != dims(predicted):
        head = (f"wrong output shape: the expected output is {dims(expected)} "
                f"but your program returned {dims(predicted)}.")
        return head, side_by_side([("expected", _lines(expected)), ("yours", _lines(predicted))])
    mask = diff_mask(expected, predicted)
    wrong = sum(line.count("X") for line in mask)
    total = sum(len(line) for line in mask)
    head = f"wrong output: {wrong} of {total} cells are wrong."
    return head, side_by_side([("expected", _lines(expected)), ("yours", _lines(predicted)),
                               ("diff (X = wrong)", mask)])


def traceback_tail(message: str, limit: int = MAX_TRACEBACK_LINES) -> str:
    lines = [line for line in (message or "").rstrip().split("\n") if line.strip()]
    if len(lines) > limit:
        lines = ["..."] + lines[-limit:]
    return "\n".join(lines)


def _error_block(where: str, outcome) -> str:
    what = ERROR_TEXT.get(outcome.error or "", f"failed ({outcome.error})")
    text = f"{where}: your program {what}."
    detail = traceback_tail(outcome.message)
    if detail:
        text += "\n" + detail
    return text


def _examples(indices: Sequence[int]) -> str:
    nums = [str(i + 1) for i in indices]
    return ("example " if len(nums) == 1 else "examples ") + ", ".join(nums)


def _error_key(outcome) -> tuple:
    """Errors that are "the same" for feedback: same kind, and for exceptions same last line."""
    if outcome.error in ("timeout", "memory", "crash"):
        return (outcome.error,)
    last = traceback_tail(outcome.message, 1).split("\n")[-1]
    return (outcome.error, last)


def program_feedback(task: Task, run: ProgramRun, closing: str = "") -> str:
    """The feedback message for a program that failed a train pair or a test input,
    ended by `closing` (the solver's request for a corrected answer)."""
    n = len(task.train)
    failed = [i for i, ok in enumerate(run.train_correct) if not ok]
    parts: list[str] = []
    if run.error in NOT_RUNNABLE:        # a program-level error: say it once
        outcome = next(o for o in run.train_outcomes if o.error == run.error)
        parts.append(_error_block("Your program could not run", outcome)
                     .replace("could not run: your program", "could not run: it"))
    elif failed:
        passed = [i for i in range(n) if i not in failed]
        summary = f"Your program is wrong on {_examples(failed)} (of {n})."
        if passed:
            summary += f" It is correct on {_examples(passed)}."
        if any(o.ok for o in run.train_outcomes):
            summary += f" Mean cell accuracy over the examples: {run.mean_accuracy:.0%}."
        parts.append(summary)
        shown_errors: list[tuple] = []
        diffs = 0
        for i in failed:
            outcome = run.train_outcomes[i]
            where = f"Example {i + 1}"
            if not outcome.ok:
                key = _error_key(outcome)
                if len(shown_errors) >= MAX_ERRORS_SHOWN or key in shown_errors:
                    what = ERROR_TEXT.get(outcome.error or "", outcome.error)
                    parts.append(f"{where}: your program {what} (same kind of error as above).")
                else:
                    shown_errors.append(key)
                    parts.append(_error_block(where, outcome))
            elif diffs < MAX_DIFFS_SHOWN:
                diffs += 1
                head, panels = compare_grids(task.train[i].output, outcome.output)
                parts.append(f"{where}: {head}\n{panels}")
            else:
                same = dims(task.train[i].output) == dims(outcome.output)
                parts.append(f"{where}: wrong output"
                             + (f" (cell accuracy {run.train_accuracy[i]:.0%})." if same else
                                f" (wrong shape: expected {dims(task.train[i].output)}, "
                                f"got {dims(outcome.output)})."))
        also = [f"test input {j + 1} ({ERROR_TEXT.get(o.error or '', o.error)})"
                for j, o in enumerate(run.test_outcomes) if not o.ok]
        if also:
            parts.append("It also fails on " + ", ".join(also) + ".")
    else:
        parts.append(f"Your program is correct on all {n} examples, but it fails on a test input.")
        for j, outcome in enumerate(run.test_outcomes):
            if not outcome.ok:
                parts.append(_error_block(f"Test input {j + 1}", outcome))
    if run.helpers_rebound:
        parts.append(rebound_note(run.helpers_rebound))
    if closing:
        parts.append(closing.strip())
    return "\n\n".join(parts)


def rebound_note(names: Sequence[str]) -> str:
    """What the model is told when its program redefined memory helpers (the sandbox ran the memory's)."""
    listed = ", ".join(names)
    return (f"Note: your program defines its own {listed}, which the memory's helpers already provide; "
            f"your version was replaced by the memory's when it ran. Import {listed} from {MODULE} "
            "and call it as documented instead of writing it again.")


def last_attempt_feedback(task: Task, attempt: int, answer: str, *, run: ProgramRun | None = None,
                          problem: str | None = None) -> str:
    """What a retry shows after the opening prompt in the released code's form: the last answer
    (attempt number `attempt`), the reason it could not be read (`problem`) or its errors and
    every train output it got wrong (`run`), and the request to revise."""
    errors: list[str] = []
    mismatches: list[str] = []
    if problem is not None:
        errors.append(f"the answer could not be used: {problem}")
    for i, ok in enumerate(run.train_correct if run is not None else []):
        outcome = run.train_outcomes[i]
        if ok:
            continue
        if not outcome.ok:
            detail = traceback_tail(outcome.message)
            errors.append(f"Example {i + 1}: your program {ERROR_TEXT.get(outcome.error or '', outcome.error)}."
                          + (f"\n{detail}" if detail else ""))
        else:
            mismatches.append(f"- Example {i + 1} ({dims(outcome.output)}):\n{format_grid(outcome.output)}")
    parts = []
    if errors:
        parts.append("Errors:\n" + "\n".join(f"- {e}" for e in errors))
    if mismatches:
        parts.append("Outputs of your program that differ from the examples' expected outputs:\n"
                     + "\n".join(mismatches))
    outcomes = "\n\n".join(parts) or "Your program gave every example's expected output."
    return render_prompt("last_attempt_feedback", attempt=attempt, answer=answer.strip(), outcomes=outcomes).strip()
