"""ACE's reflector: one finished task (train pairs only) read back with the bullets it was shown.

The reflector (role aux, step `ace_reflect`) sees the puzzle, the final program, the end of the
solver's reasoning (ACE's reflector reads the trace), how each of the solver's answers fared on
the train pairs and the feedback the solver was given, and the playbook bullets the task was
shown (with their ids). ACE lets the reflector refine its reflection over several rounds
(`reflect_rounds`): each further round shows it its last answer and asks for a better one. It answers one YAML mapping: a
diagnosis, a tag per shown bullet that bore on the attempt (helpful / harmful / neutral) and
up to MAX_INSIGHTS lessons (read leniently where it is safe: answers.py). An answer that
does not have that shape is asked again with the error (conversation.ask); a tag for an id
the task was not shown is dropped and reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arcmemo.core.gridtext import format_task
from arcmemo.core.parsing import ParseError
from arcmemo.methods.ace.answers import mapping_lines, yaml_answer
from arcmemo.methods.ace.playbook import Bullet, bullet_entry, canonical_id
from arcmemo.methods.contract import VERDICTS, AttemptView, Experience
from arcmemo.prompts import keep_tail, render_prompt

STEP = "ace_reflect"
MAX_INSIGHTS = 3
MAX_INSIGHT_CHARS = 600
MAX_DIAGNOSIS_CHARS = 1_000
MAX_ATTEMPTS_SHOWN = 6          # the last answers' verdicts; earlier ones rarely change the diagnosis
FEEDBACK_CHARS = 1_200          # the end of the last feedback the solver was given
REASONING_CHARS = 2_000         # the end of the solver's reasoning (the trace)
REFINE = ("Refine your reflection: check the diagnosis against the examples and the program again, keep only "
          "tags you are sure of and lessons that would help on another puzzle, and answer again in the same form.")
KEYS = ("diagnosis", "tags", "insights")


@dataclass
class Reflection:
    diagnosis: str
    tags: dict[str, str] = field(default_factory=dict)      # bullet id -> verdict (ids the task was shown)
    insights: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)        # ids tagged that the task was not shown


def _verdicts(attempt: AttemptView) -> str:
    marks = ", ".join(f"example {i} {'right' if ok else 'wrong'}" for i, ok in enumerate(attempt.train_correct, 1))
    where = f"thread {attempt.thread + 1}, answer {attempt.round + 1}"
    if attempt.program is None:
        return f"- {where}: no program{f' ({attempt.error})' if attempt.error else ''}"
    verdict = marks or "not run on the examples"
    return f"- {where}: {verdict}{f'; error: {attempt.error}' if attempt.error else ''}"


def attempts_text(experience: Experience) -> str:
    """The last answers' train verdicts, then the end of the last feedback the solver was given."""
    attempts = list(experience.attempts)[-MAX_ATTEMPTS_SHOWN:]
    if not attempts:
        return "(no answers recorded)"
    lines = [_verdicts(a) for a in attempts]
    feedback = next((a.feedback for a in reversed(experience.attempts) if a.feedback), None)
    if feedback:
        lines.append("\nThe last feedback the solver was given:\n" + keep_tail(feedback.strip(), FEEDBACK_CHARS))
    return "\n".join(lines)


def outcome_text(experience: Experience) -> str:
    if experience.passed_train:
        return "A program passed every example (train pair)."
    return "No program passed every example (train pair)."


def reflection_prompt(experience: Experience, shown: Sequence[Bullet]) -> str:
    bullets = "\n".join(bullet_entry(b) for b in shown) or "(none: the playbook was empty)"
    return render_prompt(STEP, puzzle=format_task(experience.task, with_test=False), outcome=outcome_text(experience),
                         attempts=attempts_text(experience),
                         program=(experience.program or "").strip() or "# (no usable program)", bullets=bullets,
                         reasoning=keep_tail((experience.reasoning or "").strip(), REASONING_CHARS) or "(none recorded)")


def refinement(prompt: str, previous: str) -> list[dict[str, str]]:
    """The messages of a further round: the prompt, the reflector's last answer, the ask to refine it."""
    return [{"role": "user", "content": prompt}, {"role": "assistant", "content": previous},
            {"role": "user", "content": REFINE}]


def _text(value: Any, where: str, limit: int) -> str:
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ParseError(f"{where}: expected text, got {type(value).__name__}")
    text = str(value).strip()
    if len(text) > limit:
        raise ParseError(f"{where}: {len(text):,} characters is too long (at most {limit:,})")
    return text


def parser(shown_ids: Sequence[str]):
    """A parse function for the reflector's answer, given the ids the task was shown."""
    shown = set(shown_ids)

    def parse(text: str) -> Reflection:
        value = yaml_answer(text, mapping_lines(KEYS))
        if not isinstance(value, dict):
            raise ParseError(f"expected a YAML mapping with keys {', '.join(KEYS)}, got {type(value).__name__}")
        unknown = sorted(str(k) for k in value if k not in KEYS)
        if unknown:
            raise ParseError(f"unknown key(s) {', '.join(unknown)}; the keys are {', '.join(KEYS)}")
        if "diagnosis" not in value:
            raise ParseError("missing key 'diagnosis'")
        reflection = Reflection(_text(value["diagnosis"], "diagnosis", MAX_DIAGNOSIS_CHARS))
        tags = value.get("tags") or {}
        if not isinstance(tags, dict):
            raise ParseError(f"tags: expected a mapping of bullet id to a verdict, got {type(tags).__name__}")
        for key, verdict in tags.items():
            verdict = str(verdict).strip().lower() if isinstance(verdict, str) else verdict
            if verdict not in VERDICTS:
                raise ParseError(f"tags.{key}: expected {', '.join(VERDICTS)}, got {verdict!r}")
            bullet = canonical_id(key, shown)
            if bullet is None:
                raise ParseError(f"tags: {key!r} is not a bullet id (ids look like ace-00001)")
            if bullet in shown:
                reflection.tags[bullet] = verdict
            else:
                reflection.dropped.append(bullet)
        insights = value.get("insights") or []
        if isinstance(insights, str):
            insights = [insights]
        if not isinstance(insights, list):
            raise ParseError(f"insights: expected a list of lessons, got {type(insights).__name__}")
        if len(insights) > MAX_INSIGHTS:
            raise ParseError(f"insights: {len(insights)} lessons is too many (at most {MAX_INSIGHTS})")
        reflection.insights = [t for i, item in enumerate(insights)
                               if (t := _text(item, f"insights[{i}]", MAX_INSIGHT_CHARS))]
        return reflection

    return parse


__all__ = ["Reflection", "STEP", "reflection_prompt", "refinement", "attempts_text", "outcome_text", "parser"]
