import pytest

from arcmemo.core.gridtext import format_task
from arcmemo.core.parsing import ParseError, expect_list_of_mappings, extract_code, extract_tag, parse_yaml_block
from arcmemo.core.tasks import Pair, Task


def test_tag_and_yaml():
    text = "<summary> flip it </summary>\n```yaml\n- name: a\n  cues: [x]\n```"
    assert extract_tag(text, "summary") == "flip it"
    assert parse_yaml_block(text) == [{"name": "a", "cues": ["x"]}]


def test_errors_say_what_is_wrong():
    with pytest.raises(ParseError, match="no <pseudocode>"):
        extract_tag("nothing", "pseudocode")
    with pytest.raises(ParseError, match="no fenced ```yaml"):
        parse_yaml_block("- a\n- b")
    with pytest.raises(ParseError, match="not valid YAML at line 2"):
        parse_yaml_block("```yaml\n- a\n  b: [\n```")
    with pytest.raises(ParseError, match=r"\[1\]: missing or non-text field 'name'"):
        expect_list_of_mappings([{"name": "x"}, {"name": 3}], "concepts", ("name",))


def test_extract_code_takes_last_function_block():
    text = "```python\nx = 1\n```\nthen\n```python\ndef transform(g):\n    return g\n```"
    assert extract_code(text).startswith("def transform")
    with pytest.raises(ParseError):
        extract_code("no code here")


def test_format_task_hides_nothing_but_outputs():
    task = Task("t", (Pair(((1, 2),), ((2, 1),)),), (((3, 4), (5, 6)),))
    text = format_task(task)
    assert "Example 1 input (1x2):\n12" in text and "Test input 1 (2x2):\n34\n56" in text


def test_definitions_only_drops_top_level_test_code():
    from arcmemo.core.parsing import definitions_only

    code = '''import numpy as np
from collections import Counter

TABLE = {1: 2,
         3: 4}
UNIFORM, MIXED = 5, 0
color_map = {1: 2}


@staticmethod
def helper(x):
    if x:
        return 1
    else:
        return 2


def transform(grid):
    """Mirror.
    """
    return np.array([list(row)[::-1] for row in grid])

# Test inputs
test_input1 = np.array([[3002, 0400]])
print(transform(test_input1))
assert (transform(np.zeros((2, 2))) == 0).all()
if __name__ == "__main__":
    print("ok")
else:
    print("imported")
for g in [
    1,
]:
    print(g)
'''
    kept = definitions_only(code)
    compile(kept, "<program>", "exec")   # the original does not even compile (0400)
    assert "TABLE = {1: 2,\n         3: 4}" in kept and "def helper" in kept and "else:\n        return 2" in kept
    assert "UNIFORM, MIXED = 5, 0" in kept and "color_map = {1: 2}" in kept
    assert "return np.array([list(row)[::-1] for row in grid])" in kept
    for dropped in ("test_input1", "print(", "assert", "__main__", "imported", "for g"):
        assert dropped not in kept


def test_definitions_only_keeps_multiline_strings_and_guarded_imports():
    from arcmemo.core.parsing import definitions_only

    code = '''try:
    from scipy import ndimage
except ImportError:
    ndimage = None

PATTERN = """
ab
cd
"""


def transform(grid):
    """Mirror.
Second line at column zero.
    """
    return grid[:, ::-1]


print(transform(grid=None))
'''
    kept = definitions_only(code)
    assert "Second line at column zero." in kept and "ab\ncd" in kept and "from scipy import ndimage" in kept
    assert "print(" not in kept
    compile(kept, "<program>", "exec")


def test_definitions_only_returns_hopeless_code_unchanged():
    from arcmemo.core.parsing import definitions_only

    code = "def transform(grid:\n    return grid\n"
    assert definitions_only(code) == code
