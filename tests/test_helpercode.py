"""Helper source: what a concept's helper may be, read with ast only (never run here)."""

from __future__ import annotations

import pytest

from arcmemo.memory.helpers.modules import build_module, closure
from arcmemo.memory.helpers.source import HelperError, check_helper, describe, helper_name

CROP = '''import numpy as np


def crop_to_bounding_box(grid, region, keep_only_object=False):
    """The smallest rectangle holding the region.

    Example: crop_to_bounding_box(np.array([[0, 7]]), np.array([[0, 7]]) != 0) -> [[7]]
    """
    rows, cols = np.nonzero(region)
    box = grid[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    return np.where(region[rows.min():rows.max() + 1, cols.min():cols.max() + 1], box, 0) if keep_only_object else box
'''

LARGEST = '''from memory_helpers import crop_to_bounding_box
from scipy import ndimage


def crop_largest(grid):
    """Crop the grid to its largest object.

    Example: crop_largest(np.array([[1, 0, 2, 2]])) -> [[2, 2]]
    """
    labels, n = ndimage.label(grid != 0)
    sizes = [(labels == k).sum() for k in range(1, n + 1)]
    return crop_to_bounding_box(grid, labels == 1 + sizes.index(max(sizes)))
'''


def test_helper_names_come_from_concept_names():
    assert helper_name("crop to bounding box") == "crop_to_bounding_box"
    assert helper_name("Fill-enclosed  regions (4-conn)") == "fill_enclosed_regions_4_conn"
    for bad in ("2d grid", "!!!", "transform", "sorted", "class", "memory helpers"):
        with pytest.raises(HelperError):
            helper_name(bad)


def test_a_good_helper_and_what_it_says():
    info = check_helper(CROP, "crop_to_bounding_box", ["grid", "region", "keep_only_object"])
    assert info.signature == "crop_to_bounding_box(grid, region, keep_only_object=False)"
    assert info.summary == "The smallest rectangle holding the region." and "Example:" in info.doc
    assert info.depends == ()
    # extra parameters with defaults are allowed after the concept's
    assert check_helper(CROP, "crop_to_bounding_box", ["grid", "region"]).name == "crop_to_bounding_box"
    # a helper calling another (imported from the module or by bare name) depends on it
    assert check_helper(LARGEST, "crop_largest", ["grid"], helpers=["crop_to_bounding_box"]).depends == (
        "crop_to_bounding_box",)
    bare = LARGEST.replace("from memory_helpers import crop_to_bounding_box\n", "")
    assert check_helper(bare, "crop_largest", ["grid"], helpers=["crop_to_bounding_box", "x"]).depends == (
        "crop_to_bounding_box",)
    assert describe(CROP).signature == info.signature


@pytest.mark.parametrize("source, name, params, problem", [
    ("def f(:\n", "f", [], "does not parse: line 1"),
    ("", "f", [], "empty"),
    (CROP, "crop", ["grid", "region"], "must be named crop"),
    (CROP.replace("import numpy as np", "import os"), "crop_to_bounding_box", ["grid", "region"], "imports 'os'"),
    (CROP.replace("import numpy as np", "from subprocess import run"), "crop_to_bounding_box", ["grid", "region"],
     "imports from 'subprocess'"),
    (CROP.replace("    rows, cols", "    import socket\n    rows, cols"), "crop_to_bounding_box",
     ["grid", "region"], "imports 'socket'"),
    (CROP, "crop_to_bounding_box", ["grid", "mask"], "must be the concept's, in order: (grid, mask)"),
    (CROP, "crop_to_bounding_box", [], "the concept lists no parameters"),
    (CROP.replace("keep_only_object=False", "keep_only_object"), "crop_to_bounding_box", ["grid", "region"],
     "keep_only_object are not the concept's"),
    (CROP.replace('"""The smallest rectangle holding the region.\n\n    Example', '"""Example'),
     "crop_to_bounding_box", ["grid", "region"], None),
    (CROP.replace("    Example: crop_to_bounding_box(np.array([[0, 7]]), np.array([[0, 7]]) != 0) -> [[7]]\n", ""),
     "crop_to_bounding_box", ["grid", "region"], "needs an example"),
    (CROP + "\n\ndef other(g):\n    return g\n", "crop_to_bounding_box", ["grid", "region"], "exactly one function"),
    ("X = 3\n" + CROP, "crop_to_bounding_box", ["grid", "region"], "this is assign"),
    (LARGEST, "crop_largest", ["grid"], "imports crop_to_bounding_box from memory_helpers, which no other"),
    (LARGEST.replace("from memory_helpers import crop_to_bounding_box\n", ""), "crop_largest", ["grid"],
     "uses crop_to_bounding_box, which it neither defines nor imports"),
    (CROP.replace("(grid, region, keep_only_object=False)", "(grid, region, *rest)"), "crop_to_bounding_box",
     ["grid", "region"], "*args or **kwargs"),
])
def test_bad_helpers_are_refused_with_the_reason(source, name, params, problem):
    if problem is None:          # a docstring starting with the example has it as its first line: allowed
        check_helper(source, name, params)
        return
    with pytest.raises(HelperError) as info:
        check_helper(source, name, params)
    assert problem in str(info.value) and "\n" not in str(info.value)


def test_a_module_joins_helpers_and_drops_their_imports_of_each_other():
    sources = {"crop_largest": LARGEST, "crop_to_bounding_box": CROP}
    deps = {"crop_largest": ["crop_to_bounding_box"], "crop_to_bounding_box": []}
    assert closure(["crop_largest"], deps.__getitem__) == ["crop_largest", "crop_to_bounding_box"]
    module = build_module(sources)
    assert "from memory_helpers" not in module and "from scipy import ndimage" in module
    assert module.index("def crop_largest") < module.index("def crop_to_bounding_box")
    compile(module, "memory_helpers", "exec")
