"""The PS abstraction prompt's memory part stays within `abstraction_memory_tokens`: the whole
memory when it fits (prompt unchanged), else the concepts most related to the solution."""

from __future__ import annotations

import pytest

from arcmemo.abstraction import SolutionInput, write_ps
from arcmemo.abstraction.ps import (
    DEFAULT_MEMORY_TOKENS,
    NONE_SHOWN,
    abstraction_prompt,
    repository_section,
)
from arcmemo.core.estimate import estimate_tokens
from arcmemo.core.settings import ConfigError, Settings
from arcmemo.core.tasks import Pair, Task
from arcmemo.memory.schema import merge_rule as cdata
from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.store import Memory
from arcmemo.memory.views.lexical import rank_lexical
from arcmemo.memory.views.library import Library
from arcmemo.memory.views.render import render_ps
from benchmarks.synthetic import synthetic_concepts

NEEDLE = {"format": "ps", "name": "upscale grid by blocks", "kind": "routine",
          "routine_subtype": "grid manipulation", "output_typing": "block scaler",
          "parameters": [{"name": "factor", "typing": "int"}],
          "cues": ["output is the input scaled up by an integer multiple"], "used_in": ["x"]}
TYPES = {"block scaler": "Callable[[grid, int], grid]", "unrelated type": "dict[color, int]"}
SUMMARY = "Scale the input up: every pixel becomes a 2x2 block."
PSEUDOCODE = "factor = 2\noutput = upscale(grid, factor)"
CODE = "import numpy as np\n\ndef transform(grid):\n    return np.kron(grid, np.ones((2, 2), dtype=int))\n"
INTRO = "The concepts recorded so far (one line each: name, parameters with typings, output typing):\n"


def detached(datas) -> list[Concept]:
    return [Concept(id=i, **cdata.normalize(d), content_hash=str(i)) for i, d in enumerate(datas, 1)]


def repository_part(prompt: str) -> str:
    """The prompt text from the repository's intro line to the next heading."""
    start = prompt.index(INTRO) + len(INTRO)
    return prompt[start:prompt.index("\n\n# The solved puzzle")]


def listed_names(part: str) -> set[str]:
    """The concept names listed (one-line form `- name(params) -> typing` or `- name`)."""
    return {line[2:].split("(")[0] for line in part.splitlines() if line.startswith("- ") and ":=" not in line}


def test_a_memory_that_fits_is_shown_whole_with_no_note():
    concepts = detached(synthetic_concepts(20) + [NEEDLE])
    prompt = abstraction_prompt(Library(concepts, TYPES), SUMMARY, PSEUDOCODE, [], "t", code=CODE, limit=3000)
    # exactly the whole compressed memory right under the intro line, as before the budget
    assert repository_part(prompt) == render_ps(concepts, TYPES, compressed=True).strip()
    assert "too many to show" not in prompt
    empty = abstraction_prompt(Library([]), SUMMARY, PSEUDOCODE, [], "t", limit=3000)
    assert repository_part(empty) == "(empty: no concepts recorded yet)"


def test_2000_concepts_show_the_related_ones_within_the_budget():
    concepts = detached(synthetic_concepts(1999) + [NEEDLE])
    prompt = abstraction_prompt(Library(concepts, TYPES), SUMMARY, PSEUDOCODE, [], "t", code=CODE, limit=3000)
    part = repository_part(prompt)
    assert estimate_tokens(part) <= 3000
    assert estimate_tokens(part) > 3000 - 60          # filled: one more line would not fit
    assert part.startswith("(The repository holds 2000 concepts, too many to show here.")
    assert "create a new concept with a new name" in part
    assert "- upscale grid by blocks(factor: int) -> block scaler" in part
    assert "- block scaler := Callable[[grid, int], grid]" in part     # the type it uses comes along
    assert "unrelated type" not in part
    shown = listed_names(part)
    assert shown <= {c.name for c in concepts} and 50 < len(shown) < 500
    assert f"only the {len(shown)} most related" in part


def test_the_partial_list_is_rendered_like_the_whole_one():
    concepts = detached(synthetic_concepts(999) + [NEEDLE])
    note, listed = repository_section(Library(concepts, TYPES), SUMMARY, 1000)
    assert note.endswith("new name.)\n") and "holds 1000 concepts" in note
    shown = [c for c in concepts if c.name in listed_names(listed)]
    assert 0 < len(shown) < len(concepts)
    assert listed == render_ps(shown, {"block scaler": TYPES["block scaler"]}, compressed=True).strip()


def test_nothing_fitting_says_so_instead_of_claiming_an_empty_memory():
    concepts = detached(synthetic_concepts(200))
    note, listed = repository_section(Library(concepts), SUMMARY, 10)
    assert listed == NONE_SHOWN and "only the 0 most related" in note


def test_the_setting(monkeypatch, tmp_path):
    assert Settings.load().abstraction_memory_tokens == DEFAULT_MEMORY_TOKENS == 3000
    monkeypatch.setenv("ARCMEMO_ABSTRACTION_MEMORY_TOKENS", "1200")
    assert Settings.load().abstraction_memory_tokens == 1200
    monkeypatch.setenv("ARCMEMO_ABSTRACTION_MEMORY_TOKENS", "lots")
    with pytest.raises(ConfigError, match="abstraction_memory_tokens .*: expected an integer >= 500, got 'lots'"):
        Settings.load()
    monkeypatch.setenv("ARCMEMO_ABSTRACTION_MEMORY_TOKENS", "100")
    with pytest.raises(ConfigError, match="expected an integer >= 500, got '100'"):
        Settings.load()


def test_write_ps_on_a_large_memory(tmp_path, monkeypatch, fake_model, fake_llm):
    """End to end: the configured budget holds, the relevant concept is offered, and a name
    the model was not shown still merges into the stored concept rather than duplicating it."""
    memory = Memory(tmp_path / "m.db")
    synthetic = synthetic_concepts(1999)
    memory.merge_many([(d, None) for d in synthetic + [NEEDLE]], actor="t")
    for name, definition in TYPES.items():
        memory.add_custom_type(name, definition, actor="t")
    grid = ((1, 2), (3, 4))
    task = Task("scale002", (Pair(grid, tuple(tuple(v for v in r for _ in (0, 1)) for r in grid for _ in (0, 1))),),
                (grid,))
    # a concept the prompt will not show: the one ranked last for this solution
    unshown = rank_lexical("\n".join((SUMMARY, PSEUDOCODE, CODE)), memory.list("ps"))[-1].name
    fake_model.queue("ps_abstract", "```yaml\n- name: upscale grid by blocks\n"
                                    "  cues: [each pixel becomes a square block]\n"
                                    f"- name: {unshown}\n```")
    result = write_ps(memory, fake_llm, SolutionInput(task, CODE, pseudocode=PSEUDOCODE, summary=SUMMARY),
                      examples=[], memory_tokens=1500)
    assert not result.failed, result.error
    [call] = fake_model.calls_for("ps_abstract")
    part = repository_part(call.prompt)
    assert estimate_tokens(part) <= 1500 and "holds 2000 concepts" in part
    assert "upscale grid by blocks" in listed_names(part) and unshown not in listed_names(part)
    assert sorted(result.extended) == sorted(["upscale grid by blocks", unshown])
    assert result.added == [] and len(memory.list("ps")) == 2000
    assert memory.get(unshown).used_in[-1] == "scale002"
    memory.close()


@pytest.mark.parametrize("total", [5, 1234, 20_000])
def test_a_notes_number_is_sized_without_estimating_the_note_again(total):
    """Plans size the note saying how many concepts they show for every n they try from the
    note at 0 (with_number): each digit is one token of the estimate."""
    from arcmemo.core.estimate import with_number
    from arcmemo.prompts import render_prompt
    from arcmemo.selection.ps import NOTE_PREFILTERED

    for note in (lambda n: NOTE_PREFILTERED.format(total=total, shown=n),
                 lambda n: render_prompt("ps_abstract_partial", total=total, shown=n)):
        at_zero = estimate_tokens(note(0))
        assert [with_number(at_zero, n) for n in (0, 7, 10, 99, 100, 4321)] == [
            estimate_tokens(note(n)) for n in (0, 7, 10, 99, 100, 4321)]
