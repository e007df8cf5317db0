"""core/blockyaml.py writes the bytes libyaml's emitter writes (PyYAML's CSafeDumper, the export's
settings), checked on generated documents full of YAML's awkward cases and on real memories."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

from arcmemo.core import blockyaml

REFERENCE = Path("/work/shared/reference/arcmemo")

PIECES = ["", " ", "  ", "a", "word", "x" * 40, ":", ": ", "#", " #", "-", "- ", "?", "? ", "'", '"', "\\", "\n",
          "\n\n", "\r", "\r\n", "\t", "\x85", "\u2028", "\u2029", "\ufeff", "\x00", "\x07", "\x1b", "\x7f", "\xa0",
          "é", "—", "😀", "\U0010ffff", "\ufffd", "\ue000", "\ud7ff", "yes", "No", "null", "~", "1", "0x1F", "1_0",
          "1.5", "1e3", ".5", "-.inf", "12:30", "2024-01-02", "2024-1-2 10:00:00", "---", "...", "[", "]", "{", "}",
          ",", "&", "*", "!", "|", ">", "%", "@", "`", "=", "<<", ".", "%20"]


class Reference(yaml.CSafeDumper):
    """PyYAML's own dumping of the export's data shape: text with a newline as a `|` block."""

    def ignore_aliases(self, data):
        return True


Reference.add_representer(str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v,
                                                               style="|" if "\n" in v else None))


def pyyaml(data) -> str:
    return yaml.dump(data, Dumper=Reference, sort_keys=False, allow_unicode=True, width=100,
                     default_flow_style=False)


def text(rng: random.Random) -> str:
    if rng.random() < 0.3:                      # prose long enough to fold, with the odd awkward piece
        words = ["w" * rng.randint(1, 12) for _ in range(rng.randint(5, 60))]
        if rng.random() < 0.5:
            words[rng.randrange(len(words))] = rng.choice(PIECES)
        return "".join(word + " " * rng.choice([1, 1, 1, 2, 3]) for word in words)[:rng.randint(1, 400)]
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))


def scalar(rng: random.Random):
    return rng.choice([text, text, text, lambda r: r.randint(-10**20, 10**20), lambda r: r.random() * 10 ** r.randint(-30, 30),
                       lambda r: r.choice([None, True, False, 0.0, -0.0, float("inf"), float("-inf"), float("nan"),
                                           1e17, 1e-5, 12345678901234567890.0])])(rng)


def long_key(rng: random.Random) -> str:
    """About the 128 bytes a `key: value` line may hold, and far past the width."""
    char = rng.choice(["k", "é", "☃", "😀"])
    return char * (rng.randint(90, 130) // len(char.encode())) + rng.choice(PIECES)


def value(rng: random.Random, depth: int):
    roll = rng.random()
    if depth >= 5 or roll < 0.5:
        return scalar(rng)
    if roll < 0.75:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = [scalar(rng) if rng.random() < 0.2 else long_key(rng) if rng.random() < 0.2 else text(rng)
            for _ in range(rng.randint(0, 4))]
    return {key: value(rng, depth + 1) for key in keys if not (isinstance(key, float) and key != key)}


@pytest.mark.parametrize("seed", range(10))
def test_generated_documents_are_written_as_libyaml_writes_them(seed):
    rng = random.Random(seed)
    for _ in range(300):
        doc = value(rng, 0)
        if not isinstance(doc, (dict, list)):
            doc = [doc]
        assert blockyaml.dump(doc) == pyyaml(doc), doc


AWKWARD_LINES = [*PIECES, "x" * 99, "x" * 101, "a " * 60, "a  " * 40, "a\t" * 40, "'a " * 40, "- " * 60,
                 "a\u2028 b " * 30, " a\u2028b", "a\u2028" + "x" * 120 + " ", "a\n" * 3 + "b", "\n", " \n", "a\n\n",
                 "\u2028", "a\ufeffb " * 40, "☃ " * 80, "\U0001f600 " * 40]


@pytest.mark.parametrize("line", AWKWARD_LINES)
def test_each_awkward_text_at_every_depth_as_value_item_and_key(line):
    for depth in range(0, 60, 7):
        doc: object = {line: line, "k": [line, {line: [line]}], "": line, "k" * 110 + line: line}
        for _ in range(depth):
            doc = {"nested": [doc]}
        assert blockyaml.dump(doc) == pyyaml(doc), (line, depth)


def test_empty_collections_top_level_sequences_and_keys_equal_in_python():
    for doc in ({}, [], [{}], [[]], {"a": {}, "b": []}, [[[1]]], [{"a": [[], {}]}],
                [{0.0: 1}, {-0.0: 2}, {1: 1}, {True: 1}, {1.0: 1}, {None: 1}, {"null": 1}]):
        assert blockyaml.dump(doc) == pyyaml(doc), doc


@pytest.mark.skipif(not (REFERENCE / "compressed_v1.json").exists(), reason="ArcMemo reference files not available")
@pytest.mark.parametrize("name", ["compressed_v1.json", "parsed_lessons.json"])
def test_the_papers_released_memories(name):
    data = json.loads((REFERENCE / name).read_text())
    assert blockyaml.dump(data) == pyyaml(data)


def test_what_it_cannot_write_is_named():
    with pytest.raises(TypeError, match="cannot write a tuple"):
        blockyaml.dump({"a": (1, 2)})
    with pytest.raises(TypeError, match="cannot write a set"):
        blockyaml.dump([{1}])

