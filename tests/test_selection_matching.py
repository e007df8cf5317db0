"""Robust matching of model-written concept names (arcmemo.selection.matching)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arcmemo.selection.matching import ExactFirst, NameMatcher, bounded_levenshtein, match_names, normalise

NAMES = ["recolor object", "extract objects", "split grid", "draw line", "fill enclosed region",
         "rotate", "pick only color from region", "line drawing", "line_drawings"]


@pytest.fixture
def matcher():
    return NameMatcher(enumerate(NAMES, 1))


@pytest.mark.parametrize("written, expected", [
    ("recolor object", "recolor object"),
    ("Recolor Object", "recolor object"),
    ("  recolor   object ", "recolor object"),
    ("recolor_object", "recolor object"),
    ("recolor-object.", "recolor object"),
    ("`split grid`", "split grid"),
    ("'draw line'", "draw line"),
    ("concept: draw line", "draw line"),
    ("fill-enclosed-region", "fill enclosed region"),
    ("FillEnclosedRegion", "fill enclosed region"),           # spaces dropped
    ("pick only colour from region", "pick only color from region"),   # near-miss, 1 edit
    ("extract object", "extract objects"),                     # near-miss, 1 edit
    ("fil enclosed regin", "fill enclosed region"),            # 2 edits on a long name
    ("rotat", "rotate"),                                       # 1 edit on a 5-letter name
])
def test_names_are_matched_despite_case_space_punctuation_and_typos(matcher, written, expected):
    cid, _ = matcher.lookup(written)
    assert cid is not None and NAMES[cid - 1] == expected


@pytest.mark.parametrize("written", [
    "rot",             # names of 4 letters or fewer only match exactly (normalised)
    "rotate object",   # far from everything
    "line drawings",   # normalises to one name but is 1 edit from another: exact-normalised wins
    "",
    "teleport",
])
def test_no_guessing(matcher, written):
    cid, _ = matcher.lookup(written)
    if written == "line drawings":
        assert NAMES[cid - 1] == "line_drawings"
    else:
        assert cid is None


def test_ambiguous_near_miss_is_unmatched():
    m = NameMatcher([(1, "draw lines"), (2, "draw liner")])
    assert m.lookup("draw linez") == (None, False)


def test_ambiguous_after_normalising_is_unmatched():
    m = NameMatcher([(1, "split-grid"), (2, "split grid!")])
    assert m.lookup("Split Grid") == (None, False)
    assert m.lookup("split-grid") == (1, False)     # the exact name still works


def test_match_keeps_order_dedupes_and_reports_misses():
    concepts = [SimpleNamespace(id=i, name=n) for i, n in enumerate(NAMES, 10)]
    result = match_names(["split grid", "Split Grid", "nonsense", "extract object", "nonsense"], concepts)
    assert result.ids == [12, 11]
    assert result.unmatched == ["nonsense"]
    assert result.fuzzy == {"extract object": "extract objects"}


def test_bounded_levenshtein():
    assert bounded_levenshtein("kitten", "sitting", 5) == 3
    assert bounded_levenshtein("kitten", "sitting", 2) == 3        # limit + 1 once exceeded
    assert bounded_levenshtein("abc", "abc", 0) == 0
    assert bounded_levenshtein("a", "abcdef", 2) == 3


def test_normalise():
    assert normalise("  Concept:  Fill_Enclosed-Region! ") == "fill enclosed region"


@pytest.mark.parametrize("written", [
    "recolor object(object: object, scheme: color mapping) -> grid",   # a compressed line copied whole
    "recolor object(object",                                          # what YAML leaves of it as a key
    "recolor object -> grid",
])
def test_copied_signatures_are_stripped(matcher, written):
    cid, _ = matcher.lookup(written)
    assert NAMES[cid - 1] == "recolor object"


def test_parse_names_accepts_an_unfenced_bare_list_but_not_prose():
    from arcmemo.core.parsing import ParseError
    from arcmemo.selection.oe import parse_numbers
    from arcmemo.selection.ps import parse_names

    assert parse_names("- split grid\n- draw line(direction: direction) -> grid\n") == [
        "split grid", "draw line(direction"]
    assert parse_numbers("- 3\n- 1") == [3, 1]
    # not valid YAML (": " inside an item), but plainly a list of dash lines
    signature = "- color mapping\n- layered order(steps: list[step], key: Callable[[step], Any])"
    assert parse_names(signature) == ["color mapping", "layered order(steps: list[step], key: Callable[[step], Any])"]
    assert parse_names(f"Picks:\n```yaml\n{signature}\n```") == parse_names(signature)
    for bad in ("I would pick split grid.", "Here:\n- split grid\n- draw line", "name: split grid",
                "```yaml\n[unclosed\n```\n- split grid"):
        with pytest.raises(ParseError):
            parse_names(bad)


@pytest.mark.parametrize("answer", [
    ["draw lines", "fill holes", "draw lines"],                  # exact names shown, one twice
    ["Draw-Lines", "fill holes"],                                # a paraphrase: the full matcher
    ["draw lnes"],                                               # a near miss
    ["fill holes", "rotate grid"],                               # a name in memory but not shown
    ["structures", "draw lines"],                                # a heading
])
def test_exact_names_are_read_without_a_matcher_and_anything_else_as_a_matcher_reads_it(answer):
    everything = {"draw lines": 1, "fill holes": 2, "rotate grid": 3}
    shown = [(1, "draw lines"), (2, "fill holes")]
    built = []

    def make():
        built.append(True)
        return NameMatcher(shown)

    quick = ExactFirst(everything, {1, 2}, make)
    assert quick.match(answer) == NameMatcher(shown).match(answer)
    assert bool(built) == (not all(name in dict(map(reversed, shown)) for name in answer))
