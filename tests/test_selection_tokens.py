"""Budgets hold in the reading model's own tokens: selection and the PS write prompt count
with the client's `count_tokens` (a digit-aware estimate when it has none), and no prompt
exceeds its budget in that count, however its parts add up."""

from __future__ import annotations

import random
import re

import pytest

from arcmemo.abstraction.ps import repository_section
from arcmemo.core.gridtext import format_grid, format_task
from arcmemo.core.tasks import Pair, Task, load_tasks
from arcmemo.llm import counting
from arcmemo.llm.backend import register_model, unregister_model
from arcmemo.llm.catalog import ModelTraits
from arcmemo.llm.client import LLM, LLMSettings
from arcmemo.llm.counting import ESTIMATE, TokenCounter, counter_for, estimate_tokens
from arcmemo.llm.fake import FakeModel
from arcmemo.llm.tokens import Tokenizer
from arcmemo.memory.schema import merge_rule as cdata
from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.store import Memory
from arcmemo.memory.views import library as library_module
from arcmemo.memory.views.fitting import largest_fit
from arcmemo.memory.views.library import ALL_TYPES, COMPRESSED, FULL, NEEDED_TYPES, Form, Library, needed_types
from arcmemo.memory.views.render import render_ps
from arcmemo.methods import select
from arcmemo.prompts import render_prompt
from arcmemo.selection import SelectionSettings
from arcmemo.selection.ps import plan_prompt
from benchmarks.synthetic import synthetic_concepts

TYPES = {"block scaler": "Callable[[grid, factor], grid]", "factor": "int between 2 and 5",
         "color mapping": "dict[color, color]", "unused": "str"}
NEEDLE = {"format": "ps", "name": "upscale grid by blocks", "kind": "routine",
          "routine_subtype": "grid manipulation", "output_typing": "block scaler",
          "parameters": [{"name": "k", "typing": "factor"}],
          "cues": ["output is the input scaled up by an integer multiple"], "used_in": ["a", "b"]}


def detached(datas) -> list[Concept]:
    return [Concept(id=i, **cdata.normalize(d), content_hash=str(i)) for i, d in enumerate(datas, 1)]


def big_task(size: int = 20) -> Task:
    """Grids of size x size: the puzzle is mostly digits, ~3x its chars/3.5 estimate in real tokens."""
    grid = tuple(tuple((r * c + r) % 10 for c in range(size)) for r in range(size))
    return Task("big", (Pair(grid, grid[::-1]), Pair(grid[::-1], grid)), (grid,))


def cells_and_words(text: str) -> int:
    """A stand-in tokenizer: one token per grid cell (digit), word and punctuation run, plus one
    per 300 characters, so the count of a whole is more than the sum of its parts."""
    return len(re.findall(r"\d|[^\W\d]+|[^\w\s]+", text)) + len(text) // 300


CELLS = TokenCounter("cells", cells_and_words)


def every_name_shown(messages) -> str:
    """A select model naming every concept the prompt shows, last first (in full or one-line form)."""
    library = messages[0]["content"].split("# How to work")[0]
    shown = re.findall(r"^- concept: (.+)$", library, re.M) or re.findall(r"^- ([^(\n:]+?)(?:\(|$)", library, re.M)
    return "```yaml\n" + "".join(f"- {n}\n" for n in shown[::-1] if ":=" not in n) + "```"


# -- the estimate ---------------------------------------------------------------------------

def test_the_estimate_counts_a_grid_cell_as_a_token():
    grid = [[1, 2, 3, 4, 5]] * 4
    assert estimate_tokens(format_grid(grid)) == 20 + 3           # cells and line breaks
    assert estimate_tokens("The output grid is larger.") == 6     # words with their spaces, the full stop
    assert estimate_tokens("recolouring") == 2                   # a long word splits
    task = load_tasks("training").tasks[0]
    cells = sum(len(g) * len(g[0]) for p in task.train for g in (p.input, p.output))
    assert estimate_tokens(format_task(task)) > cells > len(format_task(task)) / 3.5 * 2


def test_the_estimate_adds_up_at_line_ends():
    rng = random.Random(1)
    concepts = detached(synthetic_concepts(40) + [NEEDLE])
    texts = [render_ps(concepts, TYPES), format_task(load_tasks("training").tasks[3]),
             render_prompt("select_ps", memory=render_ps(concepts, TYPES, compressed=True), memory_note="",
                           puzzle=format_task(load_tasks("training").tasks[5]))]
    for text in texts:
        lines = text.splitlines(keepends=True)
        for _ in range(20):
            cut = rng.randrange(1, len(lines))
            head, tail = "".join(lines[:cut]), "".join(lines[cut:])
            assert estimate_tokens(head) + estimate_tokens(tail) == estimate_tokens(text)


class Client:
    """What counter_for reads of a client: the role's model, its traits and count_tokens."""

    def __init__(self, tokenizer: str | None):
        self.asked: list[str] = []
        self._traits = ModelTraits(context=None, tokenizer=tokenizer)

    def model_for(self, role: str) -> str:
        return "some-model"

    def traits(self, role: str) -> ModelTraits:
        return self._traits

    def count_tokens(self, text: str, role: str) -> int:
        self.asked.append(role)
        return 7


def test_the_counter_is_the_clients_when_it_is_the_models_tokenizer(fake_llm, monkeypatch):
    assert counter_for(fake_llm, "select") is ESTIMATE and counter_for(None, "select") is ESTIMATE
    assert counter_for(Client(None), "select") is ESTIMATE                  # no tokenizer known: the estimate
    monkeypatch.setattr(counting, "tokenizer_for", lambda model, traits: Tokenizer("estimate", False, "not at hand"))
    grouped = counter_for(Client("o200k_base"), "select")                   # its encoding not at hand
    assert not grouped.estimate and grouped("0123456789") == estimate_tokens("0123456789", 3) == 4
    monkeypatch.setattr(counting, "tokenizer_for", lambda model, traits: Tokenizer("its own", True))
    client = Client("o200k_base")
    counter = counter_for(client, "solver")
    assert counter("anything") == 7 and client.asked == ["solver"] and counter.name == "some-model"
    assert not counter.estimate and counter("") == 0 and counter.messages([{"role": "user", "content": "x"}]) == 7 + 4


# -- the library's parts and their sizes ----------------------------------------------------------

@pytest.mark.parametrize("form", [FULL, COMPRESSED, Form(collapse_below=2)])
@pytest.mark.parametrize("types", [ALL_TYPES, NEEDED_TYPES])
@pytest.mark.parametrize("chunk", [3, 256])                # sizes summed a few entries further at a time, or all at once
def test_library_text_is_render_ps_and_its_sizes_are_exact_for_the_estimate(form, types, chunk, monkeypatch):
    monkeypatch.setattr(library_module, "CHUNK", chunk)
    concepts = detached(synthetic_concepts(60, seed=4) + [NEEDLE])
    lib = Library(concepts, TYPES)
    rng = random.Random(2)
    order = list(range(len(lib)))
    rng.shuffle(order)
    sizes = lib.sizes(order, form, types)
    for n in (0, 1, 2, 7, 30, len(order)):
        subset = [concepts[i] for i in order[:n]]
        custom = TYPES if types == ALL_TYPES else needed_types(subset, TYPES)
        expected = render_ps(subset, custom, compressed=form.compressed, collapse_below=form.collapse_below)
        assert lib.text(order[:n], form, types) == expected
        assert sizes(n) == estimate_tokens(expected)
    assert lib.text(None, form, ALL_TYPES) == render_ps(concepts, TYPES, compressed=form.compressed,
                                                        collapse_below=form.collapse_below)


def test_needed_types_follow_definitions():
    concepts = detached([NEEDLE])
    assert needed_types(concepts, TYPES) == {"block scaler": TYPES["block scaler"], "factor": TYPES["factor"]}
    assert needed_types(detached(synthetic_concepts(3)), {}) == {}


def test_largest_fit_recounts_when_the_parts_do_not_add_up():
    items = [10] * 100
    exact = lambda n: sum(items[:n])                                                   # noqa: E731
    assert largest_fit(100, exact, 455) == (45, 450)
    assert largest_fit(100, exact, 5000) == (100, 1000)
    assert largest_fit(100, lambda n: 1000 + exact(n), 500) == (0, 1000)              # nothing fits
    assert largest_fit(100, lambda n: 1000 + exact(n), 500, lambda n: 900 + exact(n)) == (0, 900)
    asked = []

    def real(n: int) -> int:                                                           # 20% more than planned
        asked.append(n)
        return exact(n) * 12 // 10

    n, size = largest_fit(100, exact, 455, real)
    assert asked == [45, 37]                                    # the plan, then the plan shrunk by 455/540
    assert size == real(n) <= 455 < real(n + 2)                 # within the budget, and nearly full


# -- no prompt over its budget in the model's own count ----------------------------------------------

@pytest.fixture
def cells_llm(fake_llm, monkeypatch):
    """The fake client, counting with `cells_and_words` as if that were its model's tokenizer."""
    roles = []
    monkeypatch.setattr(counting, "tokenizer_for", lambda model, traits: Tokenizer("cells", True))

    def count_tokens(text: str, role: str) -> int:
        roles.append(role)
        return cells_and_words(text)

    monkeypatch.setattr(fake_llm, "count_tokens", count_tokens, raising=False)
    fake_llm.roles_counted = roles
    return fake_llm


@pytest.mark.parametrize("size, form", [(5, "full"), (60, "compressed"), (2000, "prefiltered")])
def test_ps_prompts_and_hints_hold_their_budgets_in_the_models_count(tmp_path, fake_model, cells_llm, size, form):
    memory = Memory(tmp_path / "m.db")
    memory.merge_many([(d, None) for d in synthetic_concepts(size - 1) + [NEEDLE]], actor="t")
    for name, definition in TYPES.items():
        memory.add_custom_type(name, definition, actor="t")
    fake_model.on("select_ps", every_name_shown)
    settings = SelectionSettings(mode="ps", token_budget=4000, hint_budget=900)
    sel = select(big_task(), memory, settings, cells_llm)
    (call,) = fake_model.calls_for("select_ps")
    prompt_tokens = CELLS.messages(call.messages)
    assert sel.stats["form"] == form and sel.stats["tokens"] == "fake"
    assert prompt_tokens <= 4000 and sel.stats["prompt_tokens_est"] == prompt_tokens
    assert ESTIMATE.messages(call.messages) != prompt_tokens                  # it was not the estimate that fitted it
    if form == "prefiltered":
        assert prompt_tokens > 4000 - 60                                      # and the budget was used
    assert 0 < cells_and_words(sel.hint) <= 900
    if size > 5:
        assert sel.stats["hint_dropped"] > 0 and cells_and_words(sel.hint) > 900 - 120
    assert {"select", "solver"} <= set(cells_llm.roles_counted)
    memory.close()


def test_the_ps_write_prompt_holds_its_budget_in_the_models_count():
    concepts = detached(synthetic_concepts(999) + [NEEDLE])
    for limit in (600, 2000):
        note, listed = repository_section(Library(concepts, TYPES), "scale up by blocks", limit, CELLS)
        assert limit - 40 < cells_and_words(note + listed) <= limit
        assert "holds 1000 concepts" in note


def test_oe_prompts_hold_their_budget_in_the_models_count(tmp_path, fake_model, cells_llm):
    memory = Memory(tmp_path / "oe.db")
    lessons = [{"format": "oe", "situation": f"When {i} red shapes touch a {i % 7} wide border.",
                "suggestion": f"Move each of the {i} shapes {i % 5} cells towards the centre."} for i in range(400)]
    memory.merge_many([(d, None) for d in lessons], actor="t")
    fake_model.queue("caption", "<observations>\n- red shapes near the border\n</observations>\n"
                                "<speculation>\n- move them\n</speculation>")
    fake_model.on("select_oe", lambda m: "```yaml\n- 1\n```")
    sel = select(big_task(), memory, SelectionSettings(mode="oe", token_budget=3000), cells_llm)
    (call,) = fake_model.calls_for("select_oe")
    assert sel.stats["form"] == "prefiltered" and 3000 - 60 < CELLS.messages(call.messages) <= 3000
    assert sel.stats["prompt_tokens_est"] == CELLS.messages(call.messages)
    memory.close()


# -- against the real tokenizer (Qwen2.5, the embedded models') -------------------------------------

@pytest.fixture
def qwen():
    """Qwen2.5's own count: the embedded server's /tokenize (llm.tokens), with the server running."""
    from arcmemo.llm import local, tokens

    why = local.unavailable("local-small")
    if why:
        pytest.skip(f"the [local] extra is not installed: {why}")
    try:
        local.ensure_server("local-small")
        assert tokens.tokenizer_for("local-small").exact
        yield lambda text: tokens.count_tokens(text, "local-small")
    finally:
        local.stop_all()


@pytest.mark.slow
@pytest.mark.local_model
def test_the_estimate_is_within_ten_percent_of_qwens_count_on_arc_prompts(qwen):
    tasks = load_tasks("training").tasks[:12]
    lib = Library(detached(synthetic_concepts(1000) + [NEEDLE]), TYPES)
    texts = [format_task(t) for t in tasks[:6]]
    texts += [m["content"] for t in tasks[6:] for m in plan_prompt(t, lib, SelectionSettings(token_budget=6000)).messages]
    texts.append(lib.text(range(60), FULL, ALL_TYPES))
    for text in texts:
        real = qwen(text)
        assert abs(estimate_tokens(text) - real) <= 0.10 * real, (real, estimate_tokens(text), text[:80])


@pytest.mark.slow
@pytest.mark.local_model
def test_prompts_fitted_with_qwens_count_hold_their_budget_in_it(tmp_path, qwen):
    """The select and solver models declare Qwen's tokenizer: the client counts with the running
    embedded server's /tokenize (llm.tokens), and selection fits with that count."""
    fake_model = FakeModel("qwen-double", traits=ModelTraits(context=None, tokenizer="qwen2"))
    register_model("qwen-double", fake_model)
    fake_llm = LLM(LLMSettings(solver_model="qwen-double", aux_model="qwen-double", select_model="qwen-double"))
    assert counter_for(fake_llm, "select").name == "qwen-double"            # its own tokenizer, not the estimate
    memory = Memory(tmp_path / "m.db")
    memory.merge_many([(d, None) for d in synthetic_concepts(1000)], actor="t")
    fake_model.on("select_ps", every_name_shown)
    small = [t for t in load_tasks("training").tasks if estimate_tokens(format_task(t)) < 800]
    for task in small[:3]:
        sel = select(task, memory, SelectionSettings(mode="ps", token_budget=2500, hint_budget=1200),
                     fake_llm)
        prompt = sum(qwen(m["content"]) + 4 for m in fake_model.calls_for("select_ps")[-1].messages)
        assert 2500 - 80 < prompt <= 2500 and sel.stats["prompt_tokens_est"] == prompt
        assert sel.stats["hint_dropped"] > 0 and 1200 - 150 < qwen(sel.hint) <= 1200
    memory.close()
    fake_llm.close()
    unregister_model("qwen-double")
