"""The shared guards for outside text: safe YAML and clean strings."""

from __future__ import annotations

import time

import pytest

from arcmemo.core import safeyaml
from arcmemo.core.text import cap, clean_line, clean_text, utf8_safe


def test_dates_stay_strings_and_invalid_dates_do_not_raise():
    assert safeyaml.load("- 2024-13-45\n- 2024-01-02\n") == ["2024-13-45", "2024-01-02"]


def test_ordinary_scalars_keep_their_types():
    assert safeyaml.load("a: -12\nb: 1.5\nc: true\nd: ~\ne: 'x'\n") == {"a": -12, "b": 1.5, "c": True, "d": None,
                                                                         "e": "x"}


@pytest.mark.parametrize("text, words", [
    ("a: &x [1]\nb: *x\n", "aliases"),
    ("x: " + "9" * 5000, "too long"),
    ("a: [1, 2\n", "line 2"),
    ("name: a\ncues: [x]\nname: b\n", "line 3: the key 'name' is given twice"),
])
def test_refused_yaml_names_the_problem(text, words):
    with pytest.raises(safeyaml.YAMLError) as err:
        safeyaml.load(text)
    assert words in safeyaml.describe(err.value)


def test_an_alias_bomb_is_refused_at_once():
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefgh", "bcdefghi"):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    started = time.monotonic()
    with pytest.raises(safeyaml.YAMLError):
        safeyaml.load("\n".join(levels))
    assert time.monotonic() - started < 1.0


def test_clean_text_removes_what_cannot_be_stored_or_shown():
    assert clean_text("ok\ud800\x00 \u202eevil\u202c\n\tend") == "ok\ufffd evil\n\tend"
    assert clean_line("  extract\n\n objects\x07 ") == "extract objects"
    assert utf8_safe("a\udfffb\x00") == "a\ufffdb\x00"
    clean_text("x\ud800").encode("utf-8")  # never raises


def test_cap_keeps_the_limit_and_says_what_was_cut():
    assert cap("short", 10) == "short"
    capped = cap("x" * 1000, 100)
    assert len(capped) <= 100 and "more characters cut" in capped
