"""No model answer can crash a run (issue 15).

Every step that parses model output is fed, through the scripted fake model and the real
client (call log included), a seeded corpus of at least 200 malformed answers
(tests/malformed_corpus.py). For each: no exception escapes, the answer is in the call
log, the step's own record says what went wrong (a fallback selection with its error, a
WriteFailure with the raw answer, a failed attempt), and the memory holds only valid
concepts. The crashers reported in the issue each have a regression test of their own,
and a whole `solve` run with poisoned answers finishes with them recorded.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter, deque
from types import SimpleNamespace

import pytest
from malformed_corpus import BIG_INT, SURROGATE, alias_bomb, corpus, json_answer, yaml_answer
from runner_support import LEARNED, PS_CONCEPT, TASK_IDS, script_run, seed_code, task_of

from arcmemo.abstraction import SolutionInput, write_oe, write_ps
from arcmemo.core import safeyaml
from arcmemo.core.answers import (
    MAX_ANSWER_CHARS,
    MAX_CARRIED_CHARS,
    MAX_LINE_CHARS,
    MAX_NAME_CHARS,
    MAX_NAMES,
    ask_parsed,
    read_answer,
)
from arcmemo.core.parsing import ParseError, parse_yaml_block
from arcmemo.core.tasks import Pair, Task
from arcmemo.core.text import clean_line, clean_text, utf8_safe
from arcmemo.llm.log import CallLog
from arcmemo.memory.schema.merge_rule import normalize
from arcmemo.memory.store import Memory
from arcmemo.memory.store.models import WriteFailure
from arcmemo.methods import select
from arcmemo.methods.dynamic_cheatsheet.cumulative import update_cheatsheet
from arcmemo.selection import SelectionSettings
from arcmemo.selection.matching import NameMatcher

CODE = "def transform(grid):\n    return [[3 if c == 1 else 4 if c == 2 else c for c in row] for row in grid]\n"
CONCEPTS = [
    {"name": "recolor object", "kind": "routine", "routine_subtype": "grid manipulation", "output_typing": "grid",
     "parameters": [{"name": "scheme", "typing": "color mapping", "description": "old -> new"}],
     "cues": ["objects change colour"], "used_in": ["t1"]},
    {"name": "split grid", "kind": "structure", "cues": ["divider lines"], "used_in": ["t2"]},
    {"name": "draw line", "kind": "routine", "output_typing": "grid", "used_in": ["t3"]},
]
LESSONS = [{"format": "oe", "situation": "Objects change colour but keep their shape.",
            "suggestion": "Look for a fixed colour mapping."},
           {"format": "oe", "situation": "Lines are drawn from single pixels.",
            "suggestion": "Extend each pixel towards the border."}]
CAPTION = "<observations>\n- cells change colour\n</observations>\n<speculation>\n- a colour table\n</speculation>"
PSEUDOCODE = "<pseudocode>\nfor each cell: recolour by the table\n</pseudocode>\n<summary>recolour by a table</summary>"
DERIVATION = "<derivation>\nEvery 1 becomes 3 and every 2 becomes 4, so it is a colour table.\n</derivation>"
LESSON_ANSWER = "```yaml\n- situation: cells change colour one to one\n  suggestion: build a colour table\n```"
VALID_CONCEPTS = [
    {"name": "recolour by table", "kind": "routine", "routine_subtype": "grid manipulation",
     "output_typing": "grid", "description": "map each colour through a table",
     "parameters": [{"name": "table", "typing": "colour table := dict[color, color]", "description": "the map"}],
     "cues": ["each colour always becomes the same colour"], "implementation": ["np.vectorize(table.get)"]},
    {"name": "recolor object"},
]
EXPERT_ANSWER = {"reflection": "colours change", "pixel_changes": "1 -> 3, 2 -> 4", "object_changes": "none",
                 "helper_functions": "", "overall_pattern": "a colour table", "program_instructions": "map colours",
                 "program": CODE}


def make_task(i: int | str = 0) -> Task:
    return Task(id=f"task{i}",
                train=(Pair(((1, 0, 0), (0, 0, 2)), ((3, 0, 0), (0, 0, 4))), Pair(((0, 1), (2, 0)), ((0, 3), (4, 0)))),
                test_inputs=(((2, 2, 0, 1),),))


@pytest.fixture
def llm(fake_model):
    """The fake model behind the real client, without the answer cache: every call consumes one answer."""
    from arcmemo.llm.client import LLM, LLMSettings

    client = LLM(LLMSettings(solver_model="fake", aux_model="fake", select_model="fake", concurrency=4,
                             backoff_base_s=0.001, backoff_max_s=0.01, max_attempts=1, cache=False))
    yield client
    client.close()


@pytest.fixture
def memory(tmp_path):
    mem = Memory(tmp_path / "memory.db")
    mem.add_custom_type("color mapping", "dict[color, color]", actor="test")
    for data in CONCEPTS + LESSONS:
        mem.add(data, actor="test")
    yield mem
    mem.close()


def feed(fake, step: str, answers: list[str]) -> deque:
    """Script `step` to answer from `answers` in order (then with junk): each answer is used once."""
    queue = deque(answers)
    fake.on(step, lambda messages: queue.popleft() if queue else "(no answer left)")
    return queue


def logged(llm, step: str) -> Counter:
    return Counter(r.response_text for r in CallLog(llm.settings.log_path).list(step=step, limit=None))


def assert_logged(llm, step: str, answers: list[str]) -> None:
    """Every answer is in the call log (lone surrogates replaced: they cannot be stored)."""
    missing = Counter(utf8_safe(a) for a in answers) - logged(llm, step)
    assert not missing, f"{sum(missing.values())} answers of step {step} are not in the call log"


def assert_valid_memory(memory) -> None:
    """Only concepts the store's own schema accepts, with clean one-line names and clean text."""
    for concept in memory.list():
        data = concept.to_data()
        normalize(data)
        assert clean_line(data["name"]) == data["name"] and len(data["name"]) <= MAX_NAME_CHARS, data["name"][:80]
        texts = [v for v in data.values() if isinstance(v, str)]
        texts += [t for f in ("cues", "implementation") for t in data[f]]
        texts += [t for p in data["parameters"] for t in p.values() if t]
        assert all(clean_text(t) == t for t in texts), data["name"]
    for name, definition in memory.custom_types().items():
        assert clean_line(name) == name and len(name) <= MAX_NAME_CHARS and clean_text(definition) == definition


def record_of(memory, selection, task_id: str = "t") -> SimpleNamespace:
    """The run layer's record of a selection (a line of the run directory's selections.jsonl)."""
    from arcmemo.run.records.selections import concept_names, selection_record

    return SimpleNamespace(**selection_record(task_id, 0, selection, concept_names(memory)))


def failures(memory, task_id: str) -> list[WriteFailure]:
    return memory.write_failures(task_id=task_id)


def run_corpus(fake, step: str, answers: list[str], invoke) -> None:
    """Call `invoke(i, used)` until every answer was used; `used` is the answers that call consumed."""
    assert len(answers) >= 200
    queue = feed(fake, step, answers)
    i = 0
    while queue:
        before = len(fake.calls_for(step))
        invoke(i, lambda before=before: [c.reply for c in fake.calls_for(step)[before:]])
        i += 1


def assert_recorded_in(answer: str, text: str | None) -> None:
    assert clean_text(answer[:1000]) in (text or ""), "the raw answer is not in the record"


# ------------------------------------------------------------------ the corpus, step by step

def test_ps_selection_survives_the_corpus(fake_model, llm, memory):
    answers = corpus(1, valid_value=["recolor object", "split grid", {"concept": "draw line"}], render=yaml_answer)
    revision = memory.revision()

    def invoke(i, used):
        selection = select(make_task(i), memory, SelectionSettings(mode="ps", pass_index=i), llm)
        record = record_of(memory, selection)
        assert_recorded_in(used()[-1], record.reasoning)
        assert record.fallback == selection.fallback and (record.error is not None) == selection.fallback
        assert len(record.error or "") <= MAX_LINE_CHARS + 100 and len(record.unmatched) <= MAX_NAMES
        assert all(len(name) <= MAX_NAME_CHARS for name in record.unmatched)

    run_corpus(fake_model, "select_ps", answers, invoke)
    assert_logged(llm, "select_ps", answers)
    assert memory.revision() == revision


def test_oe_caption_survives_the_corpus(fake_model, llm, memory):
    answers = corpus(2, valid_texts=(CAPTION,))
    fake_model.on("select_oe", lambda messages: "```yaml\n- 1\n```")

    def invoke(i, used):
        selection = select(make_task(i), memory, SelectionSettings(mode="oe", pass_index=i), llm)
        record = record_of(memory, selection)
        if selection.fallback:
            assert record.error.startswith("caption: ")
            assert_recorded_in(used()[-1], record.reasoning)
        else:   # the caption, capped, reached the select prompt
            assert len(fake_model.calls_for("select_oe")[-1].prompt) < MAX_CARRIED_CHARS + 20_000

    run_corpus(fake_model, "caption", answers, invoke)
    assert_logged(llm, "caption", answers)


def test_oe_selection_survives_the_corpus(fake_model, llm, memory):
    answers = corpus(3, valid_value=[1, "#2", "lesson 1"], render=yaml_answer)
    fake_model.on("caption", lambda messages: CAPTION)

    def invoke(i, used):
        selection = select(make_task(i), memory, SelectionSettings(mode="oe", pass_index=i), llm)
        record = record_of(memory, selection)
        assert record.fallback == selection.fallback
        if selection.fallback:
            assert record.error.startswith("select_oe: ") and len(record.error) <= MAX_LINE_CHARS + 100
        assert len(record.unmatched) <= MAX_NAMES

    run_corpus(fake_model, "select_oe", answers, invoke)
    assert_logged(llm, "select_oe", answers)


def test_cheatsheet_update_survives_the_corpus(fake_model, llm, memory):
    answers = corpus(4, valid_texts=("<cheatsheet>\n- check for a fixed colour table first\n</cheatsheet>",))

    def invoke(i, used):
        task = make_task(i)
        update = update_cheatsheet(memory, llm, task, "trace", run_id="corpus", max_words=200)
        if update.error is not None:
            (failure,) = failures(memory, task.id)
            assert failure.step == "cheatsheet" and len(failure.error) <= MAX_LINE_CHARS + 100
            assert_recorded_in(used()[-1], failure.raw)

    run_corpus(fake_model, "cheatsheet", answers, invoke)
    assert_logged(llm, "cheatsheet", answers)
    assert_valid_memory(memory)
    sheet = memory.get("cheatsheet", format="sheet")
    assert sheet is None or len(sheet.description) <= 200 * 1.5 * 12


def _write_corpus(fake_model, llm, memory, step, answers, write, solution):
    def invoke(i, used):
        task = make_task(i)
        result = write(memory, llm, solution(task), run_id="corpus", examples=[])
        if result.failed:
            (failure,) = failures(memory, task.id)
            assert len(failure.error) <= MAX_LINE_CHARS + 100
            if failure.step == step:
                assert_recorded_in(used()[0], failure.raw)

    run_corpus(fake_model, step, answers, invoke)
    assert_logged(llm, step, answers)
    assert_valid_memory(memory)


def test_pseudocode_survives_the_corpus(fake_model, llm, memory):
    fake_model.on("ps_abstract", lambda messages: PS_CONCEPT)
    _write_corpus(fake_model, llm, memory, "pseudocode", corpus(5, valid_texts=(PSEUDOCODE,)), write_ps,
                  lambda task: SolutionInput(task, CODE))
    prompts = [c.prompt for c in fake_model.calls_for("ps_abstract")]
    assert prompts and max(map(len, prompts)) < 2 * MAX_CARRIED_CHARS + 20_000   # the pseudocode was capped


def test_ps_abstraction_survives_the_corpus(fake_model, llm, memory):
    answers = corpus(6, valid_value=VALID_CONCEPTS, render=yaml_answer)
    _write_corpus(fake_model, llm, memory, "ps_abstract", answers, write_ps,
                  lambda task: SolutionInput(task, CODE, pseudocode="recolour", summary="recolour by a table"))


def test_oe_derivation_survives_the_corpus(fake_model, llm, memory):
    fake_model.on("oe_lessons", lambda messages: LESSON_ANSWER)
    _write_corpus(fake_model, llm, memory, "oe_derive", corpus(7, valid_texts=(DERIVATION,)), write_oe,
                  lambda task: SolutionInput(task, CODE))
    assert max(len(c.prompt) for c in fake_model.calls_for("oe_lessons")) < MAX_CARRIED_CHARS + 20_000


def test_oe_lessons_survive_the_corpus(fake_model, llm, memory):
    fake_model.on("oe_derive", lambda messages: DERIVATION)
    answers = corpus(8, valid_value=[{"situation": "cells change colour", "suggestion": "build a table"}],
                     render=yaml_answer)
    _write_corpus(fake_model, llm, memory, "oe_lessons", answers, write_oe, lambda task: SolutionInput(task, CODE))


class RecordingSandbox:
    """Running programs is not what is tested here (the sandbox has its own tests): this one
    checks that only clean text reaches it, and fails every program at once."""

    def __init__(self):
        self.programs: list[str] = []

    def run(self, code, inputs, **kwargs):
        from arcmemo.sandbox import RunOutcome

        assert clean_text(code) == code and len(code) <= MAX_ANSWER_CHARS
        self.programs.append(code)
        return [RunOutcome(False, None, "crash", "not run here", "") for _ in inputs]


def _solver_corpus(fake_model, llm, step, answers, solver, **extra):
    from arcmemo.core.answers import quoted
    from arcmemo.solverkit import Hint, SolveContext, SolverSettings

    sandbox = RecordingSandbox()
    ctx = SolveContext(llm=llm, sandbox=sandbox, settings=SolverSettings(attempts=1, retries=3, extra=extra))

    def invoke(i, used):
        result = solver.solve(make_task(i), Hint(), ctx)
        assert result.error is None, result.error                 # no sample ended in an exception
        assert [a.raw for a in result.attempts] == [quoted(a, MAX_ANSWER_CHARS) for a in used()]
        assert all(a.error for a in result.attempts)

    run_corpus(fake_model, step, answers, invoke)
    assert_logged(llm, step, answers)
    assert sandbox.programs        # some answers did parse into programs


def test_program_synthesis_code_extraction_survives_the_corpus(fake_model, llm):
    from arcmemo_program_synthesis.solver import ProgramSynthesisSolver

    answers = corpus(9, valid_texts=(f"Here it is.\n```python\n{CODE}```",))
    _solver_corpus(fake_model, llm, "solve", answers, ProgramSynthesisSolver())


def test_expert_agents_answer_survives_the_corpus(fake_model, llm):
    from arcmemo_expert_agents import ExpertAgentsSolver

    answers = corpus(10, valid_value=EXPERT_ANSWER, render=json_answer, valid_texts=(json.dumps(EXPERT_ANSWER),))
    _solver_corpus(fake_model, llm, "expert", answers, ExpertAgentsSolver(), agents="grid+pixel", batch_size=1)


# ------------------------------------------------------------------ the reported crashers

INVALID_DATE = "```yaml\n- 2024-13-45\n```"


def test_an_invalid_yaml_date_is_text_in_every_step(fake_model, llm, memory):
    fake_model.on("select_ps", lambda m: INVALID_DATE)
    selection = select(make_task(), memory, SelectionSettings(mode="ps"), llm)
    assert not selection.fallback and selection.unmatched == ["2024-13-45"]     # a name that matches nothing

    fake_model.on("caption", lambda m: CAPTION).on("select_oe", lambda m: INVALID_DATE)
    selection = select(make_task(), memory, SelectionSettings(mode="oe"), llm)
    assert selection.fallback and "not a lesson number: '2024-13-45'" in selection.error

    dated = "```yaml\n- name: dated concept\n  kind: structure\n  description: 2024-13-45\n  cues: [2024-01-02]\n```"
    fake_model.on("ps_abstract", lambda m: dated)
    result = write_ps(memory, llm, SolutionInput(make_task(), CODE, pseudocode="p", summary="s"), examples=[])
    assert result.added == ["dated concept"]
    stored = memory.get("dated concept")
    assert (stored.description, stored.cues) == ("2024-13-45", ["2024-01-02"])


def test_an_integer_of_thousands_of_digits_is_refused_not_converted(fake_model, llm, memory):
    fake_model.on("select_oe", lambda m: f"```yaml\n- {BIG_INT}\n```").on("caption", lambda m: CAPTION)
    selection = select(make_task(), memory, SelectionSettings(mode="oe"), llm)
    assert selection.fallback and "not a lesson number: '999" in selection.error and len(selection.error) < 500

    fake_model.on("ps_abstract", lambda m: f"```yaml\n- name: big\n  kind: structure\n  description: {BIG_INT}\n```")
    result = write_ps(memory, llm, SolutionInput(make_task(), CODE, pseudocode="p", summary="s"), examples=[])
    assert result.failed and result.step == "ps_abstract" and "5000 digits is too long" in result.error
    (failure,) = failures(memory, make_task().id)
    assert BIG_INT in failure.raw and memory.get("big") is None


def test_a_lone_surrogate_in_an_answer_or_a_name_is_replaced_not_a_crash(fake_model, llm, memory):
    fake_model.on("select_ps", lambda m: f"```yaml\n- split grid\n- made up{SURROGATE}\n```")
    selection = select(make_task(), memory, SelectionSettings(mode="ps"), llm)
    assert selection.concept_ids == [memory.get("split grid").id]
    assert record_of(memory, selection).unmatched == ["made up\ufffd"]             # the selection record crashed here
    assert "made up\ufffd" in logged(llm, "select_ps").most_common(1)[0][0]         # and llm/log.py here

    named = f'```yaml\n- name: "bad {SURROGATE} name \\u202e\\0\\a"\n  kind: structure\n```'   # escapes too
    fake_model.on("ps_abstract", lambda m: named)
    result = write_ps(memory, llm, SolutionInput(make_task(), CODE, pseudocode="p", summary="s"), examples=[])
    assert result.added == ["bad \ufffd name"]
    assert_valid_memory(memory)


def test_a_lone_surrogate_in_a_solve_answer_is_kept_as_an_attempt(fake_model, llm):
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import Hint, SolveContext, SolverSettings
    from arcmemo_program_synthesis.solver import ProgramSynthesisSolver

    fake_model.queue("solve", f"Thinking {SURROGATE}\n```python\n{CODE}```")
    ctx = SolveContext(llm=llm, sandbox=get_sandbox(), settings=SolverSettings(attempts=1, retries=0))
    result = ProgramSynthesisSolver().solve(make_task(), Hint(), ctx)
    (attempt,) = result.attempts
    assert result.error is None and attempt.passed_train and attempt.raw.startswith("Thinking \ufffd")
    assert result.usage.calls == 1 and result.usage.completion_tokens > 0


def test_an_alias_bomb_is_refused_at_once_with_a_short_message(fake_model, llm, memory):
    fake_model.on("select_ps", lambda m: f"```yaml\n{alias_bomb()}```")
    selection = select(make_task(), memory, SelectionSettings(mode="ps"), llm)
    assert selection.fallback and "aliases (*name) are not allowed" in selection.error
    assert len(selection.error) < 500          # it was a 580 MB message after 57 s


def test_yaml_nested_deeper_than_libyaml_can_compose_is_refused():
    # about 25,000 nested brackets crashed the interpreter (a segfault in libyaml's composer)
    for text in ("[" * 50_000, "- " * 50_000 + "a", "{a: " * 50_000):
        with pytest.raises(ParseError, match="nested more than 100 levels"):
            parse_yaml_block(f"```yaml\n{text}\n```")


@pytest.mark.parametrize("text, line", [
    ("a: [unclosed\n", 1), ("a: [unclosed", 1), ("a: 1\nb: 'unclosed\n\n\n", 2), ("a: {b: 1,\n  c: 2\n", 2),
    ("a: 1\n  b: 2\n", 2)])
def test_a_yaml_error_is_marked_on_a_line_of_the_text_even_at_its_end(text, line):
    """The parser marks a problem it meets at the end of the stream after the last line break;
    every reader (load and compose) reports it on the last line that has text instead."""
    for read in (safeyaml.load, safeyaml.compose):
        with pytest.raises(safeyaml.YAMLError) as info:
            read(text)
        assert info.value.problem_mark.line + 1 == line and safeyaml.describe(info.value).startswith(f"line {line}: ")


def test_fifty_thousand_names_are_bounded_work(fake_model, llm, memory, monkeypatch):
    names = "".join(f"- concept number {i}\n" for i in range(50_000))
    fake_model.on("select_ps", lambda m: f"```yaml\n{names}```")
    selection = select(make_task(), memory, SelectionSettings(mode="ps"), llm)
    assert selection.fallback and "at most 200,000 are read" in selection.error

    # a list that is within the size read: only the first MAX_NAMES names are matched
    short = "".join(f"- c{i}\n" for i in range(20_000)) + "- split grid\n"
    fake_model.on("select_ps", lambda m: f"```yaml\n- split grid\n{short}```")
    selection = select(make_task(1), memory, SelectionSettings(mode="ps"), llm)
    assert selection.concept_ids == [memory.get("split grid").id]
    assert selection.stats["names_ignored"] == 20_002 - MAX_NAMES and len(selection.unmatched) == MAX_NAMES - 1


def test_name_matching_is_linear_in_the_answer(monkeypatch):
    import arcmemo.selection.matching as matching

    compared = Counter()
    real = matching.bounded_levenshtein
    monkeypatch.setattr(matching, "bounded_levenshtein", lambda a, b, limit: compared.update([a]) or real(a, b, limit))
    matcher = NameMatcher((i, f"concept {i:05d} of a big memory") for i in range(500))
    written = [f"concept {i % 10_000:05d} of a big ocean" for i in range(20_000)] + ["concept 00007 of a big memory"]
    result = matcher.match(written)
    assert result.ids == [7] and len(result.unmatched) == 10_000
    # near misses are searched for the first names that match nothing only, each once
    assert 0 < len(compared) <= matching.MAX_NEAR_MISS_SEARCHES and max(compared.values()) <= 500
    assert matcher.match(["concept 00007 of a big memroy"]).fuzzy == {"concept 00007 of a big memroy":
                                                                     "concept 00007 of a big memory"}


def test_a_giant_pseudocode_is_capped_before_the_next_prompt(fake_model, llm, memory):
    giant = "<pseudocode>\n" + "repeat the step\n" * 11_000 + "</pseudocode>\n<summary>" + "long " * 2_000 + "</summary>"
    fake_model.on("pseudocode", lambda m: giant).on("ps_abstract", lambda m: PS_CONCEPT)
    result = write_ps(memory, llm, SolutionInput(make_task(), CODE), examples=[])
    assert not result.failed
    (call,) = fake_model.calls_for("ps_abstract")
    assert len(call.prompt) < MAX_CARRIED_CHARS + MAX_LINE_CHARS + 20_000      # it made a 1.2 MB prompt
    assert "more characters cut" in call.prompt


def test_a_retry_quotes_a_bounded_answer_and_error(fake_model, llm, memory):
    fake_model.queue("select_ps", "x" * 100_000 + "\n```yaml\n[unclosed\n```", "```yaml\n- split grid\n```")
    selection = select(make_task(), memory, SelectionSettings(mode="ps"), llm)
    assert not selection.fallback
    retry = fake_model.calls_for("select_ps")[-1]
    assert len(retry.messages[1]["content"]) <= MAX_CARRIED_CHARS and len(retry.messages[2]["content"]) < 2_000


# ------------------------------------------------------------------ only interrupts get through

class _Interrupting:
    def __init__(self, exc):
        self.exc = exc

    def __call__(self, *args, **kwargs):
        raise self.exc


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), SystemExit(1), asyncio.CancelledError()])
def test_interrupts_propagate_through_every_guard(exc):
    with pytest.raises(type(exc)):
        read_answer(_Interrupting(exc), "answer")
    with pytest.raises(type(exc)):
        ask_parsed(_Interrupting(exc), [{"role": "user", "content": "q"}], str)


def test_any_other_failure_of_a_parser_is_a_parse_error_and_retried():
    asked = ask_parsed(lambda messages: type("C", (), {"text": "answer"})(), [{"role": "user", "content": "q"}],
                       _Interrupting(RecursionError("maximum recursion depth exceeded")))
    assert not asked.ok and asked.error == "RecursionError: maximum recursion depth exceeded"
    assert len(asked.answers) == 2 and "RecursionError" in asked.messages[-1]["content"]


# ------------------------------------------------------------------ a whole run

POISON = [f"```yaml\n{alias_bomb()}```", f"I pick made up{SURROGATE} and {BIG_INT}.", "```yaml\n" + "[" * 50_000 + "\n```"]


def test_a_solve_run_with_poisoned_answers_finishes_and_records_them(tmp_path, fake_model, llm):
    """Selection of the first task and the write of the second get only poison; the run goes on."""
    from arcmemo.run.config import RunConfig
    from arcmemo.run.loop import new_runner
    from arcmemo.sandbox import get_sandbox
    from arcmemo.solverkit import load_solver

    memory = Memory(str(tmp_path / "memory.db"))
    memory.add(safeyaml.load(PS_CONCEPT.strip("`").removeprefix("yaml"))[0], actor="test")
    script_run(fake_model)
    ids = TASK_IDS[:3]
    poisoned = {"select_ps": ids[0], "pseudocode": ids[1]}

    def about(messages) -> str | None:
        """The task a prompt is about: by its grids (selection) or its solution code (writes)."""
        prompt = "\n".join(m["content"] for m in messages)
        code = {t: max((line for line in seed_code(t).splitlines() if not line.startswith("#")), key=len) for t in ids}
        return next((t for t in ids if code[t] in prompt), None) or task_of(messages, ids)

    def poison(step, valid):
        answers = iter(POISON * 4)
        return lambda messages: next(answers) if about(messages) == poisoned[step] else valid

    fake_model.on("select_ps", poison("select_ps", f"```yaml\n- {LEARNED}\n```"))
    fake_model.on("pseudocode", poison("pseudocode", PSEUDOCODE))
    config = RunConfig(source="training", task_ids=ids, continual=True, k=3, retries=0)
    runner = new_runner(config, memory=memory, make_llm=lambda run_id: llm, sandbox=get_sandbox(),
                        solver=load_solver("program-synthesis"), runs_root=str(tmp_path / "runs"))
    summary = runner.run()

    assert summary["tasks"] == 3 and sorted(summary["passed_train"]) == sorted(ids)
    assert summary["selection_fallbacks"] == 1 and summary["write_failures"] == 1 and summary["writes"] == 3
    (failure,) = memory.write_failures()
    (fallback,) = [SimpleNamespace(**r) for r in runner.rundir.selections() if r["fallback"]]
    assert fallback.task_id == ids[0] and "I pick made up\ufffd" in fallback.reasoning
    assert failure.task_id == ids[1] and failure.step == "pseudocode" and "----- answer 2 -----" in failure.raw
    assert memory.get(LEARNED) is not None and ids[1] not in memory.get(LEARNED).used_in
    assert_valid_memory(memory)
