"""Memory larger than the context: token estimate, grid description, lexical pre-filter, ps at 5k."""

from __future__ import annotations

import re

import pytest

from arcmemo.core.tasks import Pair, Task
from arcmemo.llm.counting import ESTIMATE, estimate_tokens
from arcmemo.memory.schema import merge_rule as cdata
from arcmemo.memory.schema.concept import Concept
from arcmemo.memory.store import Memory
from arcmemo.memory.views.fitting import fit_prefix
from arcmemo.memory.views.lexical import rank_lexical
from arcmemo.memory.views.library import Library
from arcmemo.memory.views.render import render_oe, render_ps
from arcmemo.methods import select
from arcmemo.selection import SelectionSettings, budget
from arcmemo.selection.oe import render_hint as render_oe_hint
from arcmemo.selection.ps import NOTE_OTHERS, plan_prompt, with_other_names
from benchmarks.synthetic import synthetic_concepts


def scaling_task() -> Task:
    """Output = input scaled up 2x: the grid description says 'scale up, tile or repeat'."""
    a = ((1, 0), (0, 2))
    b = ((3, 3), (0, 3))
    up = lambda g: tuple(tuple(v for v in row for _ in range(2)) for row in g for _ in range(2))  # noqa: E731
    return Task("scale01", (Pair(a, up(a)), Pair(b, up(b))), (((4, 0), (0, 4)),))


def detached(datas) -> list[Concept]:
    return [Concept(id=i, **cdata.normalize(d), content_hash=str(i)) for i, d in enumerate(datas, 1)]


NEEDLE = {"format": "ps", "name": "upscale grid by blocks", "kind": "routine",
          "routine_subtype": "grid manipulation", "output_typing": "grid",
          "cues": ["output is the input scaled up by an integer multiple",
                   "each input pixel becomes a block in the output: scale, tile"],
          "used_in": ["x"]}


def test_estimate_tokens():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcdefg") == 1
    assert ESTIMATE.messages([{"role": "user", "content": "a" * 35}]) == 4 + 4


def test_describe_grids_mentions_size_relation_colours_and_dims():
    text = budget.describe_grids(scaling_task())
    assert "integer multiple (2x2)" in text and "scale up" in text
    assert "2x2 -> 4x4" in text
    assert "input colors: black, blue, red, green" in text
    same = Task("s", (Pair(((0, 1, 0),), ((0, 5, 0),)),), ())
    text = budget.describe_grids(same)
    assert "same size" in text and "new colors appear in the output: grey" in text
    assert "colors removed or deleted in the output: blue" in text


def test_describe_grids_sees_dividers_and_smaller_outputs():
    grid = ((1, 0, 2), (5, 5, 5), (0, 3, 0))
    text = budget.describe_grids(Task("d", (Pair(grid, ((1,),)),), ()))
    assert "divider lines" in text and "smaller than the input" in text


def test_rank_lexical_puts_matching_cues_first():
    concepts = detached(synthetic_concepts(300, seed=3) + [NEEDLE])
    ranked = rank_lexical(budget.describe_grids(scaling_task()), concepts)
    assert ranked[0].name == "upscale grid by blocks"
    assert len(ranked) == len(concepts)


def test_fit_prefix_finds_the_largest_fitting_prefix():
    items = list(range(100))
    assert fit_prefix(items, lambda s: sum(s) <= 45) == 10
    assert fit_prefix(items, lambda s: True) == 100
    assert fit_prefix(items, lambda s: len(s) == 0) == 0


@pytest.mark.parametrize("size, form", [(10, "full"), (55, "collapsed"), (150, "compressed"),
                                        (5000, "prefiltered")])
def test_ps_prompt_stays_under_budget(size, form):
    concepts = detached(synthetic_concepts(size - 1) + [NEEDLE])
    settings = SelectionSettings(token_budget=6000)
    plan = plan_prompt(scaling_task(), Library(concepts, {"color mapping": "dict[color, color]"}), settings)
    assert plan.stats["form"] == form
    assert ESTIMATE.messages(plan.messages) <= 6000
    assert plan.stats["prompt_tokens_est"] == ESTIMATE.messages(plan.messages)
    assert any(c.name == "upscale grid by blocks" for c in plan.shown)
    if form == "prefiltered":
        assert 50 < len(plan.shown) < size
        assert f"holds {size} concepts" in plan.messages[0]["content"]
        # nearly full: one more concept would not have fitted
        assert plan.stats["prompt_tokens_est"] > 6000 - 60


def test_prefilter_with_tiny_budget_shows_nothing_and_falls_back(tmp_path, fake_model, fake_llm):
    mem = Memory(tmp_path / "m.db")
    mem.merge_many([(d, None) for d in synthetic_concepts(400)], actor="t")
    big = tuple(tuple((r + c) % 10 for c in range(30)) for r in range(30))
    task = Task("big", (Pair(big, big),) * 3, (big,))
    sel = select(task, mem, SelectionSettings(mode="ps", token_budget=1000), fake_llm)
    assert sel.fallback and "token budget" in sel.error and fake_model.calls == []


def test_ps_select_end_to_end_on_5000_concepts(tmp_path, fake_model, fake_llm):
    mem = Memory(tmp_path / "big.db")
    mem.merge_many([(d, None) for d in synthetic_concepts(4999) + [NEEDLE]], actor="t")
    fake_model.queue("select_ps", "```yaml\n- upscale grid by blocks\n```")
    sel = select(scaling_task(), mem, SelectionSettings(mode="ps", token_budget=6000), fake_llm)
    (call,) = fake_model.calls_for("select_ps")
    assert ESTIMATE.messages(call.messages) <= 6000
    assert sel.stats["form"] == "prefiltered" and sel.stats["memory_size"] == 5000
    needle = mem.get("upscale grid by blocks")
    assert sel.concept_ids == [needle.id] and sel.hint == render_ps([needle], {})   # speed: benchmarks/selection.py


def test_ps_caption_feeds_the_prefilter(tmp_path, fake_model, fake_llm):
    mem = Memory(tmp_path / "big.db")
    needle = dict(NEEDLE, name="hollow out rectangle", cues=["zzqx hollow interior"])
    mem.merge_many([(d, None) for d in synthetic_concepts(3000) + [needle]], actor="t")
    fake_model.queue("caption", "<observations>\n- zzqx hollow shapes\n</observations>\n"
                                "<speculation>\n- hollow them\n</speculation>")
    fake_model.queue("select_ps", "```yaml\n- hollow out rectangle\n```")
    sel = select(scaling_task(), mem, SelectionSettings(mode="ps", ps_caption=True), fake_llm)
    assert "zzqx" in sel.caption
    assert sel.concept_ids == [mem.get("hollow out rectangle").id]
    assert "hollow out rectangle" in fake_model.calls_for("select_ps")[0].prompt
    assert sel.usage.calls == 2


def test_oe_lessons_over_budget_are_prefiltered_by_the_caption(tmp_path, fake_model, fake_llm):
    mem = Memory(tmp_path / "oe.db")
    lessons = [{"format": "oe", "situation": f"When {w} shapes number {i} appear near the border.",
                "suggestion": f"Try moving each {w} shape {i} cells towards the centre of the grid."}
               for i in range(600) for w in ["red"]]
    lessons.append({"format": "oe", "situation": "When a zzqx pattern appears.", "suggestion": "Undo the zzqx."})
    mem.merge_many([(d, None) for d in lessons], actor="t")
    fake_model.queue("caption", "<observations>\n- a zzqx pattern\n</observations>\n"
                                "<speculation>\n- undo it\n</speculation>")

    def pick_zzqx(messages):
        text = messages[0]["content"]
        number = re.search(r"^(\d+)\. situation: When a zzqx", text, re.M).group(1)
        return f"```yaml\n- {number}\n```"

    fake_model.on("select_oe", pick_zzqx)
    sel = select(scaling_task(), mem, SelectionSettings(mode="oe", token_budget=3000), fake_llm)
    assert sel.stats["form"] == "prefiltered" and 0 < sel.stats["shown"] < 601
    assert ESTIMATE.messages(fake_model.calls_for("select_oe")[0].messages) <= 3000
    needle = [c for c in mem.list(format="oe") if "zzqx" in c.situation][0]
    assert sel.concept_ids == [needle.id]
    assert sel.hint == render_oe_hint([needle], sel.caption) and sel.hint.endswith(render_oe([needle]))


def test_collapsed_form_keeps_often_used_concepts_in_full():
    concepts = detached(synthetic_concepts(54) + [NEEDLE])
    plan = plan_prompt(scaling_task(), Library(concepts), SelectionSettings(token_budget=6000))
    assert plan.stats["form"] == "collapsed"
    text = plan.messages[0]["content"]
    once = [c for c in concepts if len(c.used_in) < 2]
    often = [c for c in concepts if len(c.used_in) >= 2]
    assert once and often
    assert all(f"- concept: {c.name}\n" in text for c in once)
    assert all(c.cues[0] in text for c in often if c.cues)


def test_ps_hint_keeps_the_concepts_listed_first_within_hint_budget(tmp_path, fake_model, fake_llm):
    mem = Memory(tmp_path / "m.db")
    concepts = synthetic_concepts(40)
    mem.merge_many([(d, None) for d in concepts], actor="t")
    picked = [c["name"] for c in concepts[::-1]]          # all 40, most wanted = last in memory
    fake_model.queue("select_ps", "```yaml\n" + "".join(f"- {n}\n" for n in picked) + "```")
    sel = select(scaling_task(), mem, SelectionSettings(mode="ps", hint_budget=800), fake_llm)
    assert estimate_tokens(sel.hint) <= 800
    kept = {mem.get(n).id for n in picked[:len(sel.concept_ids)]}
    assert 0 < len(sel.concept_ids) < 40 and set(sel.concept_ids) == kept    # a prefix of the model's list
    assert sel.concept_ids == sorted(sel.concept_ids)                        # shown in memory order
    assert sel.stats["chosen"] == 40 and sel.stats["hint_dropped"] == 40 - len(sel.concept_ids)
    # one concept more would not have fitted
    one_more = [mem.get(n) for n in picked[:len(sel.concept_ids) + 1]]
    from arcmemo.selection.ps import render_hint

    assert estimate_tokens(render_hint(one_more, mem.custom_types())) > 800


def test_ps_hint_within_budget_is_untouched(tmp_path, fake_model, fake_llm):
    mem = Memory(tmp_path / "m.db")
    mem.merge_many([(d, None) for d in synthetic_concepts(40)], actor="t")
    fake_model.queue("select_ps", "```yaml\n- " + synthetic_concepts(40)[3]["name"] + "\n```")
    sel = select(scaling_task(), mem, SelectionSettings(mode="ps"), fake_llm)
    assert len(sel.concept_ids) == 1 and sel.stats["hint_dropped"] == 0


def test_budgets_are_the_defaults_for_an_endpoint_model(fake_llm):
    assert fake_llm.context_window("select") is None
    assert budget.budgets_for(fake_llm) == (budget.DEFAULT_TOKEN_BUDGET, budget.DEFAULT_HINT_BUDGET)
    assert budget.budgets_for(fake_llm, 900, 400) == (900, 400)


def test_budgets_are_shares_of_the_embedded_models_context():
    from arcmemo.llm.client import LLM, LLMSettings

    def embedded(**local) -> LLM:
        return LLM(LLMSettings(solver_model="local", aux_model="local", select_model="local-small", **local))

    with embedded() as llm:
        assert llm.context_window("select") == 8192                      # the local_n_ctx default
        assert budget.budgets_for(llm) == (int(8192 * 0.30), int(8192 * 0.18))
        assert budget.budgets_for(llm, 4000, None) == (4000, int(8192 * 0.18))  # a flag still wins
    with embedded(local_n_ctx=32768) as llm:
        assert budget.budgets_for(llm) == (budget.DEFAULT_TOKEN_BUDGET, budget.DEFAULT_HINT_BUDGET)
    with embedded(local_n_ctx=1024) as llm:
        assert budget.budgets_for(llm) == (500, 200)                     # never below the minimums


def test_the_hints_other_names_are_the_unchosen_in_memory_order_as_many_as_fit():
    lib = Library(detached(synthetic_concepts(120, seed=3)))
    hint = "the chosen concepts, rendered"
    for chosen in ([], [lib.concepts[0]], [lib.concepts[i] for i in (5, 6, 50, 119)]):
        taken = {c.id for c in chosen}
        names = [f"- {c.name}" for c in lib.concepts if c.id not in taken]
        texts = [hint] + [hint + NOTE_OTHERS + "\n".join(names[:n]) for n in range(1, len(names) + 1)]
        sizes = [estimate_tokens(text) for text in texts]
        for limit in [*range(0, 900, 3), 100_000]:            # every few tokens: a size off by one shows
            expected = max((n for n, size in enumerate(sizes) if size <= limit), default=0)
            assert with_other_names(hint, lib, chosen, limit) == texts[expected], (len(chosen), limit)


@pytest.mark.parametrize("reads", [[5, 40, 300, 1000], [600], [1000], [1, 2, 257, 999]])
def test_a_ranking_read_in_pieces_is_the_whole_order(reads):
    import numpy as np

    from arcmemo.memory.views.lexical import Ranking

    rng = np.random.default_rng(7)
    scores = rng.integers(0, 6, 1000).astype(float)           # many ties: the tie order decides among them
    tie_rank = rng.permutation(1000)
    whole = np.lexsort((tie_rank, -scores)).tolist()
    ranking = Ranking(scores, tie_rank)
    for stop in reads:
        assert ranking[:stop] == whole[:stop] and ranking[stop - 1] == whole[stop - 1]
    assert list(ranking) == whole
