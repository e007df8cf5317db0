"""Reading seed files (ours and BARC's) and hand annotations."""

from __future__ import annotations

from pathlib import Path

import pytest

from arcmemo.abstraction.annotations import AnnotationError, ingest_annotation, load_annotation
from arcmemo.abstraction.seedfile import (
    TRANSPOSED_ENTRY,
    SeedError,
    find_seed_files,
    parse_header,
    read_seed,
    transposed_program,
)
from arcmemo.memory.store import Memory

ROOT = Path(__file__).resolve().parents[1]
BARC = ROOT / "tests" / "data" / "barc"

BARC_STYLE = '''from common import *

import numpy as np

# concepts:
# color guide, filling,
# objects

# description:
# In the input you will see an object.
# To make the output, recolor it.

def main(input_grid):
    return input_grid.T

def generate_input():
    return make_random_grid()

# ============= remove below this point for prompting =============

if __name__ == '__main__':
    visualize(generate_input, main)
'''


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_our_format(tmp_path):
    path = write(tmp_path, "0d3d703e.py", "# concepts: colour mapping, swap\n# description: Swap the\n"
                                          "# colours in pairs.\nimport numpy as np\n\n"
                                          "def transform(grid):\n    return grid\n")
    seed = read_seed(path)
    assert seed.task_id == "0d3d703e" and seed.entry == "transform" and seed.modules == {}
    assert seed.tags == ("colour mapping", "swap")
    assert seed.description == "Swap the colours in pairs."
    assert seed.program == seed.code and len(seed.content_hash) == 64


def test_barc_format_marker_generate_input_and_lib(tmp_path):
    path = write(tmp_path, "aabbccdd.py", BARC_STYLE)
    with pytest.raises(SeedError, match=r"aabbccdd.py: imports the BARC helper module `common`.*--lib"):
        read_seed(path)
    seed = read_seed(path, lib="X = 1\n")
    assert seed.entry == "main" and seed.modules == {"common": "X = 1\n"}
    assert "remove below" not in seed.code and "visualize" not in seed.code
    assert "generate_input" not in seed.code and "def main" in seed.code
    assert seed.tags == ("color guide", "filling", "objects")
    assert seed.description == "In the input you will see an object. To make the output, recolor it."
    other_lib = read_seed(path, lib="X = 2\n")
    transposed = read_seed(path, lib="X = 1\n", transpose=True)
    assert len({seed.content_hash, other_lib.content_hash, transposed.content_hash}) == 3
    assert transposed.entry == TRANSPOSED_ENTRY and transposed.code == seed.code
    assert f"def {TRANSPOSED_ENTRY}(grid)" in transposed.program


def test_transpose_wrapper_turns_xy_back_to_rows():
    namespace: dict = {}
    program = transposed_program("def main(g):\n    g[0, 1] = 7\n    return g\n", "main")
    exec(program, namespace)
    # [x, y] = [0, 1] is row 1, column 0 in row-major terms
    assert namespace[TRANSPOSED_ENTRY]([[0, 0], [0, 0]]) == [[0, 0], [7, 0]]


@pytest.mark.parametrize("name, text, message", [
    ("notatask.py", "def transform(g):\n    return g\n", "must be an ARC task id"),
    ("aaaaaaaa.py", "def solve(g):\n    return g\n", "neither transform"),
    ("aaaaaaaa.py", "def transform(g) return g\n", "not valid Python"),
])
def test_bad_seed_files(tmp_path, name, text, message):
    with pytest.raises(SeedError, match=message):
        read_seed(write(tmp_path, name, text))


def test_find_seed_files_skips_helpers(tmp_path):
    for name in ("common.py", "bbbbbbbb.py", "aaaaaaaa.py", "notes.txt"):
        write(tmp_path, name, "")
    assert [p.name for p in find_seed_files(tmp_path)] == ["aaaaaaaa.py", "bbbbbbbb.py"]
    with pytest.raises(SeedError, match="not a directory"):
        find_seed_files(tmp_path / "nope")


def test_parse_header_stops_at_code():
    tags, description = parse_header("# concepts: a, b\nimport x\n# description: not header? yes\n")
    assert tags == ("a", "b") and description == "not header? yes"


def test_barc_fixture_seeds_read():
    lib = (BARC / "common.py").read_text()
    seeds = [read_seed(p, lib=lib, transpose=True) for p in find_seed_files(BARC)]
    assert len(seeds) == 2 and all(s.entry == TRANSPOSED_ENTRY for s in seeds)
    assert all("verify_transform" not in s.code for s in seeds)


ANNOTATION = """summary: Swap colours in pairs.
pseudocode: |
  output = recolor(grid, mapping)
concepts:
  - name: recolor by table
    kind: routine
    routine_subtype: grid manipulation
    output_typing: grid
    parameters:
      - {name: mapping, typing: "color table := dict[color, color]", description: the table}
    cues: [same layout, new colours]
  - name: known concept
custom_types:
  pair list: "list[tuple[color, color]]"
lessons:
  - situation: Layout kept, colours changed.
    suggestion: Tabulate input colour to output colour over all pairs.
"""


def test_annotation_load_and_ingest(tmp_path):
    path = write(tmp_path, "0d3d703e.yaml", ANNOTATION)
    annotation = load_annotation(path)
    assert [c["name"] for c in annotation.concepts] == ["recolor by table", "known concept"]
    assert annotation.custom_types == {"color table": "dict[color, color]", "pair list": "list[tuple[color, color]]"}
    assert annotation.concepts[0]["parameters"][0]["typing"] == "color table"

    with Memory(tmp_path / "m.db") as memory:
        # a bare reference to a concept the store does not have: refused, nothing written
        with pytest.raises(AnnotationError, match="'known concept' has no kind"):
            ingest_annotation(memory, annotation, "code", formats=("ps", "oe"), run_id="r")
        assert memory.revision() == 0 and memory.list() == [] and memory.solutions() == []

        memory.add({"name": "known concept", "kind": "structure"}, actor="human")
        result = ingest_annotation(memory, annotation, "code", formats=("ps",), run_id="r")
        assert result.added == ["recolor by table"] and result.extended == ["known concept"]
        assert memory.list("oe") == []                        # --format ps: no lessons
        assert memory.custom_types()["color table"] == "dict[color, color]"
        rev = memory.history("recolor by table")[0]
        assert (rev.actor, rev.run_id, rev.task_id, rev.model) == ("human", "r", "0d3d703e", None)
        assert memory.get("recolor by table").source == "human"
        [solution] = memory.solutions("0d3d703e")
        assert solution.origin == "human" and solution.summary == "Swap colours in pairs."

        result = ingest_annotation(memory, annotation, "code", formats=("oe",), run_id="r2")
        assert len(result.added) == 1 and memory.list("oe")[0].situation == "Layout kept, colours changed."
        assert len(memory.solutions("0d3d703e")) == 1


@pytest.mark.parametrize("text, message", [
    ("summary: s\npseudocode: p\nconcepts: []\nextra: 1\n", "unknown field"),
    ("summary: s\nconcepts:\n  - {name: a, kind: routine}\n", "need the 'summary' and 'pseudocode'"),
    ("summary: s\npseudocode: p\nconcepts:\n  - {name: a, kind: routine, cues: oops}\n", r"concepts\[0\].*cues"),
    ("lessons:\n  - situation: only\n", "suggestion"),
    ("summary: s\n", "neither concepts nor lessons"),
    ("- a list\n", "expected a mapping"),
    ("summary: [unclosed\n", "not valid YAML"),
])
def test_bad_annotations_name_file_and_field(tmp_path, text, message):
    path = write(tmp_path, "aaaaaaaa.yaml", text)
    with pytest.raises(AnnotationError, match=message) as info:
        load_annotation(path)
    assert "aaaaaaaa.yaml" in str(info.value)


def test_repository_annotations_all_load():
    paths = sorted((ROOT / "seeds").glob("*.yaml"))
    assert paths, "seeds/ has no annotations"
    for path in paths:
        annotation = load_annotation(path)
        assert (ROOT / "seeds" / f"{annotation.task_id}.py").exists(), f"{path}: no seed file beside it"
