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


CUT_FUNCTION = "import numpy as np\n\n\ndef transform(grid):\n    return np.rot90(grid, 2)\n"


def test_a_block_a_cut_left_open_is_closed_after_its_last_complete_statement():
    from arcmemo.core.parsing import close_cut_block

    head = "Rotate it.\n\n```python\n"
    closed = close_cut_block(head + CUT_FUNCTION + "\n\n# try it\nprint(transform(np.array([[1, 2], [3")
    assert closed == head + CUT_FUNCTION + "```\n" and extract_code(closed) == CUT_FUNCTION
    # what is left of the statement being written never counts, even when it parses
    assert close_cut_block(head + "import numpy as np\n\ndef transform(grid):\n    out = grid.copy()\n") is None
    assert close_cut_block(head + CUT_FUNCTION) is None          # transform may have gone on: not known complete
    assert close_cut_block(head + "x = 1\n\ny = [1,\n") is None  # complete, but no transform in it
    assert close_cut_block(f"```python\n{CUT_FUNCTION}```\nThen some prose, cut mid-") is None   # not open
    assert close_cut_block(f"```python3\n{CUT_FUNCTION}\nprint(1") is None    # a language arcmemo does not read
    # the open block is the one after the last closed block, not the first
    answer = f"```python\ndef transform(grid):\n    return grid\n```\nBetter:\n```\n{CUT_FUNCTION}\nprint(transform("
    assert extract_code(close_cut_block(answer)) == CUT_FUNCTION


def test_a_cut_block_with_thousands_of_statements_is_closed_in_a_few_parses(monkeypatch):
    from arcmemo.core import parsing

    parses = []
    real = parsing.pyast.parse
    monkeypatch.setattr(parsing.pyast, "parse", lambda code: parses.append(code) or real(code))
    hostile = "```python\n" + CUT_FUNCTION + "x = (\n" + "y = 1\n" * 40_000 + "z = ["
    assert parsing.close_cut_block(hostile) is None     # the open bracket spoils every prefix the tries reach
    assert len(parses) == parsing.CUT_TRIES


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
