"""safeyaml.dump, which feeds PyYAML's emitter events straight from the data, writes the bytes
PyYAML's own way writes (`yaml.dump` with safeyaml.Dumper: its representers, serializer and
emitter), checked on generated documents full of YAML's awkward cases and on real memories,
with libyaml's emitter and with PyYAML's pure-Python one; and it streams."""

from __future__ import annotations

import io
import json
import random

import pytest
import yaml
from shared_data import OE_LESSONS, PS_MEMORY, needs_reference, reference_file

from arcmemo.core import safeyaml

PIECES = ["", " ", "  ", "a", "word", "x" * 40, ":", ": ", "#", " #", "-", "- ", "?", "? ", "'", '"', "\\", "\n",
          "\n\n", "\r", "\r\n", "\t", "\x85", "\u2028", "\u2029", "\ufeff", "\x00", "\x07", "\x1b", "\x7f", "\xa0",
          "é", "—", "😀", "\U0010ffff", "\ufffd", "\ue000", "\ud7ff", "yes", "No", "null", "~", "1", "0x1F", "1_0",
          "1.5", "1e3", ".5", "-.inf", "12:30", "2024-01-02", "2024-1-2 10:00:00", "---", "...", "[", "]", "{", "}",
          ",", "&", "*", "!", "|", ">", "%", "@", "`", "=", "<<", ".", "%20"]


class PythonDumper(yaml.SafeDumper):
    """safeyaml.Dumper's rules on PyYAML's pure-Python emitter (what runs where libyaml is absent)."""

    ignore_aliases = safeyaml.Dumper.ignore_aliases


PythonDumper.add_representer(str, safeyaml.Dumper.yaml_representers[str])


@pytest.fixture(params=["libyaml", "python"])
def dumper(request, monkeypatch):
    """safeyaml.Dumper as installed (libyaml's emitter), then on the pure-Python emitter."""
    if request.param == "python":
        monkeypatch.setattr(safeyaml, "Dumper", PythonDumper)
    return safeyaml.Dumper


def pyyaml(data) -> str:
    """PyYAML's own way: the data represented as nodes, serialized, emitted."""
    return yaml.dump(data, Dumper=safeyaml.Dumper, **safeyaml.STYLE)


def test_the_dumper_is_libyamls_where_installed():
    assert issubclass(safeyaml.Dumper, yaml.CSafeDumper) == yaml.__with_libyaml__


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
def test_generated_documents_are_written_as_pyyaml_writes_them(dumper, seed):
    rng = random.Random(seed)
    for _ in range(300):
        doc = value(rng, 0)
        if not isinstance(doc, (dict, list)):
            doc = [doc]
        assert safeyaml.dump(doc) == pyyaml(doc), doc


AWKWARD_LINES = [*PIECES, "x" * 99, "x" * 101, "a " * 60, "a  " * 40, "a\t" * 40, "'a " * 40, "- " * 60,
                 "a\u2028 b " * 30, " a\u2028b", "a\u2028" + "x" * 120 + " ", "a\n" * 3 + "b", "\n", " \n", "a\n\n",
                 "\u2028", "a\ufeffb " * 40, "☃ " * 80, "\U0001f600 " * 40]


@pytest.mark.parametrize("line", AWKWARD_LINES)
def test_each_awkward_text_at_every_depth_as_value_item_and_key(dumper, line):
    for depth in range(0, 60, 7):
        doc: object = {line: line, "k": [line, {line: [line]}], "": line, "k" * 110 + line: line}
        for _ in range(depth):
            doc = {"nested": [doc]}
        assert safeyaml.dump(doc) == pyyaml(doc), (line, depth)


def test_empty_collections_top_level_sequences_and_keys_equal_in_python(dumper):
    for doc in ({}, [], [{}], [[]], {"a": {}, "b": []}, [[[1]]], [{"a": [[], {}]}],
                [{0.0: 1}, {-0.0: 2}, {1: 1}, {True: 1}, {1.0: 1}, {None: 1}, {"null": 1}]):
        assert safeyaml.dump(doc) == pyyaml(doc), doc


@pytest.mark.parametrize("name", [pytest.param(name, marks=needs_reference(name)) for name in (PS_MEMORY, OE_LESSONS)])
def test_the_papers_released_memories(dumper, name):
    data = json.loads(reference_file(name).read_text())
    assert safeyaml.dump(data) == pyyaml(data)


def test_what_it_cannot_write_is_named():
    with pytest.raises(TypeError, match="not a tuple: \\(1, 2\\)"):
        safeyaml.dump({"a": (1, 2)})
    with pytest.raises(TypeError, match="not a set"):
        safeyaml.dump([{1}])


def test_a_sequence_given_as_an_iterator_is_written_as_it_is_consumed(dumper):
    """What lets an export stream: each item is in the stream soon after it is read (the
    emitter holds back only its output buffer and the few events it looks ahead), and the text
    is a list's."""
    def item(i: int) -> dict:
        return {"name": f"item {i}", "text": "line\n" * 20}

    out = io.StringIO()
    written_before = []                 # the stream's length as each item is read

    def items():
        for i in range(1000):
            written_before.append(len(out.getvalue()))
            yield item(i)

    safeyaml.dump({"head": 1, "items": items()}, out)
    assert out.getvalue() == pyyaml({"head": 1, "items": [item(i) for i in range(1000)]})
    assert written_before[-1] > 0.8 * len(out.getvalue())


def test_the_style_arcmemo_writes(dumper):
    """Keys in their order, block collections, text with a newline as a `|` block, text a reader
    would take for something else quoted, unicode as itself, long lines folded at 100."""
    shared = ["x"]
    doc = {"z": "two\nlines\n", "a": ["yes", "2024-01-02", "1.5", "é ✓"], "n": [1, 1.5, True, None],
           "empty": [{}, []], "again": shared, "and again": shared, "long": "word " * 25}
    assert safeyaml.dump(doc) == (
        "z: |\n  two\n  lines\n"
        "a:\n- 'yes'\n- '2024-01-02'\n- '1.5'\n- é ✓\n"
        "n:\n- 1\n- 1.5\n- true\n- null\n"
        "empty:\n- {}\n- []\n"
        "again:\n- x\nand again:\n- x\n"
        "long: 'word word word word word word word word word word word word word word word word word word word\n"
        "  word word word word word word '\n")
