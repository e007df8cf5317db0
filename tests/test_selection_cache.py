"""Selection's memory-side work is done once per memory revision and never outlives it:
a write between two selections (in this process, another process, or a transaction that
rolled back) is seen by the next one."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from arcmemo.core.tasks import Pair, Task
from arcmemo.memory.store import Memory
from arcmemo.memory.views import library as library_module
from arcmemo.memory.views.library import library
from arcmemo.methods import select
from arcmemo.selection import SelectionSettings
from benchmarks.synthetic import synthetic_concepts

NEW = {"format": "ps", "name": "zzqx late arrival", "kind": "routine", "routine_subtype": "grid manipulation",
       "output_typing": "grid", "cues": ["scaled up zzqx blocks"], "used_in": ["t1", "t2"]}


def scaling_task() -> Task:
    a, b = ((1, 0), (0, 2)), ((3, 3), (0, 3))
    up = lambda g: tuple(tuple(v for v in row for _ in range(2)) for row in g for _ in range(2))  # noqa: E731
    return Task("scale01", (Pair(a, up(a)), Pair(b, up(b))), (((4, 0), (0, 4)),))


def names(lib) -> set[str]:
    return {c.name for c in lib.concepts}


def shown_in_prompt(fake_model, name: str) -> bool:
    return name in fake_model.calls_for("select_ps")[-1].prompt


@pytest.fixture
def memory(tmp_path):
    mem = Memory(tmp_path / "m.db")
    mem.merge_many([(d, None) for d in synthetic_concepts(30)], actor="t")
    yield mem
    mem.close()


def test_one_library_per_revision_shared_until_a_write(memory):
    first = library(memory)
    assert library(memory) is first and first.revision == memory.revision()
    entry = first.entry(0)
    memory.merge(NEW, actor="t")
    second = library(memory)
    assert second is not first and "zzqx late arrival" in names(second) and "zzqx late arrival" not in names(first)
    assert second.entry(0) is entry          # an unchanged concept's rendered entry is carried over
    memory.edit(first.concepts[0].name, {"description": "changed"}, actor="t", reason="test")
    third = library(memory)
    assert "description: changed" in third.entry(0) and "description: changed" not in entry


@pytest.mark.parametrize("mode", ["ps", "all"])
def test_a_concept_written_between_two_selections_is_seen(memory, fake_model, fake_llm, mode):
    fake_model.on("select_ps", lambda m: "```yaml\n- zzqx late arrival\n```")
    settings = SelectionSettings(mode=mode)
    before = select(scaling_task(), memory, settings, fake_llm)
    memory.merge(NEW, actor="t")
    after = select(scaling_task(), memory, settings, fake_llm)
    new_id = memory.get("zzqx late arrival").id
    assert new_id not in before.concept_ids and "zzqx late arrival" not in before.hint
    assert new_id in after.concept_ids and "zzqx late arrival" in after.hint
    if mode == "ps":
        assert shown_in_prompt(fake_model, "zzqx late arrival")


def test_a_write_by_another_process_is_seen(memory, fake_model, fake_llm, tmp_path):
    """Two processes share one SQLite file: this one selects, the other writes, this one selects again."""
    fake_model.on("select_ps", lambda m: "```yaml\n- zzqx late arrival\n```")
    settings = SelectionSettings(mode="ps", token_budget=1100)   # prefiltered: the index is used
    before = select(scaling_task(), memory, settings, fake_llm)
    assert before.stats["form"] == "prefiltered" and before.concept_ids == []
    writer = textwrap.dedent(f"""
        from arcmemo.memory.store import Memory
        with Memory({str(tmp_path / "m.db")!r}) as memory:
            memory.merge({NEW!r}, actor="other process")
    """)
    subprocess.run([sys.executable, "-c", writer], check=True, timeout=120)
    after = select(scaling_task(), memory, settings, fake_llm)
    assert after.concept_ids == [memory.get("zzqx late arrival").id]
    assert shown_in_prompt(fake_model, "zzqx late arrival")


def test_a_rolled_back_write_leaves_no_library_behind(memory):
    """Inside a transaction the revision number includes writes that may roll back, and
    SQLite then hands the same number to the next write: nothing built there is kept."""
    start = memory.revision()
    with pytest.raises(RuntimeError), memory.transaction():
        memory.merge(dict(NEW, name="rolled back"), actor="t")
        assert "rolled back" in names(library(memory))
        raise RuntimeError("abort")
    memory.merge(NEW, actor="t")
    assert memory.revision() == start + 1          # the rolled-back revision's number, reused
    lib = library(memory)
    assert "zzqx late arrival" in names(lib) and "rolled back" not in names(lib)


def test_a_failed_build_is_not_kept(memory, monkeypatch):
    real_list = memory.list
    calls = []

    def failing_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk went away")
        return real_list(*args, **kwargs)

    monkeypatch.setattr(memory, "list", failing_once)
    with pytest.raises(OSError):
        library(memory)
    assert memory not in library_module._libraries or "ps" not in library_module._libraries[memory]
    assert len(library(memory)) == 30


def test_formats_are_kept_apart(memory):
    memory.merge({"format": "oe", "situation": "When zzqx.", "suggestion": "Undo it."}, actor="t")
    assert len(library(memory, "ps")) == 30 and len(library(memory, "oe")) == 1
    assert library(memory, "oe").lessons_text().startswith("1. situation: When zzqx.")


def test_a_library_kept_up_to_date_equals_one_read_whole(memory):
    """Each new revision's library re-reads only the concepts written since; after every kind
    of write it holds exactly what reading the whole memory gives."""
    def whole(fmt: str):
        return [c.snapshot() for c in memory.list(fmt)], (memory.custom_types() if fmt == "ps" else {})

    def kept(fmt: str):
        lib = library(memory, fmt)
        return [c.snapshot() for c in lib.concepts], lib.custom_types

    library(memory, "ps"), library(memory, "oe")
    names = [c.name for c in memory.list("ps")]
    writes = [
        lambda: memory.merge(NEW, actor="t"),
        lambda: memory.merge(dict(NEW, cues=["another cue"]), actor="t", task_id="t9"),
        lambda: memory.edit(names[3], {"name": "renamed concept"}, actor="t", reason="r"),
        lambda: memory.delete(names[5], actor="t", reason="r"),
        lambda: memory.add_custom_type("zz type", "list[int]", actor="t"),
        lambda: memory.merge({"format": "oe", "situation": "When a zzqx.", "suggestion": "Undo."}, actor="t"),
        lambda: memory.merge_many([(d, None) for d in synthetic_concepts(300, seed=9)], actor="t"),
        lambda: memory.delete("zzqx late arrival", actor="t", reason="r"),
    ]
    for write in writes:
        write()
        for fmt in ("ps", "oe"):
            assert kept(fmt) == whole(fmt)


def test_a_spliced_lexical_index_ranks_as_one_built_whole(memory):
    """After a write that edits or adds concepts, the new revision's index is spliced from the
    previous one (Library.index); it scores and ranks every query as an index built from the
    whole memory does, through a chain of such writes, and a deletion rebuilds it."""
    import numpy as np

    from arcmemo.memory.views.library import ALL_TYPES, COMPRESSED, FULL, Form, Library

    queries = ["scaled up zzqx blocks", "rotate the grid and recolour objects", "fill enclosed regions", "zzqx"]
    names = [c.name for c in memory.list("ps")]
    writes = [
        lambda: memory.merge(NEW, actor="t"),                                           # appended
        lambda: memory.edit(names[3], {"cues": ["zzqx blocks fill the grid"]}, actor="t", reason="r"),
        lambda: memory.merge(dict(NEW, cues=["another zzqx cue"]), actor="t", task_id="t9"),   # extended: used more
        lambda: memory.merge_many([(d, None) for d in synthetic_concepts(5, seed=4)], actor="t"),
        lambda: memory.edit(names[0], {"description": "recolour every zzqx"}, actor="t", reason="r"),
        lambda: memory.delete(names[5], actor="t", reason="r"),
        lambda: memory.edit(names[7], {"description": "rotate zzqx"}, actor="t", reason="r"),
    ]
    spliced = 0
    def listings(lib) -> tuple:
        """What prompts read from a library's kept columns: listings, their sizes, a hint's types."""
        everything = range(len(lib))
        return (lib.text(None, FULL, ALL_TYPES), lib.text(None, COMPRESSED), lib.sizes(everything, COMPRESSED)(len(lib)),
                lib.sizes(everything, Form(collapse_below=2))(len(lib)), lib.needed_types(everything))

    for write in writes:
        before = library(memory)
        assert before.index is not None and listings(before)    # built: the next revision takes them over
        write()
        kept = library(memory)
        spliced += kept._patch is not None
        whole = Library(memory.list("ps"), memory.custom_types())
        for query in queries:
            assert np.allclose(kept.index.scores(query), whole.index.scores(query))
            assert list(kept.rank(query)) == list(whole.rank(query))
            assert kept.rank(query)[:7] == whole.rank(query)[:7]
        assert listings(kept) == listings(whole)
    assert spliced == len(writes) - 1          # all but the deletion
