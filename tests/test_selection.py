"""Selection (memory read): ps, oe, the baselines, fallback, hint == rendered subset; a pure step that
writes nothing (the run layer records what it offered, `run/records/selections.py`)."""

from __future__ import annotations

import pytest

from arcmemo.core.tasks import Pair, Task
from arcmemo.llm.client import LLMError
from arcmemo.memory.store import Memory
from arcmemo.memory.views.render import render_oe, render_ps, render_sheet
from arcmemo.methods import select
from arcmemo.methods.dynamic_cheatsheet.cumulative import update_cheatsheet
from arcmemo.run.records.selections import concept_names, selection_record
from arcmemo.selection import Selection, SelectionSettings
from arcmemo.selection.oe import render_hint as render_oe_hint

ACTOR = "test"

PS_CONCEPTS = [
    {"name": "recolor object", "kind": "routine", "routine_subtype": "grid manipulation",
     "output_typing": "grid", "description": "recolor an object by a colour scheme",
     "parameters": [{"name": "object", "typing": "object", "description": "what to recolor"},
                    {"name": "scheme", "typing": "color mapping", "description": "old -> new"}],
     "cues": ["objects keep their shape but change colour"], "implementation": ["grid[mask] = c"],
     "used_in": ["t1", "t2"]},
    {"name": "extract objects", "kind": "routine", "routine_subtype": "intermediate",
     "output_typing": "list[object]", "parameters": [{"name": "grid", "typing": "grid"}],
     "cues": ["separate single-colour blobs on a black background"], "used_in": ["t1"]},
    {"name": "split grid", "kind": "structure", "description": "regions separated by divider lines",
     "cues": ["divider lines span the grid"], "used_in": ["t3"]},
    {"name": "draw line", "kind": "routine", "routine_subtype": "grid manipulation",
     "output_typing": "grid", "parameters": [{"name": "direction", "typing": "direction"}],
     "cues": ["straight lines appear in the output"], "used_in": ["t4"]},
]
TYPES = {"color mapping": "dict[color, color]", "direction": "Literal['up', 'down', 'left', 'right']",
         "unused type": "int"}
LESSONS = [
    {"format": "oe", "situation": "The output is a scaled-up copy of the input.",
     "suggestion": "Check for integer block replication."},
    {"format": "oe", "situation": "Objects change colour but keep their shape.",
     "suggestion": "Look for a fixed colour mapping."},
    {"format": "oe", "situation": "Lines are drawn from single pixels.",
     "suggestion": "Extend each pixel towards the border."},
]


def make_task(task_id="abc123") -> Task:
    return Task(
        id=task_id,
        train=(Pair(((1, 0, 0), (0, 0, 2), (0, 0, 0)), ((3, 0, 0), (0, 0, 4), (0, 0, 0))),
               Pair(((0, 1), (2, 0)), ((0, 3), (4, 0)))),
        test_inputs=(((2, 2, 0, 1),),),
    )


@pytest.fixture
def memory(tmp_path):
    mem = Memory(tmp_path / "memory.db")
    for name, definition in TYPES.items():
        mem.add_custom_type(name, definition, actor=ACTOR)
    for data in PS_CONCEPTS:
        mem.add(data, actor=ACTOR)
    for data in LESSONS:
        mem.add(data, actor=ACTOR)
    yield mem
    mem.close()


def ps_by_name(memory, *names):
    return [memory.get(n) for n in names]


def record(memory, task_id, pass_index, sel):
    """The run layer's record of a selection (a line of the run's selections.jsonl)."""
    return selection_record(task_id, pass_index, sel, concept_names(memory))


def yaml_reply(*items, preface="Thinking about the cues first."):
    body = "\n".join(f"- {item}" for item in items) if items else "[]"
    return f"{preface}\n```yaml\n{body}\n```\n"


# -- ps ------------------------------------------------------------------------------------

def test_ps_selects_by_name_and_hint_is_the_rendered_subset(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", yaml_reply("Recolor_Object", "  extract objects  ", "teleport pixels"))
    sel = select(make_task(), memory, SelectionSettings(mode="ps"), fake_llm)

    chosen = ps_by_name(memory, "recolor object", "extract objects")
    assert not sel.fallback and sel.error is None
    assert sorted(sel.concept_ids) == sorted(c.id for c in chosen)
    assert sel.unmatched == ["teleport pixels"]
    # exactly render_ps of the subset, with the one custom type it needs (and none other)
    assert sel.hint == render_ps(chosen, {"color mapping": TYPES["color mapping"]})
    assert "color mapping := dict[color, color]" in sel.hint
    assert "direction" not in sel.hint and "unused type" not in sel.hint
    assert "split grid" not in sel.hint
    assert "Thinking about the cues first." in sel.reasoning
    assert sel.usage.calls == 1

    (call,) = fake_model.calls_for("select_ps")
    assert call.role == "select"
    prompt = call.prompt
    assert render_ps(memory.list(format="ps"), memory.custom_types()) in prompt   # whole library, full form
    assert "Example 1 input (3x3)" in prompt and "Test input 1 (1x4)" in prompt
    assert "relevance" in prompt.lower() or "cues" in prompt
    assert "```yaml" in prompt


def test_ps_hint_includes_types_referenced_by_subtype_and_by_other_types(tmp_path, fake_model, fake_llm):
    mem = Memory(tmp_path / "m.db")
    mem.add_custom_type("selector", "Callable[[object], bool]", actor=ACTOR)
    mem.add_custom_type("object filter", "tuple[selector, int]", actor=ACTOR)
    mem.add({"name": "is big", "kind": "routine", "routine_subtype": "selector", "output_typing": "bool"},
            actor=ACTOR)
    mem.add({"name": "filter objects", "kind": "routine", "routine_subtype": "intermediate",
             "parameters": [{"name": "how", "typing": "object filter"}], "output_typing": "list[object]"},
            actor=ACTOR)
    fake_model.queue("select_ps", yaml_reply("filter objects"))
    sel = select(make_task(), mem, SelectionSettings(mode="ps"), fake_llm)
    assert sel.hint == render_ps([mem.get("filter objects")], {"object filter": "tuple[selector, int]",
                                                               "selector": "Callable[[object], bool]"})
    fake_model.queue("select_ps", yaml_reply("is big"))
    other = Task("other", make_task().train[:1], make_task().test_inputs)   # new prompt, no cache hit
    sel = select(other, mem, SelectionSettings(mode="ps"), fake_llm)
    assert sel.hint == render_ps([mem.get("is big")], {"selector": "Callable[[object], bool]"})


def test_ps_accepts_name_with_reason_and_concept_mappings(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", "```yaml\n- split grid: the grey lines divide it\n- concept: draw line\n```")
    sel = select(make_task(), memory, SelectionSettings(mode="ps"), fake_llm)
    assert sorted(sel.concept_ids) == sorted(c.id for c in ps_by_name(memory, "split grid", "draw line"))
    assert sel.unmatched == []


def test_ps_empty_list_is_a_valid_answer_not_a_fallback(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", yaml_reply())
    sel = select(make_task(), memory, SelectionSettings(mode="ps"), fake_llm)
    assert sel.concept_ids == [] and sel.hint == "" and not sel.fallback


def test_ps_malformed_answer_is_retried_once_with_the_error(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", "I pick recolor object.", yaml_reply("split grid"))
    sel = select(make_task(), memory, SelectionSettings(mode="ps"), fake_llm)
    assert not sel.fallback
    assert sel.concept_ids == [memory.get("split grid").id]
    first, second = fake_model.calls_for("select_ps")
    assert len(second.messages) == len(first.messages) + 2
    assert second.messages[-2] == {"role": "assistant", "content": "I pick recolor object."}
    assert "no fenced ```yaml" in second.messages[-1]["content"]
    assert sel.usage.calls == 2


def test_ps_two_malformed_answers_fall_back_to_no_hint_and_are_recorded(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", "```yaml\nconcepts: {a: 1}\n```", "```yaml\nchosen:\n  - [unclosed\n```")
    sel = select(make_task(), memory, SelectionSettings(mode="ps", pass_index=1), fake_llm)
    assert sel.fallback and sel.hint == "" and sel.concept_ids == []
    assert "select_ps" in sel.error and "not valid YAML" in sel.error
    rec = record(memory, "abc123", 1, sel)
    assert rec["fallback"] and rec["error"] == sel.error and rec["pass_index"] == 1
    assert rec["hint"] == "" and rec["usage"]["calls"] == 2


def test_ps_model_error_falls_back_without_raising(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", LLMError("endpoint says no"))
    sel = select(make_task(), memory, SelectionSettings(mode="ps"), fake_llm)
    assert sel.fallback and "endpoint says no" in sel.error and sel.hint == ""
    assert record(memory, "abc123", 0, sel)["fallback"]


def test_ps_on_empty_memory_needs_no_model_call(tmp_path, fake_model, fake_llm):
    mem = Memory(tmp_path / "empty.db")
    sel = select(make_task(), mem, SelectionSettings(mode="ps"), fake_llm)
    assert sel.hint == "" and not sel.fallback and fake_model.calls == []


def test_selection_record_holds_task_pass_and_the_names_offered(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", yaml_reply("draw line", "nope"))
    sel = select(make_task("t42"), memory, SelectionSettings(mode="ps", pass_index=2), fake_llm)
    rec = record(memory, "t42", 2, sel)
    assert (rec["task_id"], rec["pass_index"], rec["mode"]) == ("t42", 2, "ps")
    assert rec["concept_ids"] == sel.concept_ids and rec["hint"] == sel.hint and rec["concepts"] == ["draw line"]
    assert rec["unmatched"] == ["nope"] and not rec["fallback"] and rec["reasoning"] == sel.reasoning
    assert rec["usage"]["calls"] == 1 and rec["usage"]["prompt_tokens"] > 0


@pytest.mark.parametrize("mode", ["ps", "oe", "none", "all", "cheatsheet"])
def test_selection_writes_nothing_to_the_memory(tmp_path, memory, fake_model, fake_llm, mode):
    fake_model.queue("select_ps", yaml_reply("draw line"))
    fake_model.queue("caption", CAPTION)
    fake_model.queue("select_oe", "```yaml\n- 1\n```")
    path = tmp_path / "memory.db"
    memory.close()
    before = path.read_bytes()
    with Memory(path) as reopened:
        sel = select(make_task(), reopened, SelectionSettings(mode=mode), fake_llm)
    assert path.read_bytes() == before and not sel.fallback
    assert not any(p.name.endswith(("-wal", "-journal")) and p.stat().st_size for p in tmp_path.iterdir())


def test_ps_asks_again_with_the_names_when_it_named_nothing_in_memory(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", yaml_reply("object predicate", "grid manipulation routines"),
                     yaml_reply("draw line"))
    sel = select(make_task(), memory, SelectionSettings(mode="ps"), fake_llm)
    assert sel.concept_ids == [memory.get("draw line").id] and not sel.fallback
    assert sel.stats["asked_again"] == {"unmatched": ["object predicate", "grid manipulation routines"],
                                        "error": None, "matched": 1}
    assert sel.unmatched == ["object predicate", "grid manipulation routines"] and sel.usage.calls == 2
    first, second = fake_model.calls_for("select_ps")
    plain = second.prompt
    assert "'object predicate', 'grid manipulation routines'" in plain and "are not the name of any" in plain
    assert all(f"\n- {c.name}\n" in plain for c in memory.list("ps"))
    cue = "objects keep their shape but change colour"
    assert cue in first.prompt and cue not in plain               # names only, nothing else of the library


def test_ps_an_empty_answer_is_not_asked_again(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", yaml_reply())
    sel = select(make_task(), memory, SelectionSettings(mode="ps"), fake_llm)
    assert "asked_again" not in sel.stats and len(fake_model.calls_for("select_ps")) == 1


def test_model_modes_need_an_llm(memory):
    with pytest.raises(ValueError, match="needs a model client"):
        select(make_task(), memory, SelectionSettings(mode="ps"), None)


def test_an_unknown_mode_is_refused_naming_the_installed_methods(memory):
    from arcmemo.methods import MethodError
    from arcmemo.run.config import RunConfig

    with pytest.raises(MethodError, match=r"no memory method named 'psx'.*available: ps, oe, none, all, cheatsheet"):
        select(make_task(), memory, SelectionSettings(mode="psx"), None)
    with pytest.raises(ValueError, match=r"selection must name an installed memory method \(ps, oe, none"):
        RunConfig(selection="psx")


# -- oe ------------------------------------------------------------------------------------

CAPTION = ("<observations>\n- small objects on black\n- outputs keep shapes, colours change\n</observations>\n"
           "<speculation>\n- a fixed colour mapping\n</speculation>")


def test_oe_captions_then_picks_top_k_numbers(memory, fake_model, fake_llm):
    fake_model.queue("caption", CAPTION)
    fake_model.queue("select_oe", "```yaml\n- 2\n- '#3'\n- 99\n- 2\n- 1\n```")
    sel = select(make_task(), memory, SelectionSettings(mode="oe", top_k=2), fake_llm)
    lessons = memory.list(format="oe")
    assert sel.concept_ids == [lessons[1].id, lessons[2].id]          # model order, cut at top_k
    # the paper's OE hint: the caption, then exactly the chosen lessons rendered
    assert sel.hint == render_oe_hint([lessons[1], lessons[2]], sel.caption)
    assert sel.hint.endswith(render_oe([lessons[1], lessons[2]])) and sel.caption in sel.hint
    assert sel.unmatched == ["#99"]
    assert "Observations:" in sel.caption and "fixed colour mapping" in sel.reasoning
    assert sel.usage.calls == 2

    (cap,) = fake_model.calls_for("caption")
    assert cap.role == "aux" and "Example 1 input (3x3)" in cap.prompt
    assert "<observations>" in cap.prompt and "<speculation>" in cap.prompt
    (pick,) = fake_model.calls_for("select_oe")
    assert pick.role == "select"
    assert render_oe(lessons) in pick.prompt and "small objects on black" in pick.prompt
    assert "at most 2 lessons" in pick.prompt
    assert "Example 1 input" not in pick.prompt                   # the caption stands in for the grids
    assert record(memory, "abc123", 0, sel)["mode"] == "oe"


def test_oe_caption_missing_section_retried_then_fallback(memory, fake_model, fake_llm):
    fake_model.queue("caption", "<observations>x</observations>", "still nothing")
    sel = select(make_task(), memory, SelectionSettings(mode="oe"), fake_llm)
    assert sel.fallback and "caption" in sel.error and sel.hint == ""
    assert fake_model.calls_for("select_oe") == []
    assert "<speculation>" in fake_model.calls_for("caption")[1].messages[-1]["content"]


def test_oe_non_numbers_are_retried(memory, fake_model, fake_llm):
    fake_model.queue("caption", CAPTION)
    fake_model.queue("select_oe", "```yaml\n- the colour one\n```", "```yaml\n- 2\n```")
    sel = select(make_task(), memory, SelectionSettings(mode="oe"), fake_llm)
    assert sel.concept_ids == [memory.list(format="oe")[1].id] and not sel.fallback


# -- baselines -------------------------------------------------------------------------------

def test_none_gives_an_empty_hint_without_model(memory, fake_model, fake_llm):
    sel = select(make_task(), memory, SelectionSettings(mode="none"), fake_llm)
    assert sel == Selection(mode="none") and fake_model.calls == []
    assert record(memory, "abc123", 0, sel)["mode"] == "none"


def test_all_renders_the_whole_memory_without_model(memory, fake_model):
    sel = select(make_task(), memory, SelectionSettings(mode="all"), None)
    assert sel.hint == render_ps(memory.list(format="ps"), memory.custom_types())
    assert sel.concept_ids == [c.id for c in memory.list(format="ps")]
    assert fake_model.calls == []


def test_all_on_oe_only_memory_renders_lessons(tmp_path):
    mem = Memory(tmp_path / "oe.db")
    for data in LESSONS:
        mem.add(data, actor=ACTOR)
    sel = select(make_task(), mem, SelectionSettings(mode="all"))
    assert sel.hint == render_oe(mem.list(format="oe"))


def test_all_shows_the_memory_format_asked_for(tmp_path):
    mem = Memory(tmp_path / "both.db")
    for data in LESSONS:
        mem.add(data, actor=ACTOR)
    mem.add({"format": "ps", "name": "flip grid", "kind": "routine"}, actor=ACTOR)
    oe = select(make_task(), mem, SelectionSettings(mode="all", memory_format="oe"))
    ps = select(make_task(), mem, SelectionSettings(mode="all", memory_format="ps"))
    assert oe.hint == render_oe(mem.list(format="oe")) and "flip grid" not in oe.hint
    assert ps.hint == render_ps(mem.list(format="ps"), mem.custom_types())


def test_cheatsheet_is_rewritten_as_revisions_and_is_the_whole_hint(memory, fake_model, fake_llm):
    empty = select(make_task(), memory, SelectionSettings(mode="cheatsheet"), None)
    assert empty.hint == "" and empty.concept_ids == []

    fake_model.queue("cheatsheet", "<cheatsheet>\n## Colours\n- check for a fixed colour map\n</cheatsheet>",
                     "Sure.\n<cheatsheet>\n## Colours\n- check for a fixed colour map\n## Lines\n- extend pixels\n"
                     "</cheatsheet>")
    first = update_cheatsheet(memory, fake_llm, make_task("t1"), "def transform(g): ...", run_id="r1")
    assert first.updated and first.error is None
    prompt = fake_model.calls_for("cheatsheet")[0].prompt
    assert "(empty" in prompt and "def transform(g): ..." in prompt and "Example 1 input" in prompt
    second = update_cheatsheet(memory, fake_llm, make_task("t2"), "trace two", run_id="r1")
    assert second.updated
    assert "check for a fixed colour map" in fake_model.calls_for("cheatsheet")[1].prompt  # sees the old sheet

    sheet = memory.get("cheatsheet", format="sheet")
    assert sheet.description.endswith("- extend pixels") and sheet.used_in == ["t1", "t2"]
    history = memory.history("cheatsheet", format="sheet")
    assert [h.op for h in history] == ["add", "edit"]
    assert all(h.run_id == "r1" for h in history) and [h.task_id for h in history] == ["t1", "t2"]
    assert "## Lines" not in history[0].snapshot["description"]        # the first text is kept

    sel = select(make_task(), memory, SelectionSettings(mode="cheatsheet"), None)
    assert sel.hint == render_sheet([sheet]) and "## Lines" in sel.hint
    assert sel.concept_ids == [sheet.id]


def test_cheatsheet_failure_is_recorded_and_leaves_the_sheet(memory, fake_model, fake_llm):
    fake_model.queue("cheatsheet", "<cheatsheet>v1</cheatsheet>")
    update_cheatsheet(memory, fake_llm, make_task("t1"), "trace", run_id="r1")
    fake_model.queue("cheatsheet", "no tags", "<cheatsheet></cheatsheet>")
    result = update_cheatsheet(memory, fake_llm, make_task("t2"), "trace", run_id="r1")
    assert not result.updated and "cheatsheet" in result.error
    assert memory.get("cheatsheet", format="sheet").description == "v1"
    (failure,) = memory.write_failures()
    assert (failure.run_id, failure.task_id, failure.step) == ("r1", "t2", "cheatsheet")
    assert failure.raw == "<cheatsheet></cheatsheet>"


def test_cheatsheet_model_error_does_not_raise(memory, fake_model, fake_llm):
    fake_model.queue("cheatsheet", LLMError("down"))
    result = update_cheatsheet(memory, fake_llm, make_task("t1"), "trace", run_id=None)
    assert not result.updated and "down" in result.error
    assert memory.get("cheatsheet", format="sheet") is None


def test_cheatsheet_over_length_is_sent_back(memory, fake_model, fake_llm):
    long_sheet = "word " * 400
    fake_model.queue("cheatsheet", f"<cheatsheet>{long_sheet}</cheatsheet>", "<cheatsheet>short</cheatsheet>")
    result = update_cheatsheet(memory, fake_llm, make_task("t1"), "trace", run_id=None, max_words=100)
    assert result.updated
    assert "keep it under 100 words" in fake_model.calls_for("cheatsheet")[1].messages[-1]["content"]
    assert memory.get("cheatsheet", format="sheet").description == "short"


def test_expand_adds_type_feeding_and_co_used_neighbours(memory, fake_model, fake_llm):
    memory.add({"name": "infer colour mapping", "kind": "routine", "routine_subtype": "intermediate",
                "output_typing": "color mapping", "used_in": ["t9"]}, actor=ACTOR)
    memory.add({"name": "unrelated grid op", "kind": "routine", "routine_subtype": "grid manipulation",
                "output_typing": "grid", "used_in": ["t8"]}, actor=ACTOR)
    fake_model.queue("select_ps", yaml_reply("recolor object"))
    sel = select(make_task(), memory, SelectionSettings(mode="ps", expand=True), fake_llm)
    names = {memory.get(i).name for i in sel.concept_ids}
    # "extract objects" shares task t1; "infer colour mapping" produces the `scheme` parameter's type
    assert names == {"recolor object", "extract objects", "infer colour mapping"}
    assert {memory.get(i).name for i in sel.expanded_ids} == {"extract objects", "infer colour mapping"}
    chosen = [memory.get(i) for i in sel.concept_ids]
    assert sel.hint == render_ps(chosen, {"color mapping": TYPES["color mapping"]})

    fake_model.queue("select_ps", yaml_reply("recolor object"))
    other = Task("o", make_task().train[:1], make_task().test_inputs)
    limited = select(other, memory, SelectionSettings(mode="ps", expand=True, expand_limit=1), fake_llm)
    assert len(limited.expanded_ids) == 1


def test_a_later_pass_asks_afresh_instead_of_replaying_the_cache(memory, fake_model, fake_llm):
    fake_model.queue("select_ps", "bad", "still bad")
    first = select(make_task(), memory, SelectionSettings(mode="ps", pass_index=0), fake_llm)
    assert first.fallback
    fake_model.queue("select_ps", yaml_reply("draw line"))
    second = select(make_task(), memory, SelectionSettings(mode="ps", pass_index=1), fake_llm)
    assert not second.fallback and second.concept_ids == [memory.get("draw line").id]
    assert [c.sample for c in fake_model.calls_for("select_ps")] == [0, 0, 1]
    again = select(make_task(), memory, SelectionSettings(mode="ps", pass_index=1), fake_llm)
    assert again.concept_ids == second.concept_ids and len(fake_model.calls) == 3   # same pass: cache hit
    assert again.usage.cache_hits == 1


def test_a_failed_cheatsheet_rewrite_is_asked_afresh_next_time(memory, fake_model, fake_llm):
    fake_model.queue("cheatsheet", "no tags", "still no tags", "<cheatsheet>\n- a rule\n</cheatsheet>")
    first = update_cheatsheet(memory, fake_llm, make_task("t1"), "trace", run_id="r1")
    assert not first.updated and first.error
    second = update_cheatsheet(memory, fake_llm, make_task("t1"), "trace", run_id="r2")
    assert second.updated and [c.sample for c in fake_model.calls_for("cheatsheet")] == [0, 0, 1]
