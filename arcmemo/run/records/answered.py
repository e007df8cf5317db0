"""Who answered a task, in words: the one wording of a task's answers that every view uses
(`runs show`, the web task and run pages, the report), so none can say "solved" beside a
model's wrong program without saying that memory's fit answered.

A task's answers are its threads' steps (run/stages/scoring.py thread_record): the model's
programs, and memory's fits (stages/probe.py: a helper call giving every train output, run as
a candidate; label "memory fit"), each with its train verdict and, in a scored run, its
verdict on the test inputs. Which of them were submitted is the task's `origins` (per test
input, where each submitted grid came from: stages/candidates.py); a run from before origins
were recorded falls back to `fit_answers` (the fits whose output was submitted) and, for the
model's steps, to matching their test outputs against the predictions.

`task_answers(outcome)` gives the verdict (agreeing with the score: "solved by memory's fit"),
the train pairs' verdict counting memory's fit, every answer with where it came from, the
model's error said as the model's, and the faults (what broke, by stage).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arcmemo.core.choice import FIT_LABEL, WRONG_OUTPUT, describe_origin

MEMORY, MODEL = "memory", "model"
SOURCE_WORDS = {MEMORY: "memory's fit", MODEL: "the model"}
SOLVER_WORDS = {MEMORY: "memory's fit", MODEL: "the model's program"}
FAULT_WORDS = {"solver": "the solver", "sandbox": "the sandbox", "probe": "memory's probe",
               "read": "the memory method's read"}      # what broke, by stage (TaskOutcome.faults)


@dataclass(frozen=True)
class Answer:
    """One answer to a task: where it came from (an Origin record: memory's fit and its call, or
    the model's program by thread, sample and retry round), how it did, whether it was submitted."""

    origin: dict[str, Any]
    passed_train: bool
    train: str                   # its train verdict in words
    right: tuple[bool, ...] | None   # per test input (None: the run was not scored)
    attempts: tuple[int, ...]    # the submitted attempts it made (1, 2); () not submitted
    cut: str | None = None       # said when the model's answer ended at the token limit

    @property
    def submitted(self) -> bool:
        return bool(self.attempts)

    @property
    def by(self) -> str:
        return str(self.origin.get("by"))

    @property
    def solved(self) -> bool:
        return bool(self.right) and all(self.right)

    def test_text(self) -> str | None:
        if self.right is None:
            return None
        if all(self.right):
            return "right on the test"
        if any(self.right):
            return f"right on {sum(self.right)} of {len(self.right)} test inputs"
        return "wrong on the test"

    def text(self) -> str:
        """'memory's fit flip_grid(grid, 'horizontal'): gave every train output, right on the
        test (submitted)'."""
        said = ", ".join(part for part in (self.train, self.test_text(), self.cut) if part)
        return f"{describe_origin(self.origin)}: {said} ({self.submitted_text()})"

    def submitted_text(self) -> str:
        if not self.attempts:
            return "not submitted"
        return f"submitted as attempt {' and '.join(map(str, self.attempts))}"


@dataclass(frozen=True)
class TaskAnswers:
    """A task's answers in words (module docstring)."""

    verdict: str                 # "solved by memory's fit", "passed the train pairs, wrong on test", ...
    solved_by: tuple[str, ...]   # who made the right submitted grids of a solved task: MEMORY, MODEL
    tone: str                    # "ok" (solved), "bad" (not solved), "muted" (not scored)
    train: str                   # the train pairs: "passed by memory's fit", "passed", "failed"
    answers: tuple[Answer, ...]
    error: str | None            # the model's error, said as the model's (None: none, or nothing to say)
    faults: tuple[str, ...]      # what broke under the task, by stage

    def lines(self) -> list[str]:
        """What `runs show --task` says of the answers, one line each (faults and error too)."""
        lines = [f"{self.verdict}; train pairs {self.train}"]
        lines += [f"  {a.text()}" for a in self.answers]
        if self.error:
            lines.append(f"  {self.error}")
        lines += [f"  broke: {fault}" for fault in self.faults]
        return lines


def task_answers(outcome: Any) -> TaskAnswers:
    """The one wording of a task outcome's answers (run/records/outcome.py TaskOutcome, any pass)."""
    answers = _answers(outcome)
    scored = bool(outcome.scores)
    solved_by = _solvers(answers) if scored and outcome.solved else ()
    verdict, tone = _verdict(outcome, answers, scored, solved_by)
    return TaskAnswers(verdict=verdict, solved_by=solved_by, tone=tone, train=_train(outcome, answers), answers=tuple(answers),
                       error=_error(outcome, answers), faults=tuple(fault_texts(outcome.faults or [])))


def attempt_sources(outcome: Any) -> list[list[str]]:
    """Per test input, who made each submitted attempt, in a few words ("memory's fit", "the
    model"), for the pictures' labels: from the task's origins, or for a run from before them,
    matched against memory's submitted fits and the model's steps."""
    rows = outcome.origins or []
    if not any(rows):
        rows = _matched_origins(outcome)
    return [[SOURCE_WORDS.get(str(o.get("by")), "") for o in row] for row in rows]


def _matched_origins(outcome: Any) -> list[list[dict[str, Any]]]:
    answered = set(outcome.fit_answers or [])
    steps = [(s, thread.get("thread") or 0) for thread in outcome.threads or [] for s in thread.get("steps") or []]

    def made(step: dict[str, Any], j: int, grid: Any) -> bool:
        outputs = step.get("test_outputs") or []
        return j < len(outputs) and outputs[j] == grid

    rows = []
    for j, grids in enumerate(outcome.predictions or []):
        row = []
        for grid in grids or []:
            memory = any(s.get("label") == FIT_LABEL and fit_call(s) in answered and made(s, j, grid) for s, _ in steps)
            model = any(s.get("label") != FIT_LABEL and made(s, j, grid) for s, _ in steps)
            row.append({"by": MEMORY if memory else MODEL if model else "unknown"})
        rows.append(row)
    return rows


def submitted_fit_text(calls: Sequence[str]) -> str:
    """A task whose submitted attempts held memory's fit, said in a comparison (which reads the
    summaries, not who was right): "memory's fit rotate_grid(grid, 2) submitted"."""
    return "memory's fit" + (f" {', '.join(calls)}" if calls else "") + " submitted"


def fault_texts(faults: Sequence[dict[str, Any]]) -> list[str]:
    """Each fault in words: 'the solver (thread 1): solver raised ValueError: ...'."""
    said = []
    for fault in faults:
        where = f" (thread {int(fault['thread']) + 1})" if isinstance(fault.get("thread"), int) else ""
        error = str(fault.get("error") or "").strip().splitlines()
        said.append(f"{FAULT_WORDS.get(fault.get('stage'), str(fault.get('stage')))}{where}: "
                    f"{error[0][:200] if error else 'no message'}")
    return list(dict.fromkeys(said))


def fit_call(step: dict[str, Any]) -> str | None:
    """The helper call a memory fit's step ran: its program is `transform(grid) = call`
    (probe.Fit.program), so the call is what its last line returns."""
    code = (step.get("code") or "").rstrip().splitlines()
    last = code[-1].strip() if code else ""
    return last[len("return "):].strip() if last.startswith("return ") else None


def _answers(outcome: Any) -> list[Answer]:
    """Memory's fits (once each, whichever threads hold them), then the model's steps in thread order."""
    submitted = _submitted(outcome)
    fits: dict[str, Answer] = {}
    model: list[Answer] = []
    unnamed = iter(outcome.helper_fits or outcome.fit_answers or [])
    for thread in outcome.threads or []:
        seen_fits = 0
        for step in thread.get("steps") or []:
            if step.get("label") == FIT_LABEL:
                call = fit_call(step) or next(unnamed, None) or f"#{seen_fits + 1}"
                seen_fits += 1
                if call not in fits:
                    origin = {"by": MEMORY, "call": call}
                    fits[call] = _answer(step, origin, submitted(origin, step))
            else:
                origin = {"by": MODEL, "thread": int(thread.get("thread") or 0), "sample": step.get("sample"),
                          "round": step.get("round")}
                model.append(_answer(step, origin, submitted(origin, step)))
    for call in outcome.fit_answers or []:        # a fit submitted, its step not recorded (a run from before)
        if call not in fits:
            fits[call] = Answer({"by": MEMORY, "call": call}, True, "gave every train output", None, (1,))
    return [*fits.values(), *model]


def _answer(step: dict[str, Any], origin: dict[str, Any], attempts: tuple[int, ...]) -> Answer:
    right = step.get("test_correct")
    return Answer(origin=origin, passed_train=bool(step.get("passed_train")), train=_train_text(step, origin),
                  right=None if right is None else tuple(bool(v) for v in right), attempts=attempts,
                  cut=_cut_text(step))


def _train_text(step: dict[str, Any], origin: dict[str, Any]) -> str:
    if step.get("passed_train"):
        return "gave every train output" if origin.get("by") == MEMORY else "passed the train pairs"
    error = (step.get("error") or "").strip()
    if error and not step.get("code"):
        return f"no program ({error.splitlines()[0][:120]})"
    pairs = list(step.get("train_correct") or [])
    right = f" ({sum(bool(c) for c in pairs)} of {len(pairs)} right)" if pairs else ""
    if error and error != WRONG_OUTPUT:
        return f"failed on the train pairs{right}: {error.splitlines()[0][:120]}"
    return f"wrong on the train pairs{right}"


def _cut_text(step: dict[str, Any]) -> str | None:
    if not step.get("cut"):
        return None
    return ("cut at the token limit (max_tokens); its complete program before the cut was used" if step.get("code")
            else "cut at the token limit (max_tokens) before a complete program")


def _submitted(outcome: Any):
    """Which submitted attempts (1, 2) an answer (its origin and step) made, on any test input: by
    the task's origins, or for a run from before them, by `fit_answers` (memory's) and the
    predictions (the model's; memory's too, for its position)."""
    rows = outcome.origins or []
    if any(rows):
        def key(origin: dict[str, Any]) -> tuple:
            return (origin.get("by"), origin.get("call")) if origin.get("by") == MEMORY else (
                origin.get("by"), origin.get("thread") or 0, origin.get("sample"), origin.get("round"))
        made: dict[tuple, set[int]] = {}
        for row in rows:
            for position, origin in enumerate(row, 1):
                made.setdefault(key(origin), set()).add(position)
        return lambda origin, step: tuple(sorted(made.get(key(origin), ())))
    answered = set(outcome.fit_answers or [])
    predictions = outcome.predictions or []

    def matched(origin: dict[str, Any], step: dict[str, Any]) -> tuple[int, ...]:
        outputs = step.get("test_outputs") or []
        if origin["by"] == MEMORY and origin["call"] not in answered:
            return ()
        if not outputs or len(outputs) > len(predictions) or any(
                out is None or out not in predictions[j] for j, out in enumerate(outputs)):
            return (1,) if origin["by"] == MEMORY else ()      # memory's, submitted: its place not known
        return tuple(sorted({predictions[j].index(out) + 1 for j, out in enumerate(outputs)}))
    return matched


def _verdict(outcome: Any, answers: list[Answer], scored: bool, solved_by: tuple[str, ...]) -> tuple[str, str]:
    """The task's verdict, agreeing with its score (the submitted attempts'), saying by whom."""
    memory = [a for a in answers if a.by == MEMORY and a.submitted]
    if not scored:
        if memory:
            return "answered by memory's fit (not scored)", "muted"
        return ("passed the train pairs (not scored)" if outcome.passed_train
                else "failed the train pairs (not scored)"), "muted"
    if outcome.solved:
        return "solved by " + " and ".join(SOLVER_WORDS[w] for w in solved_by), "ok"
    if memory:
        return "memory's fit gave every train output, wrong on test", "bad"
    if outcome.passed_train:
        return "passed the train pairs, wrong on test", "bad"
    return "not solved", "bad"


def _solvers(answers: list[Answer]) -> tuple[str, ...]:
    """Who made the submitted grids that were right: memory's fit, the model's program, or both."""
    right = [a for a in answers if a.submitted and a.right and any(a.right)]
    who = tuple(w for w in (MEMORY, MODEL) if any(a.by == w for a in right))
    if not who:       # steps that do not say (a run from before test verdicts): memory's, if its fit was submitted
        who = (MEMORY,) if any(a.by == MEMORY and a.submitted for a in answers) else (MODEL,)
    return who


def _train(outcome: Any, answers: list[Answer]) -> str:
    by_memory = any(a.by == MEMORY and a.passed_train and a.submitted for a in answers)
    return train_words(bool(outcome.passed_train), by_memory)


def train_words(by_model: bool, by_memory: bool) -> str:
    """The train pairs' verdict, memory's fit counted: 'passed by memory's fit' where the model's
    program failed (`by_memory`: a submitted fit, which gives every train output)."""
    if by_model:
        return "passed" + (" (and by memory's fit)" if by_memory else "")
    return "passed by memory's fit (the model's program failed)" if by_memory else "failed"


def _error(outcome: Any, answers: list[Answer]) -> str | None:
    """The task's error said as the model's last answer's; when memory's fit was submitted
    instead, said so. An error that is a fault (a solver that raised) is said with the faults."""
    error = (outcome.error or "").strip()
    said_elsewhere = [str(f.get("error") or "").strip() for f in outcome.faults or []]
    said_elsewhere += [(s.get("error") or "").strip() for t in outcome.threads or [] for s in t.get("steps") or []
                       if s.get("label") != FIT_LABEL]
    if not error or error in said_elsewhere:
        return None
    said = "a train output was wrong" if error == WRONG_OUTPUT else error.splitlines()[0][:300]
    if any(a.by == MEMORY and a.submitted for a in answers):
        return f"the model's last answer: {said} (memory's fit was submitted)"
    return f"the model's last answer: {said}"


__all__ = ["Answer", "TaskAnswers", "task_answers", "train_words", "submitted_fit_text", "attempt_sources",
           "fault_texts", "fit_call", "MEMORY", "MODEL"]
