"""A puzzle's profile (what its train pairs show, as words) and retrieval by it: the traits named
only when every pair shows them, words the lexical matcher keeps, test inputs never read, and the
most similar stored items found first, once per memory revision."""

from __future__ import annotations

import pytest

from arcmemo.core.tasks import Pair, Task, load_tasks
from arcmemo.memory.store import Memory
from arcmemo.memory.views.lexical import terms
from arcmemo.methods import retrieval
from arcmemo.methods.task_profile import profile_lines, task_profile


def task(*pairs, tests=(((0,),),)) -> Task:
    return Task("t", tuple(Pair(tuple(map(tuple, i)), tuple(map(tuple, o))) for i, o in pairs),
                tuple(tuple(map(tuple, g)) for g in tests))


def words(t: Task) -> set[str]:
    return {w for _, ws in profile_lines(t) for w in ws}


GRID = [[0, 1, 0], [0, 2, 0], [3, 0, 0]]


@pytest.mark.parametrize("pairs, present, absent", [
    # a colour table, cell by cell
    ([([[1, 2], [2, 1]], [[5, 6], [6, 5]]), ([[2, 2], [1, 0]], [[6, 6], [5, 0]])],
     {"samesize", "colourmap", "tinygrids", "newcolour", "lostcolour"}, {"recolour", "outputsmaller"}),
    # mirrored left to right
    ([(GRID, [row[::-1] for row in GRID]), ([[3, 0], [0, 0]], [[0, 3], [0, 0]])], {"mirrored"}, {"rotated", "cropped"}),
    # the output cut out of the input
    ([([[0, 0, 0], [0, 4, 4], [0, 4, 1]], [[4, 4], [4, 1]]), ([[7, 7, 0], [7, 0, 0], [0, 0, 0]], [[7, 7], [7, 0]])],
     {"outputsmaller", "cropped"}, {"samesize", "scaledup"}),
    # every cell blown up to 2x2
    ([([[1, 0], [0, 2]], [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 2, 2], [0, 0, 2, 2]])], {"outputlarger", "scaledup"},
     {"tiled"}),
    # the input repeated side by side
    ([([[1, 0], [0, 2]], [[1, 0, 1, 0], [0, 2, 0, 2]])], {"tiled", "outputlarger"}, {"scaledup"}),
    # cells only added on a black background, the shape kept symmetric
    ([([[3, 0, 0], [0, 0, 0], [0, 0, 0]], [[3, 3, 3], [3, 0, 3], [3, 3, 3]])],
     {"onlyadds", "blackbackground", "symmetricoutput", "singleobject", "objectcountkept"}, {"onlyremoves"}),
    # a full line of one colour divides the input
    ([([[1, 0, 5, 0, 2], [0, 1, 5, 2, 0], [1, 1, 5, 0, 0]], [[1], [2], [1]])], {"dividerlines", "outputsmaller"}, set()),
])
def test_a_trait_is_named_when_every_pair_shows_it(pairs, present, absent):
    found = words(task(*pairs))
    assert present <= found and not (absent & found), found


def test_a_trait_only_some_pairs_show_is_not_named():
    mirrored = (GRID, [row[::-1] for row in GRID])
    other = ([[1, 2], [3, 4]], [[4, 3], [2, 9]])
    assert "mirrored" in words(task(mirrored)) and "mirrored" not in words(task(mirrored, other))


def test_every_trait_word_survives_the_lexical_matcher():
    """A word the matcher dropped (a stopword, a number) could never make two puzzles alike."""
    for t in load_tasks("training").tasks[:60]:
        for _, ws in profile_lines(t):
            assert all(terms(w) for w in ws), ws


def test_the_profile_reads_train_pairs_only():
    pairs = [([[1, 2], [2, 1]], [[5, 6], [6, 5]])]
    assert task_profile(task(*pairs, tests=[[[9]]])) == task_profile(task(*pairs, tests=[[[1, 2, 3]] * 7]))
    text = task_profile(task(*pairs))
    assert text.splitlines()[-1] == "sizes: 2x2->2x2" and "change: manychanges colourmap" in text


def test_a_task_without_pairs_has_an_empty_profile():
    assert task_profile(Task("t", (), ())) == "" and profile_lines(Task("t", (), ())) == []


# -- retrieval -------------------------------------------------------------------------------------------

def item(name: str, profile: str, origin: str = "success") -> dict:
    return {"format": "bank", "name": name, "description": "d", "suggestion": "s",
            "meta": {"origin": origin, "task_profile": profile}}


def profile_of(concept) -> str:
    return concept.meta["task_profile"]


@pytest.fixture
def memory(tmp_path):
    with Memory(str(tmp_path / "m.db")) as m:
        yield m


def test_the_most_similar_items_come_first_and_one_sharing_nothing_is_not_similar(memory):
    memory.add(item("crop", "size: outputsmaller\nrelation: cropped\ncolours: black red"), actor="t")
    memory.add(item("table", "size: samesize\nchange: colourmap\ncolours: black blue"), actor="t")
    memory.add(item("fill", "size: samesize\nchange: onlyadds\ncolours: black"), actor="t")
    memory.add(item("alien", "shape: dividerlines"), actor="t")
    found, size = retrieval.most_similar(memory, "bank", "size: samesize\nchange: colourmap\ncolours: black",
                                         5, profile_of, key="profile")
    assert size == 4 and [c.name for c, _ in found][:2] == ["table", "fill"]
    assert "alien" not in [c.name for c, _ in found]
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True) and all(s > 0 for _, s in found)
    top, _ = retrieval.most_similar(memory, "bank", "colourmap", 1, profile_of, key="profile",
                                    keep=lambda c: c.name != "table")
    assert top == []                               # the only match was kept out


def test_the_index_is_built_once_per_memory_revision(memory, monkeypatch):
    memory.add(item("table", "change: colourmap"), actor="t")
    built = []
    real = retrieval.LexicalIndex

    def counting(*args, **kwargs):
        built.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(retrieval, "LexicalIndex", counting)
    for _ in range(3):
        retrieval.most_similar(memory, "bank", "change: colourmap", 3, profile_of, key="profile")
    assert len(built) == 1
    memory.add(item("crop", "relation: cropped"), actor="t")
    found, size = retrieval.most_similar(memory, "bank", "relation: cropped", 3, profile_of, key="profile")
    assert len(built) == 2 and size == 2 and [c.name for c, _ in found] == ["crop"]


def test_an_empty_format_finds_nothing(memory):
    assert retrieval.most_similar(memory, "case", "change: colourmap", 3, profile_of, key="profile") == ([], 0)
